"""``revhandlers pullback fmt``: the token-preserving layout of the pullback
language (revhandlers.pullback.fmt, on the shared revhandlers.rh.fmt.Layout).

Every expected output below is written by hand from the rules of the
module's documentation; the check that the output parses to the same term
is made here with the parser, not with the formatter's own check."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from revhandlers.cli import main
from revhandlers.errors import BadInput
from revhandlers.pullback import fmt as pfmt
from revhandlers.pullback.fmt import format_source, source_tokens
from revhandlers.pullback.surface import parse

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = sorted((ROOT / "examples" / "pullback").glob("*.pb"))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(["pullback", *argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


# (source, its layout), written by hand
LAYOUTS = [
    # spacing on a line: none inside brackets, around ':' and '^', after λ, before ',' and a postfix *
    ("( ( Ω  λ ⟨ x , y ⟩ : R ^ 2 . sin ( x ) + y )·( λ z : R .[ 1 ] * ) ) ⟨ 1 , 3 ⟩",
     "((Ω λ⟨x, y⟩:R^2. sin(x) + y) · (λz:R. [1]*)) ⟨1, 3⟩\n"),
    # ASCII stays ASCII; a product type's * has spaces, a dual's none
    ("(\\f :(R*R)->R* . f)(\\p:R * R. [1,2]*)",
     "(\\f:(R * R) -> R*. f) (\\p:R * R. [1, 2]*)\n"),
    # a comment after a token stays on its line, at its source column (15: `let a = 1` and 6 spaces; 25:
    # 21 characters and 4); one on its own line before the next token; several blank lines become one; the
    # indentation of continuation lines is kept relative to the first token (2 columns less)
    ("  # the query\n\n\n  let  a = 1   # one\n  in\n      let b = ⟨a,a⟩ in   # a pair\n"
     "    # the sum\n    add(b)   \n\n\n# the end\n",
     "# the query\n\nlet a = 1      # one\nin\n    let b = ⟨a, a⟩ in    # a pair\n"
     "  # the sum\n  add(b)\n\n# the end\n"),
    # a comment, kept as written, two spaces after the code when the code grows past its column
    ("let x=1 in x#c\n", "let x = 1 in x  #c\n"),
    # J f · s, Ω as a type, projections, a dual map, an erased type ?
    ("(J sin·pi1 (⟨0.5,2⟩)) ( (λv : Ω R . v)*· [1]* )",
     "(J sin · pi1(⟨0.5, 2⟩)) ((λv:Ω R. v)* · [1]*)\n"),
    ("λx:?.x", "λx:?. x\n"),
]


@pytest.mark.parametrize("source, expected", LAYOUTS, ids=[f"layout-{i}" for i in range(len(LAYOUTS))])
def test_hand_written_layouts(source, expected):
    out = format_source(source)
    assert out == expected
    assert parse(out) == parse(source)
    assert format_source(out) == out                  # a fixed point


@pytest.mark.parametrize("source, ascii_, unicode_", [
    ("((Ω λ⟨x, y⟩:R^2 × R. x) · (λz:R^2 × R. [1, 2, 3]*)) ⟨1, 3, π1(⟨1, 2⟩)⟩",
     "((Omega \\<x, y>:R^2 * R. x) . (\\z:R^2 * R. [1, 2, 3]*)) <1, 3, pi1(<1, 2>)>\n",
     "((Ω λ⟨x, y⟩:R^2 × R. x) · (λz:R^2 × R. [1, 2, 3]*)) ⟨1, 3, π1(⟨1, 2⟩)⟩\n"),
    ("λf:R* -> R => R → R. f", "\\f:R* -> R -> R -> R. f\n", "λf:R* ⇒ R ⇒ R ⇒ R. f\n"),
])
def test_notation(source, ascii_, unicode_):
    """--ascii and --unicode respell the symbols (a binder's '.' stays '.'),
    nothing else; a comment stays (at its column when there is room)."""
    for notation, expected in (("ascii", ascii_), ("unicode", unicode_)):
        code, comment = format_source(source + "  # c", notation).split("#")
        assert code.rstrip() == expected.rstrip() and comment == " c\n"
    assert format_source(source, "ascii") == ascii_
    assert format_source(source, "unicode") == unicode_
    assert format_source(ascii_, "unicode") == unicode_ and format_source(unicode_, "ascii") == ascii_
    assert parse(ascii_) == parse(unicode_) == parse(source)


@pytest.mark.parametrize("path", EXAMPLES, ids=[p.stem for p in EXAMPLES])
def test_examples_are_in_the_layout(path):
    """The examples (with their comments) are fixed points."""
    text = path.read_text()
    assert format_source(text) == text


def test_tokens_and_comments_kept():
    text = "# head\nlet z = 1 in  # after in\n  sq(z)  # last\n"
    assert source_tokens(text) == ["# head", "let", "z", "=", "1", "in", "# after in", "sq", "(", "z", ")", "# last"]
    # symbols by their kind, whatever their spelling
    assert source_tokens("(\\x:R*R. x)") == source_tokens("(λx:R × R· x)") == ["(", "λ", "x", ":", "R", "×", "R",
                                                                            "binder .", "x", ")"]


def test_a_broken_layout_is_refused(monkeypatch):
    """If the layout loses a comment (a bug), fmt says so rather than print
    it."""
    real = pfmt._layout
    monkeypatch.setattr(pfmt, "_layout", lambda text, notation: real(text, notation).replace("# c", ""))
    with pytest.raises(BadInput, match="tokens or comments") as e:
        format_source("let x = 1 in x  # c\n")
    assert e.value.kind == "fmt"


def test_syntax_errors_are_reported_as_by_the_parser():
    with pytest.raises(BadInput) as e:
        format_source("# c\nλx:R.\n  x +")
    assert e.value.kind == "parse" and "line 3, column 6" in e.value.message


# ---------- the command ----------

COMMENTED_LAYOUT = "# the gradient of sin at 0.5\n((Ω λy:R. sin(y))   # the body\n   · (λx:R. [1]*)) 0.5\n"


def test_fmt_keeps_comments(tmp_path, capsys):
    f = tmp_path / "q.pb"
    f.write_text("# the gradient of sin at 0.5\n((Ω  λy:R.sin(y))   # the body\n   ·(λx:R.[1]*))0.5")
    code, out, err = run(["fmt", str(f)], capsys)
    assert (code, err) == (0, "") and out == COMMENTED_LAYOUT


def test_fmt_in_place_rewrites_a_file_with_comments(tmp_path, capsys):
    f = tmp_path / "q.pb"
    f.write_text("# the gradient of sin at 0.5\n((Ω  λy:R.sin(y))   # the body\n   ·(λx:R.[1]*))0.5")
    code, out, err = run(["fmt", "-i", str(f)], capsys)
    assert (code, out, err) == (0, "", "")
    assert f.read_text() == COMMENTED_LAYOUT
    code, out, err = run(["fmt", "-i", "--ascii", str(f)], capsys)
    assert (code, out, err) == (0, "", "")
    # the comment's column (20) is now inside the code (21 characters): two spaces before it
    assert f.read_text() == ("# the gradient of sin at 0.5\n((Omega \\y:R. sin(y))  # the body\n"
                             "   . (\\x:R. [1]*)) 0.5\n")
    code, out, _ = run(["reference", str(f)], capsys)
    assert code == 0 and out.startswith("value: [0.877582561890372")


def test_fmt_options(tmp_path, capsys):
    f = tmp_path / "q.pb"
    f.write_text("λx:R. x\n")
    code, _, err = run(["fmt", "--ascii", "--unicode", str(f)], capsys)
    assert code == 2 and "not both" in err
    bad = tmp_path / "bad.pb"
    bad.write_text("# c\nλx:R. y\n")
    code, out, err = run(["fmt", "-i", str(bad)], capsys)
    assert code == 2 and out == "" and err.startswith("error (unbound): line 2, column 7")
    assert bad.read_text() == "# c\nλx:R. y\n"
