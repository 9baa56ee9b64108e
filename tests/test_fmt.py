"""`revhandlers fmt` on `.rh` files: comments and `param` declarations are
kept, only whitespace changes, the output parses to the same program, and
`-i` refuses to rewrite a file whose output would lose something.

Every expected output below is written by hand (from the layout rules of
docs/surface-syntax.md, "Formatting"), never produced by the formatter."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import revhandlers as rh
from revhandlers.rh import sexp
from revhandlers.errors import BadInput
from revhandlers.rh.fmt import format_source

ROOT = Path(__file__).resolve().parents[1]
EXAMPLES = sorted((ROOT / "examples").glob("*.rh"))


def cli(*args, cwd=None):
    return subprocess.run([sys.executable, "-m", "revhandlers", *map(str, args)], capture_output=True,
                          text=True, cwd=cwd or ROOT, timeout=120)


def squeeze(text: str) -> str:
    """``text`` without any whitespace."""
    return re.sub(r"\s+", "", text)


def comments(text: str) -> list[str]:
    """The comments of a `.rh` text (no `#` occurs elsewhere in the examples)."""
    return [m.group(0).rstrip() for m in re.finditer(r"#[^\n]*", text)]


# ------------------------------------------------------------ the examples

def test_every_example_is_found():
    assert len(EXAMPLES) >= 8


@pytest.mark.parametrize("path", [p for p in EXAMPLES if p.name != "one_layer.rh"], ids=lambda p: p.name)
def test_fmt_leaves_a_formatted_example_as_it_is(path):
    p = cli("fmt", path)
    assert p.returncode == 0, p.stderr
    assert p.stdout == path.read_text()


def test_fmt_only_spaces_the_primitive_parameters_of_one_layer():
    # examples/one_layer.rh with a space after each comma of matmul[3,2,1] etc., nothing else
    expected = """\
# one layer of the paper's §5.2
op FC : Real(2) ~> Real(3)
loc l :: (2, 3)
heap l = [1, 2, 3, 4, 5, 6]

rev handle(<[0.5, -1.0]>)<x>. FC(x) with {
  return x -> [| smul[3](<[0.1], sub[3](<x, [1, 0, 0]>)>) |];
  FC : (x -> let w <= Get[l]() in [| <matmul[3, 2, 1](<w, x>), <w, x>> |]
      | y, z -> let u <= Put[l](sub[6](<proj_1(z), matmul[3, 1, 2](<y, transpose[2, 1](proj_2(z))>)>)) in
                [| matmul[2, 3, 1](<transpose[3, 2](proj_1(z)), y>) |])
}
"""
    source = (ROOT / "examples" / "one_layer.rh").read_text()
    assert squeeze(source) == squeeze(expected), "examples/one_layer.rh changed: update this test"
    p = cli("fmt", "examples/one_layer.rh")
    assert p.returncode == 0, p.stderr
    assert p.stdout == expected


@pytest.mark.parametrize("path", EXAMPLES, ids=lambda p: p.name)
def test_fmt_in_place_round_trips_every_example(path, tmp_path):
    copy = tmp_path / path.name
    copy.write_text(path.read_text())
    p = cli("fmt", "-i", copy)
    assert p.returncode == 0 and p.stdout == "", p.stderr
    out = copy.read_text()
    source = path.read_text()
    assert squeeze(out) == squeeze(source)
    assert comments(out) == comments(source) and comments(source)
    assert [line for line in out.splitlines() if line.startswith("param ")] == \
        [line for line in source.splitlines() if line.startswith("param ")]
    assert rh.load(copy) == rh.load(path)


def _doc_programs():
    """The complete programs among the ```rh blocks of the docs and README."""
    for doc in [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]:
        for i, block in enumerate(re.findall(r"```rh\n(.*?)```", doc.read_text(), re.S)):
            try:
                rh.parse(block)
            except BadInput:
                continue              # a fragment, or an example of an error
            yield pytest.param(block, id=f"{doc.name}-{i}")


@pytest.mark.parametrize("text", list(_doc_programs()))
def test_fmt_round_trips_the_programs_of_the_docs(text):
    out = format_source(text)
    assert squeeze(out) == squeeze(text)
    assert comments(out) == comments(text)
    assert rh.parse(out) == rh.parse(text)
    assert format_source(out) == out


def test_the_docs_have_programs_with_comments():
    programs = [p.values[0] for p in _doc_programs()]
    assert len(programs) >= 2 and any("#" in p for p in programs)


# ---------------------------------------------- comments in every position

TORTURE = """\
# header


param   n=2 # trailing on param
# between decls
op FC [ # inside opname
  l ] : Real( n ) ~>   Real(3)   # after op
loc l::( n,3 )
heap l = [1,2,  3,4,5,6]  # heap
fuel 1000

# before main
let v <= # after arrow
   Get[l]() in  # after in
rev # between rev and handle
  handle(<[0.5, -1.0]>)<x>. # after dot
    FC[l](x) # after body
with { # after brace
  # before return
  return x -> [| smul[3](<[0.1], # inside term
     sub[3](<x, [1, 0, 0]>)>) |]; # after semicolon
  # before clause
  FC[l] : (x -> let w <= Get[l]() in [| <matmul[3,n,1](<w, x>), <w, x>> |] # end fwd
  # before bar
          | y, z : Real(6) * Real(n) -> let u <= Put[l](sub[6](<proj_1(z), matmul[3,1,2](<y, transpose[2,1](proj_2(z))>)>)) in
      \u230amatmul[2,3,1](\u27e8transpose[3,2](proj_1(z)), y\u27e9)\u230b ) # after clause
  # before close
} # after close
# at end
"""

TORTURE_FORMATTED = (
    "# header\n"
    "\n"
    "param n = 2 # trailing on param\n"
    "# between decls\n"
    "op FC[  # inside opname\n"
    "  l] : Real(n) ~> Real(3)        # after op\n"
    "loc l :: (n, 3)\n"
    "heap l = [1, 2, 3, 4, 5, 6]  # heap\n"
    "fuel 1000\n"
    "\n"
    "# before main\n"
    "let v <= # after arrow\n"
    "    Get[l]() in # after in\n"
    "rev # between rev and handle\n"
    "  handle(<[0.5, -1.0]>)<x>. # after dot\n"
    "  FC[l](x)   # after body\n"
    "with { # after brace\n"
    "  # before return\n"
    "  return x -> [| smul[3](<[0.1], # inside term\n"
    "     sub[3](<x, [1, 0, 0]>)>) |]; # after semicolon\n"
    "  # before clause\n"
    "  FC[l] : (x -> let w <= Get[l]() in [| <matmul[3, n, 1](<w, x>), <w, x>> |]  # end fwd\n"
    "         # before bar\n"
    "         | y, z : Real(6) * Real(n) -> let u <= Put[l](sub[6](<proj_1(z), matmul[3, 1, 2](<y, "
    "transpose[2, 1](proj_2(z))>)>)) in\n"
    + " " * 39 + "\u230amatmul[2, 3, 1](\u27e8transpose[3, 2](proj_1(z)), y\u27e9)\u230b)  # after clause\n"
    "  # before close\n"
    "} # after close\n"
    "# at end\n")


def test_comments_stay_where_they_are():
    assert format_source(TORTURE) == TORTURE_FORMATTED


def test_the_layout_of_comments_is_stable():
    assert format_source(TORTURE_FORMATTED) == TORTURE_FORMATTED


def test_comments_and_parameters_survive_and_the_program_is_the_same():
    assert rh.parse(TORTURE_FORMATTED) == rh.parse(TORTURE)
    assert rh.parse(TORTURE_FORMATTED, {"n": 2}) == rh.parse(TORTURE, {"n": 2})
    assert comments(TORTURE_FORMATTED) == comments(TORTURE)


# ------------------------------------------------------ layout and params

MESSY = """\
param m=3
param n   =  2
op  FC : Real(n)~>Real(m)
loc l::(n,m)
let v<=Get[l]() in rev handle(<[0.5, -1.0]>)<x>.
let h<=FC(x) in
    [|h|]
 with {return x->[|x|];FC:(x->let w<=Get[l]() in
   [|<matmul[m,n,1](<w,x>), <w,x>>|]|y,z->[|matmul[n,m,1](<transpose[m,n](proj_1(z)),y>)|])}
"""

MESSY_FORMATTED = """\
param m = 3
param n = 2
op FC : Real(n) ~> Real(m)
loc l :: (n, m)
let v <= Get[l]() in
rev handle(<[0.5, -1.0]>)<x>.
  let h <= FC(x) in
  [| h |]
with {
  return x -> [| x |];
  FC : (x -> let w <= Get[l]() in
             [| <matmul[m, n, 1](<w, x>), <w, x>> |]
      | y, z -> [| matmul[n, m, 1](<transpose[m, n](proj_1(z)), y>) |])
}
"""


def test_fmt_lays_out_a_program_and_keeps_its_parameter_names():
    assert format_source(MESSY) == MESSY_FORMATTED
    assert format_source(MESSY_FORMATTED) == MESSY_FORMATTED
    # the parameters stay parameters: overriding one changes both programs alike
    assert rh.parse(MESSY_FORMATTED, {"m": 5}) == rh.parse(MESSY, {"m": 5})


UNICODE = "op FC : Real(1) \u25b7 Real(1)\nloc l :: (1)\nlet a \u21d0 Get[l]() in\n\u230aa + a\u230b\n"
SHAPED = """\
param n = 4
loc l :: (2 * n, (n + 1) - 2)
let a <= Get[l]() in
[| rd[swish[2 * n]](<a, a>) + [1e-3, 2, -0.50, 1, 1, 1, 1, 1] |]
"""


def test_fmt_keeps_the_notation_and_numbers_as_written():
    assert format_source(UNICODE) == UNICODE
    assert format_source(SHAPED) == SHAPED


def test_residual_types_left_out_stay_out():
    text = (ROOT / "examples" / "ste.rh").read_text()
    assert "| y, z ->" in text and "| y, z :" not in format_source(text)


# ---------------------------------------------------------- refusing -i

def test_in_place_refuses_to_convert_away_comments(tmp_path):
    f = tmp_path / "step.sexp"
    original = (ROOT / "examples" / "sexp" / "mlp_step.sexp").read_text()
    f.write_text(original)
    p = cli("fmt", "-i", f)
    assert p.returncode == 2 and "Traceback" not in p.stderr
    assert "would delete the comments" in p.stderr and "left as it is" in p.stderr
    assert f.read_text() == original
    p = cli("fmt", f)                          # without -i: the program in the surface syntax
    assert p.returncode == 0 and rh.parse(p.stdout) == sexp.parse_program(original)


def test_in_place_refuses_to_drop_params_into_an_s_expression(tmp_path):
    f = tmp_path / "mlp.rh"
    original = (ROOT / "examples" / "mlp.rh").read_text()
    f.write_text(original)
    p = cli("fmt", "--to", "sexp", "-i", f)
    assert p.returncode == 2 and "comments and param declarations" in p.stderr
    assert f.read_text() == original
    g = tmp_path / "plain.rh"
    g.write_text("loc l :: (1)\nGet[l]()\n")
    p = cli("fmt", "--to", "sexp", "-i", g)
    assert p.returncode == 0, p.stderr
    assert sexp.parse_program(g.read_text()) == rh.parse("loc l :: (1)\nGet[l]()\n")


def test_in_place_keeps_the_file_when_the_layout_would_lose_a_comment(tmp_path, monkeypatch):
    import revhandlers.rh.fmt as fmt
    real = fmt._layout
    monkeypatch.setattr(fmt, "_layout", lambda text: real(text).replace("# heap\n", "\n"))
    f = tmp_path / "c.rh"
    f.write_text(TORTURE)
    from revhandlers.cli import main
    assert main(["fmt", "-i", str(f)]) == 2
    assert f.read_text() == TORTURE
    with pytest.raises(BadInput, match="tokens or comments"):
        format_source(TORTURE)


def test_in_place_keeps_the_file_when_the_layout_would_change_the_program(monkeypatch):
    import revhandlers.rh.fmt as fmt
    real = fmt._layout
    # the same tokens, but a line break inside a comment's reach changes the parse: simulate with a swap
    monkeypatch.setattr(fmt, "source_tokens", lambda text: [])
    monkeypatch.setattr(fmt, "_layout", lambda text: real(text).replace("[0.5, -1.0]", "[0.5, -2.0]"))
    with pytest.raises(BadInput, match="another program"):
        format_source(TORTURE)


def test_a_syntax_error_is_reported_as_before(tmp_path):
    f = tmp_path / "bad.rh"
    f.write_text("# a comment\nlet x <= [| [1] |]\n")
    p = cli("fmt", "-i", f)
    assert p.returncode == 2 and "missing `in`" in p.stderr
    assert f.read_text() == "# a comment\nlet x <= [| [1] |]\n"


# ------------------------------------------- the pullback language's fmt -i

def test_pullback_fmt_in_place_keeps_comments(tmp_path):
    # `revhandlers pullback fmt` keeps the comments (tests/pullback/test_fmt.py); this file is in its layout
    f = tmp_path / "sum_list.pb"
    original = (ROOT / "examples" / "pullback" / "sum_list.pb").read_text()
    assert "#" in original
    f.write_text(original)
    p = cli("pullback", "fmt", "-i", f)
    assert p.returncode == 0 and p.stderr == ""
    assert f.read_text() == original
    g = tmp_path / "plain.pb"
    g.write_text("let   z = 1 in z\n")
    p = cli("pullback", "fmt", "-i", g)
    assert p.returncode == 0, p.stderr
    assert g.read_text() == "let z = 1 in z\n"


def test_pullback_fmt_in_place_refuses_to_delete_the_comments_of_an_s_expression(tmp_path):
    p = cli("pullback", "sexp", "examples/pullback/sum_list.pb")
    assert p.returncode == 0, p.stderr
    f = tmp_path / "sum_list.sexp"
    original = "; the sum of a list, as the driver reads it\n" + p.stdout
    f.write_text(original)
    p = cli("pullback", "fmt", "-i", f)
    assert p.returncode == 2 and "would delete 1 comment" in p.stderr
    assert f.read_text() == original
