"""``revhandlers pullback``: check, fmt, sexp and reference on the paper's
examples, in the surface syntax and as S-expressions; bad input exits with
code 2 and one line on standard error, never a traceback."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

from revhandlers.cli import main
from revhandlers.pullback.sexp import from_sexp
from revhandlers.pullback.surface import parse

from .test_syntax import READ_ERRORS

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES = ROOT / "examples" / "pullback"
NAMES = sorted(p.stem for p in EXAMPLES.glob("*.pb"))


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(["pullback", *argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


def test_examples_exist():
    assert {"paper_f", "example_3_3", "example_3_9", "sum_list", "sum_gradient", "higher_order"} <= set(NAMES)


@pytest.mark.parametrize("name", ["paper_f", "example_3_3", "example_3_9"])
def test_the_papers_query(name, capsys):
    f = str(EXAMPLES / f"{name}.pb")
    code, out, err = run(["check", f], capsys)
    assert (code, err) == (0, "") and out == f"{f}: well typed, (R^2)*\n"
    code, out, err = run(["reference", f], capsys)
    assert (code, err) == (0, "") and out == "value: [660, 528]*\ntype: (R^2)*\n"
    code, out, _ = run(["reference", f, "--ascii"], capsys)
    assert code == 0 and out == "value: [660, 528]*\ntype: (R^2)*\n"


def test_reference_jacobian(capsys):
    code, out, _ = run(["reference", "--jacobian", str(EXAMPLES / "paper_f.pb")], capsys)
    lines = out.splitlines()
    assert code == 0 and lines[2] == "J^T c (forward mode): [660, 528]*"
    assert lines[3].startswith("J^T c (finite differences): [660.0000")
    code, out, err = run(["reference", "--jacobian", str(EXAMPLES / "example_3_9.pb")], capsys)
    assert code == 2 and out.startswith("value: [660, 528]*") and "not a pullback query" in err


def test_higher_order_results(capsys):
    code, out, _ = run(["reference", str(EXAMPLES / "sum_list.pb")], capsys)
    assert code == 0
    assert out == ("value: <a linear functional of type ((R ⇒ R ⇒ R) ⇒ R ⇒ R)*>\n"
                   "type: ((R ⇒ R ⇒ R) ⇒ R ⇒ R)*\n")
    code, out, _ = run(["reference", str(EXAMPLES / "sum_gradient.pb")], capsys)
    assert code == 0 and out.startswith("value: [1, -4]*\n")
    code, out, _ = run(["check", "--ascii", str(EXAMPLES / "higher_order.pb")], capsys)
    assert code == 0 and out.endswith("well typed, ((R -> R) * R)*\n")


@pytest.mark.parametrize("name", NAMES)
def test_fmt_and_sexp_roundtrip(name, tmp_path, capsys):
    """fmt (Unicode and ASCII) and sexp print the same term; a .sexp file is
    read back, and so is a request."""
    f = EXAMPLES / f"{name}.pb"
    term = parse(f.read_text())
    for flags in ([], ["--ascii"]):
        code, out, err = run(["fmt", str(f), *flags], capsys)
        assert (code, err) == (0, "") and parse(out) == term
    code, out, _ = run(["sexp", str(f)], capsys)
    assert code == 0 and from_sexp(out) == term and out.count("\n") == 1
    s = tmp_path / f"{name}.sexp"
    s.write_text(out)
    code, out2, _ = run(["fmt", str(s)], capsys)
    assert code == 0 and parse(out2) == term
    code, req, _ = run(["sexp", "--request", "run", str(f)], capsys)
    assert code == 0 and req == f"(run {out.strip()})\n"
    s.write_text(req)
    code, out3, err3 = run(["check", str(s)], capsys)
    if name == "sum_gradient":      # well typed, not well formed (wf.v, pb_param_ok)
        assert code == 2 and "[param_app_free]" in err3
    else:
        assert code == 0 and "well typed" in out3


def test_fmt_in_place(tmp_path, capsys):
    f = tmp_path / "q.pb"
    source = r"((Omega  \y:R.sin(y)) . (\x:R. [1]*)) 0.5  # a comment"
    f.write_text(source)
    # the layout keeps the comment (two spaces before it, as written) and the ASCII notation
    code, out, err = run(["fmt", "-i", str(f)], capsys)
    assert (code, out, err) == (0, "", "")
    assert f.read_text() == "((Omega \\y:R. sin(y)) . (\\x:R. [1]*)) 0.5  # a comment\n"
    code, out, _ = run(["fmt", "-i", "--unicode", str(f)], capsys)
    assert code == 0 and out == ""
    # the comment stays at its column (43): Omega is Ω, four characters fewer before it
    assert f.read_text() == "((Ω λy:R. sin(y)) · (λx:R. [1]*)) 0.5" + " " * 6 + "# a comment\n"
    code, out, _ = run(["reference", str(f)], capsys)
    assert code == 0 and out.startswith("value: [0.877582561890372")


def test_overflow_is_shown(tmp_path, capsys):
    """A value that overflows is printed (inf), not an error."""
    f = tmp_path / "big.pb"
    f.write_text("((Ω λy:R. exp(exp(exp(y)))) · (λx:R. [1]*)) 10")
    code, out, err = run(["reference", str(f)], capsys)
    assert (code, err) == (0, "") and out == "value: [inf]*\ntype: R*\n"


# The readers' errors (test_syntax.py's table) and the checker's, as the
# command line prints them: one line, the kind first, exit code 2.
CLI_ERRORS = [(text, ".pb" if reader == "surface" else ".sexp", f"error ({kind}): ", message)
              for reader, text, kind, message in READ_ERRORS] + [
    ("(λv:R. sin(v))* · [1]*", ".pb", "error (type) [typed_dual]: ", "the body of the dual map is not linear"),
    ("sin(⟨1, 2⟩)", ".pb", "error (type) [typed_fun]: ", "the argument of sin has type R^2, expected R"),
    ("(run 1. 2.)", ".sexp", "error (syntax): ", "a request is (run TERM), (check TERM) or (trace TERM)"),
]


@pytest.mark.parametrize("text, suffix, prefix, message", CLI_ERRORS)
def test_bad_input(text, suffix, prefix, message, tmp_path, capsys):
    f = tmp_path / f"bad{suffix}"
    f.write_text(text)
    for command in ("check", "fmt", "sexp", "reference"):
        code, out, err = run([command, str(f)], capsys)
        if command in ("fmt", "sexp") and prefix.startswith("error (type)"):
            assert code == 0                       # printing does not type-check
            continue
        assert code == 2 and out == "" and err.startswith(prefix) and message in err and err.count("\n") == 1, \
            (command, err)


def test_files_and_options(tmp_path, capsys):
    code, _, err = run(["check", str(tmp_path / "missing.pb")], capsys)
    assert code == 2 and err.startswith("error (io): cannot read")
    code, _, err = run(["check", str(tmp_path)], capsys)
    assert code == 2 and err.startswith("error (io)")
    bad = tmp_path / "latin1.pb"
    bad.write_bytes(b"\xe9")
    code, _, err = run(["check", str(bad)], capsys)
    assert code == 2 and "not UTF-8" in err
    code, _, _ = run(["frobnicate"], capsys)
    assert code == 2
    code, _, _ = run([], capsys)
    assert code == 2


def test_console_script_no_traceback(tmp_path):
    """The installed entry point: a one-line error, exit code 2."""
    f = tmp_path / "bad.pb"
    f.write_text("λx:R. (")
    p = subprocess.run([sys.executable, "-m", "revhandlers.cli", "pullback", "check", str(f)],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 2 and p.stdout == "" and "Traceback" not in p.stderr
    assert p.stderr.startswith("error (parse): line 1, column 8")
    p = subprocess.run([sys.executable, "-m", "revhandlers.cli", "pullback", "--help"],
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0 and "reference" in p.stdout


# f(x, y) = ((x+1)(2x+y²))², ∇f = 2(x+1)(2x+y²)·(2x+y² + 2(x+1), 2y(x+1)); the
# gradients by hand (sympy agrees): at ⟨0, 0⟩ f's factors are 1 and 0, so both
# partials vanish; at ⟨-3, 2⟩ the factors are -2, -2: 8·(-2-4) = -48 and
# 8·(2·2·(-2)) = -64; at ⟨2, -1⟩ they are 3, 5: 30·(5+6) = 330, 30·(-2·3) = -180.
@pytest.mark.parametrize("point, gradient", [
    ("⟨0, 0⟩", "[0, 0]*"), ("<0, 0>", "[0, 0]*"), ("⟨0., 0.⟩", "[0, 0]*"), ("⟨0.0, 0⟩", "[0, 0]*"),
    ("⟨-3, 2⟩", "[-48, -64]*"), ("⟨2, -1⟩", "[330, -180]*"), ("⟨2., -1.⟩", "[330, -180]*"),
])
def test_running_example_at_points_with_integer_zeros(point, gradient, tmp_path, capsys):
    """A numeral in a point is a real, ``0`` included (the zero term is
    ``zero``): the running example prints its gradient, not a stuck dual map."""
    f = tmp_path / "f.pb"
    f.write_text("((Ω λ⟨x, y⟩:R^2. sq(mul(add(x, 1), add(mul(2, x), sq(y))))) · (λz:R. [1]*)) " + point + "\n")
    code, out, err = run(["run", str(f)], capsys)
    assert (code, err) == (0, "") and out.startswith(f"value: {gradient}\ntype: (R^2)*\n")
    code, out, err = run(["reference", str(f)], capsys)
    assert (code, err) == (0, "") and out == f"value: {gradient}\ntype: (R^2)*\n"
