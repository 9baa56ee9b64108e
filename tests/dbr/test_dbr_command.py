"""``revhandlers dbr``: the paper's numbers from the command line, and clear
errors (exit code 2) for bad expressions, points and options."""

from __future__ import annotations

import io
import re
import subprocess
import sys
from fractions import Fraction

import pytest
import sympy

from revhandlers.cli import main

IMPLS = ["handlers", "tape", "forward"]


def run(argv: list[str], capsys) -> tuple[int, str, str]:
    out = io.StringIO()
    code = main(["dbr", *argv], out=out)
    return code, out.getvalue(), capsys.readouterr().err


def values(output: str) -> list[str]:
    """The right-hand sides of the result lines ``… = value``."""
    return [line.rsplit(" = ", 1)[1] for line in output.splitlines()[1:]]


@pytest.mark.parametrize("impl", IMPLS)
def test_cube_plus_one(impl, capsys):
    code, out, err = run(["diff", "(x+1)^3", "--at", "4", "--order", "3", "--impl", impl], capsys)
    assert code == 0 and err == ""
    assert values(out) == ["125", "75", "30", "6"]
    assert out.splitlines()[1:] == ["f(4) = 125", "f'(4) = 75", "f''(4) = 30", "f'''(4) = 6"]
    code, out, _ = run(["diff", "(x + 1) * (x + 1) * (x + 1)", "--at", "2", "--order", "2", "--impl", impl], capsys)
    assert code == 0 and values(out) == ["27", "27", "18"]
    code, out, _ = run(["diff", "(x+1)**3", "--at", "2", "--order", "2", "--impl", impl, "--numbers", "float"],
                       capsys)
    assert code == 0 and values(out) == ["27.0", "27.0", "18.0"]


@pytest.mark.parametrize("impl", IMPLS)
def test_monomials_and_gradient(impl, capsys):
    assert values(run(["diff", "x^8", "--at", "2", "--order", "0", "--impl", impl], capsys)[1]) == ["256"]
    assert values(run(["diff", "x^4", "--at", "2", "--impl", impl], capsys)[1]) == ["16", "32"]
    code, out, _ = run(["grad", "(x + y^2)^3", "--at", "2,1", "--impl", impl], capsys)
    assert code == 0 and values(out) == ["27", "27", "54"]
    code, out, _ = run(["grad", "(x + y^2)^3", "--at", "2,3", "--impl", impl], capsys)
    assert code == 0 and values(out) == ["1331", "363", "2178"]
    code, out, _ = run(["grad", "(x + y^2)^3", "--at", "1,2", "--vars", "y,x", "--impl", impl], capsys)
    assert code == 0 and values(out) == ["27", "54", "27"]


def test_let_and_exact_points_against_sympy(capsys):
    x = sympy.Symbol("x")
    poly = (lambda y: y * y + 3 * y + 2)(x * x + x)
    code, out, _ = run(["diff", "let y = x*x + x in y*y + 3*y + 2", "--at=-7/3", "--order", "5"], capsys)
    assert code == 0
    expected = [sympy.diff(poly, x, n).subs(x, sympy.Rational(-7, 3)) for n in range(6)]
    assert [Fraction(v) for v in values(out)] == [Fraction(int(e.p), int(e.q)) for e in expected]
    code, out, _ = run(["diff", "x^2", "--at", "0.25"], capsys)
    assert code == 0 and values(out) == ["1/16", "1/2"]


def test_long_integers_are_printed(capsys):
    code, out, _ = run(["diff", "x^6000", "--at", "10", "--order", "1"], capsys)
    assert code == 0
    assert values(out) == ["1" + "0" * 6000, "6" + "0" * 6002]


#: expressions the parser refuses, each differentiated at 2
NOT_EXPRESSIONS = ("x-1", "x/2", "1.5*x", "(x+1", "x+", "x^y", "x^2^3", "let y = x in", "x $ 2", "", "x^100000")

#: points (with the options after them) that are not numbers of the kind asked for
NOT_NUMBERS = (["abc"], ["1/0"], ["1e999999999"], ["nan", "--numbers", "float"], ["1e400", "--numbers", "float"],
               ["1.5", "--numbers", "int"])


@pytest.mark.parametrize("argv, kind", [
    *[(["diff", text, "--at", "2"], "parse") for text in NOT_EXPRESSIONS],
    *[(["diff", "x", "--at", *point], "number") for point in NOT_NUMBERS],
    (["diff", "x*y", "--at", "2"], "unbound"),
    (["diff", "(" * 150 + "x" + ")" * 150, "--at", "2"], "too-deep"),
    (["diff", "x+" * 6000 + "x", "--at", "2"], "too-large"),
    (["diff", "x^40*x^40*x^40", "--at", "2", "--order", "8"], "too-large"),
    (["diff", "x", "--at", "1,2"], "shape"),
    (["diff", "x", "--at", "1", "--order", "9"], "syntax"),
    (["diff", "x", "--at", "1", "--order", "-1"], "syntax"),
    (["grad", "x*y", "--at", "1"], "shape"),
    (["grad", "x*y", "--at", "1,2", "--vars", "x,x"], "syntax"),
    (["grad", "x*y", "--at", "1,2", "--vars", "x,"], "syntax"),
    (["grad", "x*y", "--at", "1", "--vars", "x"], "unbound"),
    (["grad", "3", "--at", "1"], "unbound"),
    (["grad", "x", "--at", "1", "--vars", "1"], "syntax"),
])
def test_bad_input_exits_2(argv, kind, capsys):
    code, out, err = run(argv, capsys)
    assert code == 2, (out, err)
    assert err.startswith(f"error ({kind}):"), err
    assert "Traceback" not in err and err.count("\n") == 1


@pytest.mark.parametrize("argv", [["diff", "x"], ["diff", "x", "--at", "1", "--impl", "symbolic"], ["frobnicate"], []])
def test_bad_options_exit_2(argv, capsys):
    code, _, err = run(argv, capsys)
    assert code == 2 and "Traceback" not in err


def test_the_installed_command():
    """Through the command line of the package, in a fresh interpreter
    (the command is registered by cli.build_parser)."""
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "dbr", "diff", "(x+1)^3", "--at", "4",
                           "--order", "3", "--impl", "handlers"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert re.findall(r"= (\d+)$", proc.stdout, flags=re.M) == ["125", "75", "30", "6"]
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "dbr", "diff", "x-1", "--at", "4"],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and proc.stderr.startswith("error (parse):") and proc.stdout == ""
