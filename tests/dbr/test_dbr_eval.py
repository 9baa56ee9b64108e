"""The extracted driver `dbr-eval` of the define-by-run AD library
(extracted/dbr_eval.ml; docs/sexp-format.md, "dbr-eval"): the paper's
examples with every implementation (handlers, tape, forward) and every kind
of number, let, let* and shadowing, a cross-check of the three modes and the
gradient against sympy on random expressions, and every class of bad input
with its error kind and exit code.

Expected values are the paper's numbers, closed forms computed here
(k·x^(k−1), …), Fraction arithmetic, sympy's derivatives, or finite
differences; never the output of the code under test."""

from __future__ import annotations

import math
import os
import random
import re
import subprocess
from fractions import Fraction
from pathlib import Path

import pytest
import sympy

from sexp_reader import read_sexp

ROOT = Path(__file__).resolve().parents[2]
MODES = ["handlers", "tape", "forward"]
NUMBERS = ["int", "rational", "float"]


def dbr_eval_path() -> Path:
    """The extracted driver; ``DBR_EVAL`` overrides it."""
    override = os.environ.get("DBR_EVAL")
    return Path(override) if override else ROOT / "_build" / "default" / "extracted" / "dbr-eval"


def dbr_eval(*args: str, stdin: str | None = None, timeout: float = 60) -> subprocess.CompletedProcess:
    exe = dbr_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    proc = subprocess.run([str(exe), *args], input=stdin, capture_output=True, text=True, timeout=timeout)
    no_crash(proc.stdout + proc.stderr)
    return proc


def no_crash(text: str) -> None:
    for marker in ("Fatal error", "Raised at", "Called from", "Re-raised at", "Stack_overflow", "Out_of_memory"):
        assert marker not in text, text[:2000]


def serve(lines: list[str], timeout: float = 120) -> list[str]:
    """One ``--serve`` process answers every line; one answer per non-blank line."""
    proc = dbr_eval("--serve", stdin="".join(line + "\n" for line in lines), timeout=timeout)
    assert proc.returncode == 0, proc.stderr
    assert proc.stderr == ""
    answers = proc.stdout.splitlines()
    assert len(answers) == sum(1 for line in lines if line.strip()), proc.stdout[:2000]
    return answers


# ---------------------------------------------------------------- reading answers

def fields(sexp) -> dict[str, list]:
    assert isinstance(sexp, list) and sexp, sexp
    out = {}
    for item in sexp[1:]:
        assert isinstance(item, list) and item and isinstance(item[0], str), sexp
        assert item[0] not in out, sexp
        out[item[0]] = item[1:]
    return out


def result(line: str) -> list[str]:
    """The numbers of a result line: ``(value V)`` or ``(gradient V1 ... Vn)``."""
    sexp = read_sexp(line)
    assert sexp[0] == "result", line[:2000]
    f = fields(sexp)
    assert set(f) in ({"value", "operations", "seconds"}, {"gradient", "operations", "seconds"}), line
    (ops,) = f["operations"]
    assert re.fullmatch(r"\d+", ops), line
    (secs,) = f["seconds"]
    assert re.fullmatch(r"\d+\.\d{6}", secs), line
    if "value" in f:
        assert len(f["value"]) == 1, line
        return f["value"]
    return f["gradient"]


def value(line: str) -> str:
    (v,) = result(line)
    return v


def error(line: str) -> tuple[str, str]:
    """The kind and message of an error line."""
    sexp = read_sexp(line)
    assert sexp[0] == "error", line[:2000]
    f = fields(sexp)
    assert set(f) == {"kind", "rule", "message"}, line
    assert f["rule"] == ["none"], line
    (kind,), (msg,) = f["kind"], f["message"]
    return kind, msg


def exact(text: str, numbers: str):
    """An answer read back as the kind of number it was computed in."""
    if numbers == "int":
        assert re.fullmatch(r"-?\d+", text), text
        return int(text)
    if numbers == "rational":
        assert re.fullmatch(r"-?\d+(/\d+)?", text), text
        q = Fraction(text)
        assert str(q) == text, f"{text} is not in lowest terms"
        return q
    assert re.fullmatch(r"-?\d+(\.\d*)?(e[+-]\d+)?|-?\d*\.\d+(e[+-]\d+)?|nan|-?inf", text) and (
        "." in text or "e" in text or text in ("nan", "inf", "-inf")), text
    return float(text)


def as_fraction(v) -> Fraction:
    """A sympy rational as a Fraction."""
    assert isinstance(v, sympy.Rational), v
    return Fraction(int(v.p), int(v.q))


def diff_line(expr: str, at: str, order: int | None = None, mode: str | None = None,
              numbers: str | None = None, var: str | None = None) -> str:
    parts = [f"(diff (expr {expr}) (at {at})"]
    if order is not None:
        parts.append(f"(order {order})")
    if mode is not None:
        parts.append(f"(mode {mode})")
    if numbers is not None:
        parts.append(f"(numbers {numbers})")
    if var is not None:
        parts.append(f"(vars {var})")
    return " ".join(parts) + ")"


def one(request: str, timeout: float = 60) -> str:
    """One request on standard input: its answer line (exit code 0)."""
    proc = dbr_eval(stdin=request, timeout=timeout)
    assert proc.returncode == 0, proc.stdout[:2000] + proc.stderr
    assert proc.stderr == "" and proc.stdout.count("\n") == 1, proc.stdout[:2000]
    return proc.stdout.strip()


# ---------------------------------------------------------------- the paper's examples

CUBE = ["(^ (+ x 1) 3)", "(* (+ x 1) (+ x 1) (+ x 1))", "(let y (+ x 1) (* y y y))"]


@pytest.mark.parametrize("numbers", NUMBERS)
@pytest.mark.parametrize("mode", MODES)
def test_cube_plus_one(mode, numbers):
    """Figure 2: (x+1)³ at 4 is 125, f′ 75, f″ 30, f‴ 6 (and f⁗ 0); at 2: 27, 27, 18."""
    lines = [diff_line(e, "4", n, mode, numbers) for e in CUBE for n in range(5)]
    lines += [diff_line(e, "2", n, mode, numbers) for e in CUBE for n in range(3)]
    answers = [exact(value(a), numbers) for a in serve(lines)]
    assert answers == [125, 75, 30, 6, 0] * 3 + [27, 27, 18] * 3
    for a in answers:
        assert type(a) is {"int": int, "rational": Fraction, "float": float}[numbers]


@pytest.mark.parametrize("mode", MODES)
def test_cube_plus_one_default_numbers_and_mode(mode):
    """Without (numbers …), integer points compute in int; without (order …), f′."""
    assert value(one("(diff (expr (^ (+ x 1) 3)) (at 4))")) == "75"
    assert value(one(f"(diff (expr (^ (+ x 1) 3)) (at 4) (mode {mode}))")) == "75"
    assert value(one(f"(diff (expr (^ (+ x 1) 3)) (at 4) (mode {mode}) (numbers float))")) == "75.0"


@pytest.mark.parametrize("numbers", NUMBERS)
@pytest.mark.parametrize("mode", MODES)
def test_monomials(mode, numbers):
    """monomial 8 at 2 is 256; d/dx x⁴ at 2 is 32; its n-th derivatives 4!/(4−n)!·2^(4−n)."""
    lines = [diff_line("(^ x 8)", "2", 0, mode, numbers), diff_line("(* x x x x x x x x)", "2", 0, mode, numbers),
             diff_line("(^ x 4)", "2", 1, mode, numbers)]
    lines += [diff_line("(^ x 4)", "2", n, mode, numbers) for n in range(6)]
    got = [exact(value(a), numbers) for a in serve(lines)]
    closed = [math.perm(4, n) * 2 ** (4 - n) if n <= 4 else 0 for n in range(6)]
    assert got == [256, 256, 32] + closed


@pytest.mark.parametrize("mode", MODES)
def test_power_rule_exact(mode):
    """d/dx x^k = k·x^(k−1) and d²/dx² x^k = k(k−1)·x^(k−2), k = 0…64, exactly."""
    points = [-3, -1, 0, 1, 2, 7]
    lines, expected = [], []
    for k in range(65):
        for x in points:
            for order, closed in ((1, k * x ** (k - 1) if k >= 1 else 0),
                                  (2, k * (k - 1) * x ** (k - 2) if k >= 2 else 0)):
                lines.append(diff_line(f"(^ x {k})", str(x), order, mode))
                expected.append(closed)
    assert [exact(value(a), "int") for a in serve(lines)] == expected


@pytest.mark.parametrize("mode", MODES)
def test_power_rule_rational_and_float(mode):
    lines, expected = [], []
    for k in (0, 1, 2, 3, 10, 31):
        for text, x in (("1/3", Fraction(1, 3)), ("-2/5", Fraction(-2, 5)), ("0.25", Fraction(1, 4))):
            lines.append(diff_line(f"(^ x {k})", text, 1, mode))
            expected.append(k * x ** (k - 1) if k >= 1 else Fraction(0))
    assert [exact(value(a), "rational") for a in serve(lines)] == expected
    lines = [diff_line(f"(^ x {k})", "0.3", 1, mode, "float") for k in range(1, 20)]
    for k, a in zip(range(1, 20), serve(lines)):
        assert math.isclose(exact(value(a), "float"), k * 0.3 ** (k - 1), rel_tol=1e-13)


GRAD_EXPR = "(^ (+ x (^ y 2)) 3)"


@pytest.mark.parametrize("numbers", NUMBERS)
def test_gradient_of_x_plus_y_squared_cubed(numbers):
    """∇(x + y²)³ at (2, 1) is (27, 54) and at (2, 3) is (363, 2178): 3(x+y²)²·(1, 2y)."""
    def closed(x, y):
        return [3 * (x + y * y) ** 2, 3 * (x + y * y) ** 2 * 2 * y]

    lines = [f"(grad (expr {GRAD_EXPR}) (vars x y) (at 2 1) (numbers {numbers}))",
             f"(grad (expr {GRAD_EXPR}) (vars x y) (at 2 3) (numbers {numbers}) (mode handlers))",
             f"(grad (expr {GRAD_EXPR}) (vars y x) (at 1 2) (numbers {numbers}))",
             f"(eval (expr {GRAD_EXPR}) (vars x y) (at 2 1) (numbers {numbers}))",
             f"(eval (expr {GRAD_EXPR}) (vars x y) (at 2 3) (numbers {numbers}))"]
    a = serve(lines)
    assert [exact(v, numbers) for v in result(a[0])] == closed(2, 1) == [27, 54]
    assert [exact(v, numbers) for v in result(a[1])] == closed(2, 3) == [363, 2178]
    assert [exact(v, numbers) for v in result(a[2])] == closed(2, 1)[::-1]
    assert exact(value(a[3]), numbers) == 27 and exact(value(a[4]), numbers) == 1331
    if numbers != "int":
        # floats are written as decimals (p/q is rational only)
        (x, y), at = ((Fraction(1, 3), Fraction(-5, 2)), "1/3 -2.5") if numbers == "rational" else \
            ((Fraction(3, 8), Fraction(-5, 2)), "0.375 -2.5")
        got = result(one(f"(grad (expr {GRAD_EXPR}) (vars x y) (at {at}) (numbers {numbers}))"))
        want = closed(x, y)
        if numbers == "rational":
            assert [exact(v, numbers) for v in got] == want
        else:
            for g, w in zip(got, want):
                assert math.isclose(exact(g, numbers), float(w), rel_tol=1e-13)


def test_gradient_default_numbers():
    assert result(one(f"(grad (expr {GRAD_EXPR}) (vars x y) (at 2 3))")) == ["363", "2178"]
    x, y = Fraction(1, 2), 3
    assert result(one(f"(grad (expr {GRAD_EXPR}) (vars x y) (at 1/2 3))")) == [
        str(3 * (x + y * y) ** 2), str(6 * y * (x + y * y) ** 2)]
    # no variable: the empty gradient; the value of a constant
    assert result(one("(grad (expr 3) (vars) (at))")) == []
    assert value(one("(eval (expr 3) (vars) (at))")) == "3"


@pytest.mark.parametrize("mode", MODES)
def test_rational_points_against_fractions_and_sympy(mode):
    """(x+1)³ at 1/3 and 0.25 with Fraction arithmetic; a let against sympy at −7/3."""
    lines, expected = [], []
    for text, x in (("1/3", Fraction(1, 3)), ("0.25", Fraction(1, 4)), ("-7/3", Fraction(-7, 3)),
                    (".5", Fraction(1, 2)), ("5.", Fraction(5)), ("-0.125", Fraction(-1, 8)), ("6/4", Fraction(3, 2))):
        u = x + 1
        for n, closed in enumerate([u ** 3, 3 * u ** 2, 6 * u, Fraction(6), Fraction(0)]):
            lines.append(diff_line("(^ (+ x 1) 3)", text, n, mode))
            expected.append(closed)
    assert [exact(value(a), "rational") for a in serve(lines)] == expected

    xs = sympy.Symbol("x")
    poly = (lambda y: y * y + 3 * y + 2)(xs * xs + xs)
    lines = [diff_line("(let y (+ (* x x) x) (+ (* y y) (* 3 y) 2))", "-7/3", n, mode) for n in range(6)]
    want = [as_fraction(sympy.diff(poly, xs, n).subs(xs, sympy.Rational(-7, 3))) for n in range(6)]
    assert [exact(value(a), "rational") for a in serve(lines)] == want
    # an integer point computed as a rational prints as an integer
    assert value(one(diff_line("(* x x)", "3", 1, mode, "rational"))) == "6"


@pytest.mark.parametrize("mode", MODES)
def test_floats_against_sympy_and_finite_differences(mode):
    xs = sympy.Symbol("x")
    cases = [("(^ (+ x 1) 3)", (xs + 1) ** 3),
             ("(let y (+ (* x x) x) (+ (* y y) (* 3 y) 2))", (xs * xs + xs) ** 2 + 3 * (xs * xs + xs) + 2),
             ("(* (^ x 5) (+ x 7))", xs ** 5 * (xs + 7))]
    points = ["0.3", "-1.7", "2.5e-1", "1e1"]
    lines = [diff_line(e, p, n, mode, "float") for e, _ in cases for p in points for n in range(4)]
    answers = iter(serve(lines))
    for _, f in cases:
        for p in points:
            for n in range(4):
                want = float(sympy.diff(f, xs, n).subs(xs, sympy.Float(p, 30)))
                got = exact(value(next(answers)), "float")
                assert math.isclose(got, want, rel_tol=1e-12, abs_tol=1e-12), (f, p, n, got, want)
    # central differences of the values (order 0) approximate the derivative
    h = 1e-6
    for e, _ in cases:
        for x in (0.3, -1.7):
            lines = [diff_line(e, repr(x + h), 0, mode, "float"), diff_line(e, repr(x - h), 0, mode, "float"),
                     diff_line(e, repr(x), 1, mode, "float")]
            up, down, d = (exact(value(a), "float") for a in serve(lines))
            assert math.isclose((up - down) / (2 * h), d, rel_tol=1e-6, abs_tol=1e-6)


def test_float_printing():
    """Floats print so that they read back as floats: 17 significant digits,
    with a . or an exponent; IEEE overflow gives inf and nan in the answer."""
    assert value(one(diff_line("x", "0.1", 0, None, "float"))) == "0.10000000000000001"
    assert value(one(diff_line("x", "5", 0, None, "float"))) == "5.0"
    assert value(one(diff_line("x", "-0", 0, None, "float"))) == "-0.0"
    assert float(value(one(diff_line("x", "1e20", 0, None, "float")))) == 1e20
    assert value(one(diff_line("x", "1e-400", 0, None, "float"))) == "0.0"
    assert value(one(diff_line("(^ x 1000)", "10", 0, None, "float"))) == "inf"
    assert value(one(diff_line("(* (^ x 1000) 0)", "10", 0, None, "float"))) == "nan"


# ---------------------------------------------------------------- let, let*, n-ary, constants

XS = sympy.Symbol("x")

LETS = [
    ("(let y (+ x 1) (* y y))", (XS + 1) ** 2),
    # a let binding the same name twice: the inner one shadows
    ("(let y x (let y (* y y) (* y y)))", XS ** 4),
    # a let shadowing the variable itself
    ("(let x (+ x 1) (* x x))", (XS + 1) ** 2),
    ("(let x (* x x) (let x (* x x) (+ x 1)))", XS ** 4 + 1),
    # a let in the bound expression of a let
    ("(let a (let b (* x x) (+ b 1)) (* a x))", (XS ** 2 + 1) * XS),
    ("(let a (let a (* x x) (+ a x)) (let b (* a a) (+ a b)))", (XS ** 2 + XS) + (XS ** 2 + XS) ** 2),
    # unused bindings
    ("(let z (^ x 5) 7)", sympy.Integer(7)),
    ("(let z (^ x 5) x)", XS),
    # let*: later bindings use earlier ones
    ("(let* ((a (+ x 1)) (b (* a a)) (c (* b a))) (+ c b))", (XS + 1) ** 3 + (XS + 1) ** 2),
    ("(let* ((y x) (y (* y y)) (y (* y y))) y)", XS ** 4),
    ("(let* ((x (+ x 2)) (y (* x x))) (* x y))", (XS + 2) ** 3),
    ("(let* () (* x x))", XS ** 2),
    ("(let* ((a x)) (let* ((b (* a a)) (a (* b x))) (+ a b)))", XS ** 3 + XS ** 2),
    # n-ary sums and products (left-associated)
    ("(+ x x x)", 3 * XS),
    ("(* x x x)", XS ** 3),
    ("(+ 1 x (* 2 x) (* 3 x x))", 1 + 3 * XS + 3 * XS ** 2),
    ("(* 2 x (+ x 1) (+ x 2) 5)", 10 * XS * (XS + 1) * (XS + 2)),
    # natural constants
    ("0", sympy.Integer(0)),
    ("1", sympy.Integer(1)),
    ("(* 0 x)", sympy.Integer(0)),
    ("(* 1 x)", XS),
    ("(* 2 x)", 2 * XS),
    ("(+ 7 (* 7 x x))", 7 + 7 * XS ** 2),
    ("(* 1000000000000000000000000000000 x x)", 10 ** 30 * XS ** 2),
    ("(+ 1000000000000000000000000000000 x)", 10 ** 30 + XS),
    ("(* 0000012 x)", 12 * XS),
    # exponent 0 (x⁰ = 1, also at 0)
    ("(^ x 0)", sympy.Integer(1)),
    ("(^ (+ x 1) 0)", sympy.Integer(1)),
    ("(^ 0 0)", sympy.Integer(1)),
    ("(* x (^ (^ x 3) 0))", XS),
    ("(^ (^ x 2) 3)", XS ** 6),
    ("(^ 2 10)", sympy.Integer(1024)),
]


@pytest.mark.parametrize("mode", MODES)
def test_let_nary_constants(mode):
    points = [("0", 0), ("-1", -1), ("3", 3), ("1/2", Fraction(1, 2))]
    lines, expected = [], []
    for e, f in LETS:
        for text, x in points:
            for n in range(4):
                lines.append(diff_line(e, text, n, mode))
                expected.append((e, text, n, as_fraction(sympy.diff(f, XS, n).subs(XS, sympy.Rational(x)))))
    for a, (e, text, n, want) in zip(serve(lines), expected):
        assert Fraction(value(a)) == want, (e, text, n, a)


def test_names():
    """Any atom that is not a number, a reserved word or sign-led is a name."""
    assert result(one('(grad (expr (* "a b" é (+ x_1 y-2))) (vars "a b" é x_1 y-2) (at 2 3 5 7))')) == [
        str(3 * 12), str(2 * 12), "6", "6"]
    assert value(one("(diff (expr (* t t t)) (vars t) (at 2))")) == "12"
    # field names are not reserved
    assert value(one("(diff (expr (* at at)) (vars at) (at 2) (order 0))")) == "4"
    assert value(one("(diff (expr (let expr (* vars 3) (* expr vars))) (vars vars) (at 2))")) == "12"


# ---------------------------------------------------------------- random expressions against sympy

def gen(rng: random.Random, depth: int, names: list[str], top: bool = False):
    """A random expression tree: constants, variables in scope, n-ary + and *,
    small powers, lets (shadowing allowed) and let*s."""
    if depth == 0 or (not top and rng.random() < 0.25):
        if names and rng.random() < 0.7:
            return ("var", rng.choice(names))
        return ("const", rng.choice([0, 1, 1, 2, 2, 3, 5, 7, 10, 10 ** 12]))
    c = rng.random()
    if c < 0.3:
        return ("+", [gen(rng, depth - 1, names) for _ in range(rng.randint(2, 4))])
    if c < 0.55:
        return ("*", [gen(rng, depth - 1, names) for _ in range(rng.randint(2, 3))])
    if c < 0.7:
        return ("^", gen(rng, depth - 1, names), rng.randint(0, 3))
    if c < 0.88:
        name = rng.choice(["u", "v", *names])
        return ("let", name, gen(rng, depth - 1, names), gen(rng, depth - 1, names + [name]))
    bindings, scope = [], list(names)
    for _ in range(rng.randint(1, 3)):
        name = rng.choice(["u", "v", "w", *scope])
        bindings.append((name, gen(rng, depth - 1, scope)))
        scope = scope + [name]
    return ("let*", bindings, gen(rng, depth - 1, scope))


def to_sexp(t) -> str:
    tag = t[0]
    if tag == "const":
        return str(t[1])
    if tag == "var":
        return t[1]
    if tag in "+*":
        return f"({tag} " + " ".join(to_sexp(a) for a in t[1]) + ")"
    if tag == "^":
        return f"(^ {to_sexp(t[1])} {t[2]})"
    if tag == "let":
        return f"(let {t[1]} {to_sexp(t[2])} {to_sexp(t[3])})"
    return "(let* (" + " ".join(f"({n} {to_sexp(e)})" for n, e in t[1]) + f") {to_sexp(t[2])})"


def to_sympy(t, env: dict, gens: tuple):
    """The tree's sympy polynomial (a sympy.Poly in ``gens``); ``env`` maps
    the names in scope to their polynomials."""
    tag = t[0]
    if tag == "const":
        return sympy.Poly(t[1], *gens, domain="ZZ")
    if tag == "var":
        return env[t[1]]
    if tag in "+*":
        args = [to_sympy(a, env, gens) for a in t[1]]
        acc = args[0]
        for a in args[1:]:
            acc = acc + a if tag == "+" else acc * a
        return acc
    if tag == "^":
        return to_sympy(t[1], env, gens) ** t[2]
    if tag == "let":
        return to_sympy(t[3], {**env, t[1]: to_sympy(t[2], env, gens)}, gens)
    env = dict(env)
    for n, e in t[1]:
        env[n] = to_sympy(e, env, gens)
    return to_sympy(t[2], env, gens)


def degree(t, env: dict) -> int:
    """A bound on the total degree of the tree's polynomial."""
    tag = t[0]
    if tag == "const":
        return 0
    if tag == "var":
        return env[t[1]]
    if tag == "+":
        return max(degree(a, env) for a in t[1])
    if tag == "*":
        return sum(degree(a, env) for a in t[1])
    if tag == "^":
        return degree(t[1], env) * t[2]
    if tag == "let":
        return degree(t[3], {**env, t[1]: degree(t[2], env)})
    env = dict(env)
    for n, e in t[1]:
        env[n] = degree(e, env)
    return degree(t[2], env)


def random_cases(seed: int, count: int, names: list[str]):
    """``count`` random expressions of the variables ``names`` (of degree at
    most 24), with their sympy polynomials; nine in ten of degree 2 at least."""
    rng = random.Random(seed)
    gens = tuple(sympy.Symbol(n) for n in names)
    env = {n: sympy.Poly(g, *gens, domain="ZZ") for n, g in zip(names, gens)}
    out = []
    while len(out) < count:
        t = gen(rng, 4, names, top=True)
        if degree(t, {n: 1 for n in names}) > 24:
            continue
        f = to_sympy(t, env, gens)
        if f.total_degree() < 2 and rng.random() < 0.9:
            continue
        out.append((to_sexp(t), f))
    return out


def at_point(f: sympy.Poly, point: dict) -> Fraction:
    """The polynomial's value at an exact point, term by term in Fractions."""
    xs = [as_fraction(sympy.Rational(point[g])) for g in f.gens]
    return sum((Fraction(int(c)) * math.prod(x ** k for x, k in zip(xs, m)) for m, c in f.terms()), Fraction(0))


def test_random_expressions_exact_against_sympy():
    """300 random expressions of x: orders 1 and 2 by the three modes, exactly,
    at integer and rational points (p/q and decimal), against sympy."""
    cases = random_cases(20240611, 300, ["x"])
    points = [("-2", sympy.Integer(-2)), ("3", sympy.Integer(3)), ("1/3", sympy.Rational(1, 3)),
              ("-0.5", sympy.Rational(-1, 2))]
    lines, expected = [], []
    for e, f in cases:
        derivs = {0: f, 1: f.diff(XS), 2: f.diff((XS, 2))}
        for text, x in points:
            for n in (0, 1, 2):
                want = at_point(derivs[n], {XS: x})
                for mode in MODES:
                    lines.append(diff_line(e, text, n, mode))
                    expected.append((e, text, n, mode, want))
    answers = serve(lines)
    for a, (e, text, n, mode, want) in zip(answers, expected):
        assert Fraction(value(a)) == want, (e, text, n, mode, a[:300])


def test_random_expressions_floats_against_sympy():
    """Random expressions in floats: within a tolerance relative to the derivative
    of the same expression at |x| (its coefficients are natural numbers, so
    that bounds the size of every term)."""
    cases = random_cases(7, 80, ["x"])
    points = ["0.3", "-1.25", "2.7"]
    lines, expected = [], []
    for e, f in cases:
        for p in points:
            x = sympy.Rational(p)  # exactly; the driver rounds it to a float
            for n in (1, 2):
                d = f.diff((XS, n))
                want, scale = float(at_point(d, {XS: x})), float(at_point(d, {XS: abs(x)}))
                for mode in MODES:
                    lines.append(diff_line(e, p, n, mode, "float"))
                    expected.append((e, p, n, mode, want, scale))
    for a, (e, p, n, mode, want, scale) in zip(serve(lines), expected):
        got = exact(value(a), "float")
        assert math.isclose(got, want, rel_tol=1e-11, abs_tol=1e-11 * abs(scale)), (e, p, n, mode, got, want)


def test_random_gradients_against_sympy():
    """Gradients and values of random expressions of 2 and 3 variables."""
    lines, expected = [], []
    for names, seed in ((["x", "y"], 11), (["x", "y", "z"], 12)):
        syms = [sympy.Symbol(n) for n in names]
        for e, f in random_cases(seed, 80, names):
            grads = [f.diff(s) for s in syms]
            for point in ([2, -1, 3][:len(names)], [sympy.Rational(1, 2), sympy.Rational(-2, 3), 5][:len(names)]):
                at = " ".join(str(p) for p in point)
                sub = dict(zip(syms, point))
                lines.append(f"(grad (expr {e}) (vars {' '.join(names)}) (at {at}))")
                expected.append((lines[-1], [at_point(g, sub) for g in grads]))
                lines.append(f"(eval (expr {e}) (vars {' '.join(names)}) (at {at}))")
                expected.append((lines[-1], [at_point(f, sub)]))
                # the same function with its variables listed in reverse
                lines.append(f"(grad (expr {e}) (vars {' '.join(names[::-1])}) (at {' '.join(str(p) for p in point[::-1])}) (mode handlers))")
                expected.append((lines[-1], [at_point(g, sub) for g in grads][::-1]))
    for a, (line, want) in zip(serve(lines), expected):
        assert [Fraction(v) for v in result(a)] == want, (line, a[:300])


# ---------------------------------------------------------------- errors

C100 = "1" + "0" * 100  # 10^100, 101 characters


def deep(d: int) -> str:
    return "(+ " * d + "x" + " 1)" * d


BAD = [
    # parse
    ("(diff (expr x) (at 1)", "parse"),
    ("(diff (expr x) (at 1)))", "parse"),
    ("", "parse"),
    ("   \n ; a comment\n", "parse"),
    ("(diff (expr x) (at 1)) (diff (expr x) (at 1))", "parse"),
    ('(diff (expr "x) (at 1))', "parse"),
    # request heads and fields
    ("(derive (expr x) (at 1))", "syntax"),
    ("diff", "syntax"),
    ("((diff) (expr x) (at 1))", "syntax"),
    ("(diff (expr x) (at 1) (speed 2))", "syntax"),
    ("(diff (expr x) (at 1) (order))", "syntax"),
    ("(diff (expr x) (at 1) 7)", "syntax"),
    ("(diff (expr x x) (at 1))", "syntax"),
    ("(diff (expr x) (expr x) (at 1))", "syntax"),
    ("(diff (expr x) (at 1) (at 1))", "syntax"),
    ("(diff (expr x) (at 1) (order 1) (order 1))", "syntax"),
    ("(diff (expr x) (at 1) (mode tape) (mode tape))", "syntax"),
    ("(diff (expr x) (at 1) (numbers int) (numbers int))", "syntax"),
    ("(grad (expr x) (vars x) (vars x) (at 1))", "syntax"),
    # missing fields
    ("(diff (at 1))", "syntax"),
    ("(diff (expr x))", "syntax"),
    ("(grad (expr x) (at 1))", "syntax"),
    ("(eval (expr x) (at 1))", "syntax"),
    ("(grad (vars x) (at 1))", "syntax"),
    ("(eval (expr x) (vars x))", "syntax"),
    # wrong number of points, variables
    ("(diff (expr x) (at 1 2))", "syntax"),
    ("(diff (expr x) (at))", "syntax"),
    ("(grad (expr x) (vars x y) (at 1))", "syntax"),
    ("(eval (expr x) (vars x) (at 1 2))", "syntax"),
    ("(diff (expr x) (vars x y) (at 1))", "syntax"),
    ("(diff (expr x) (vars) (at))", "syntax"),
    ("(diff (expr x) (at (1)))", "syntax"),
    # unbound variables
    ("(diff (expr y) (at 1))", "unbound"),
    ("(diff (expr (* x y)) (at 1))", "unbound"),
    ("(grad (expr (* x y)) (vars x) (at 1))", "unbound"),
    ("(grad (expr 3) (vars) (at) (expr 4))", "syntax"),
    ("(diff (expr (+ (let y x y) y)) (at 1))", "unbound"),
    ("(diff (expr (let* ((a b) (b x)) a)) (at 1))", "unbound"),
    ("(diff (expr X) (at 1))", "unbound"),
    # bad names
    ("(grad (expr x) (vars 1) (at 1))", "syntax"),
    ("(grad (expr x) (vars 1x) (at 1))", "syntax"),
    ("(grad (expr x) (vars -x) (at 1))", "syntax"),
    ("(grad (expr x) (vars +x) (at 1))", "syntax"),
    ("(grad (expr x) (vars .x) (at 1))", "syntax"),
    ("(grad (expr x) (vars let) (at 1))", "syntax"),
    ("(grad (expr x) (vars let*) (at 1))", "syntax"),
    ("(grad (expr x) (vars ^) (at 1))", "syntax"),
    ('(grad (expr x) (vars "") (at 1))', "syntax"),
    ("(grad (expr x) (vars (x)) (at 1))", "syntax"),
    ("(grad (expr x) (vars x x) (at 1 1))", "syntax"),
    ("(diff (expr (let 5 x x)) (at 1))", "syntax"),
    ("(diff (expr (let + x x)) (at 1))", "syntax"),
    ("(diff (expr (let* ((* x)) x)) (at 1))", "syntax"),
    ("(diff (expr -1) (at 1))", "syntax"),
    ("(diff (expr 1.5) (at 1))", "syntax"),
    # malformed expressions
    ("(diff (expr (+ x)) (at 1))", "syntax"),
    ("(diff (expr (*)) (at 1))", "syntax"),
    ("(diff (expr (- x 1)) (at 1))", "syntax"),
    ("(diff (expr (^ x)) (at 1))", "syntax"),
    ("(diff (expr (^ x 2 3)) (at 1))", "syntax"),
    ("(diff (expr (^ x y)) (at 1))", "syntax"),
    ("(diff (expr (^ x -1)) (at 1))", "syntax"),
    ("(diff (expr (^ x 1.5)) (at 1))", "syntax"),
    ("(diff (expr (let y x)) (at 1))", "syntax"),
    ("(diff (expr (let* (y x) y)) (at 1))", "syntax"),
    ("(diff (expr (let* ((y)) x)) (at 1))", "syntax"),
    ("(diff (expr ()) (at 1))", "syntax"),
    ("(diff (expr ((x))) (at 1))", "syntax"),
    # orders, modes and number kinds
    ("(diff (expr x) (at 1) (order -1))", "syntax"),
    ("(diff (expr x) (at 1) (order 1.0))", "syntax"),
    ("(diff (expr x) (at 1) (order two))", "syntax"),
    ("(diff (expr x) (at 1) (mode symbolic))", "syntax"),
    ("(diff (expr x) (at 1) (mode (tape)))", "syntax"),
    ("(diff (expr x) (at 1) (numbers complex))", "syntax"),
    ("(grad (expr x) (vars x) (at 1) (mode forward))", "syntax"),
    ("(grad (expr x) (vars x) (at 1) (mode tape))", "syntax"),
    ("(grad (expr x) (vars x) (at 1) (order 1))", "syntax"),
    ("(eval (expr x) (vars x) (at 1) (mode handlers))", "syntax"),
    ("(eval (expr x) (vars x) (at 1) (order 0))", "syntax"),
    # limits
    ("(diff (expr x) (at 1) (order 9))", "too-large"),
    ("(diff (expr x) (at 1) (order 100000000000000000000000))", "too-large"),
    ("(diff (expr (^ x 10001)) (at 1))", "too-large"),
    ("(diff (expr (^ x 99999999999999999999)) (at 1))", "too-large"),
    (f"(diff (expr {deep(2001)}) (at 1))", "too-deep"),
    (f"(diff (expr {deep(100000)}) (at 1))", "too-deep"),
    (f"(diff (expr (let* ((y {deep(2000)})) y)) (at 1))", "too-deep"),
    ("(diff (expr (* " + " ".join(["x"] * 300) + ")) (at 1) (order 8))", "too-large"),
    ("(diff (expr (* " + " ".join(["x"] * 300) + ")) (at 1) (order 8) (mode forward))", "too-large"),
    ("(grad (expr x) (vars " + " ".join(f"v{i}" for i in range(1001)) + ") (at " + " 1" * 1001 + "))",
     "too-large"),
    # bad numbers, for each kind
    ("(diff (expr x) (at 1/0))", "number"),
    ("(diff (expr x) (at abc))", "number"),
    ("(diff (expr x) (at 1e3))", "number"),
    ("(diff (expr x) (at 1/2.5))", "number"),
    ("(diff (expr x) (at 1/-2))", "number"),
    ("(diff (expr x) (at --1))", "number"),
    ("(diff (expr x) (at 1/))", "number"),
    ("(diff (expr x) (at /2))", "number"),
    ("(diff (expr x) (at .))", "number"),
    ('(diff (expr x) (at ""))', "number"),
    ("(diff (expr x) (at 1_000))", "number"),
    ("(diff (expr x) (at 0.5) (numbers int))", "number"),
    ("(diff (expr x) (at 1/2) (numbers int))", "number"),
    ("(diff (expr x) (at 1e3) (numbers int))", "number"),
    ("(diff (expr x) (at 1e3) (numbers rational))", "number"),
    ("(diff (expr x) (at 1e400) (numbers float))", "number"),
    ("(diff (expr x) (at -1e400) (numbers float))", "number"),
    ("(diff (expr x) (at nan) (numbers float))", "number"),
    ("(diff (expr x) (at inf) (numbers float))", "number"),
    ("(diff (expr x) (at 1/3) (numbers float))", "number"),
    ("(diff (expr x) (at 0x10) (numbers float))", "number"),
    ("(diff (expr x) (at 1_0) (numbers float))", "number"),
    ("(diff (expr x) (at 1e) (numbers float))", "number"),
    ("(diff (expr x) (at abc) (numbers float))", "number"),
    (f"(diff (expr x) (at {C100}))", "number"),
    (f"(diff (expr x) (at 0.{'0' * 99}1))", "number"),
]


@pytest.mark.parametrize("request_, kind", BAD, ids=[f"{i}-{b[1]}" for i, b in enumerate(BAD)])
def test_bad_input_exits_2(request_, kind):
    proc = dbr_eval(stdin=request_)
    assert proc.returncode == 2, (proc.stdout[:500], proc.stderr)
    assert proc.stderr == "" and proc.stdout.count("\n") == 1, proc.stdout[:500]
    assert error(proc.stdout)[0] == kind, proc.stdout[:500]
    assert len(proc.stdout) < 2000


def test_bad_input_in_serve_mode_too():
    """The same errors line by line in one --serve process (the error lines
    are identical to those of single requests)."""
    bad = [b for b in BAD if "\n" not in b[0] and b[0].strip()]
    answers = serve([b[0] for b in bad])
    for a, (req, kind) in zip(answers, bad):
        assert error(a)[0] == kind, (req[:200], a[:300])
    for a, (req, _) in list(zip(answers, bad))[:30]:
        assert dbr_eval(stdin=req).stdout.strip() == a


def test_limits_that_are_accepted():
    assert value(one(f"(diff (expr {deep(2000)}) (at 1) (order 0))")) == "2001"
    assert value(one(f"(diff (expr {deep(2000)}) (at 1))")) == "1"
    assert value(one("(diff (expr (^ x 10000)) (at 1))")) == "10000"
    assert value(one("(diff (expr (^ x 10000)) (at 2) (order 0))")) == str(2 ** 10000)
    assert value(one("(diff (expr x) (at 1) (order 8))")) == "0"
    assert value(one("(diff (expr (* x x)) (at 1) (order 8) (mode forward))")) == "0"
    assert value(one("(diff (expr (^ x 8)) (at 2) (order 8) (mode forward))")) == str(math.factorial(8))
    assert value(one("(diff (expr (* " + " ".join(["x"] * 200) + ")) (at 1) (order 2) (mode forward))")) == \
        str(200 * 199)
    big = "9" * 100  # 10^100 − 1: the largest constant of 100 characters
    assert value(one(f"(diff (expr (* {big} x)) (at 1))")) == big
    assert value(one(f"(diff (expr x) (at {big}) (order 0))")) == big
    assert value(one(f"(diff (expr x) (at -{'9' * 99}) (order 0))")) == "-" + "9" * 99
    names = " ".join(f"v{i}" for i in range(1000))
    assert result(one(f"(grad (expr (+ v0 (* v1 v999))) (vars {names}) (at" + " 2" * 1000 + "))")) == \
        ["1", "2"] + ["0"] * 997 + ["2"]


def test_constant_ten_to_the_hundred():
    """Constants go up to 10^100 (max_constant in dbr_eval.ml); 10^100 itself
    has 101 digits."""
    assert value(one(f"(diff (expr {C100}) (at 1) (order 0))")) == C100
    assert value(one(f"(diff (expr (* {C100} x)) (at 3))")) == C100


def test_constant_larger_than_ten_to_the_hundred_is_too_large():
    """A constant past the limit is kind too-large (like exponents and orders), not syntax."""
    for c in (C100[:-1] + "1", "9" * 101, "1" + "0" * 200):
        proc = dbr_eval(stdin=f"(diff (expr (* {c} x)) (at 1))")
        assert proc.returncode == 2 and error(proc.stdout)[0] == "too-large", proc.stdout[:300]


@pytest.mark.parametrize("request_, what", [
    ("(diff (expr (^ x 10000)) (at 1000000000000000000000000000000000000000))", "integer"),
    ("(diff (expr (^ (^ x 10000) 10000)) (at 2) (order 0))", "integer"),
    ("(eval (expr (^ (^ x 10000) 10000)) (vars x) (at 2))", "integer"),
    ("(grad (expr (^ (^ x 10000) 10000)) (vars x) (at 2))", "integer"),
    ("(diff (expr (^ x 10000)) (at 1/1000000000000000000000000000000000000000))", "rational"),
    ("(diff (expr (^ x 10000)) (at 0.0000000000000000000000000000000000000001))", "rational"),
    ("(diff (expr (^ 10000000000000000000000000000000000000000 10000)) (at 1) (order 0))", "integer"),
    ("(diff (expr (^ x 10000)) (at 1000000000000000000000000000000000000000) (mode tape))", "integer"),
    ("(diff (expr (^ x 10000)) (at 1000000000000000000000000000000000000000) (mode forward))", "integer"),
])
def test_runtime_too_large_exits_1(request_, what):
    """An exact number growing past 10^6 bits stops a well-formed request: exit 1."""
    proc = dbr_eval(stdin=request_)
    assert proc.returncode == 1, proc.stdout[:500]
    kind, msg = error(proc.stdout)
    assert kind == "too-large" and what in msg, proc.stdout[:500]
    # in floats the same values overflow to inf, as IEEE arithmetic does (a
    # derivative may be nan: an overflowed partial times a zero tangent)
    if "/" not in request_ and "0.0" not in request_ and ("eval" in request_ or "(order 0)" in request_):
        line = request_[:-1] + " (numbers float))"
        assert value(one(line)) == "inf"


def test_wide_expression_that_overflows_the_stack_is_a_runtime_failure():
    proc = dbr_eval(stdin="(diff (expr (+ " + " ".join(["x"] * 1_000_000) + ")) (at 1) (order 0))")
    assert proc.returncode in (0, 1), proc.stdout[:500]
    if proc.returncode == 0:
        assert value(proc.stdout) == "1000000"
    else:
        assert error(proc.stdout)[0] == "too-deep"


@pytest.mark.parametrize("request_", [
    "(diff (expr (^ x 8)) (at 2) (order 8))",
    "(diff (expr (^ x 8)) (at 2) (order 8) (mode tape))",
    "(diff (expr (+ " + " ".join(["x"] * 100_000) + ")) (at 1))",
], ids=["x^8-order-8", "x^8-order-8-tape", "sum-of-100000-terms"])
def test_requests_answer_or_stop_at_the_time_limit(request_):
    """Every request answers, or stops at the time limit (--timeout) with the
    runtime error ``timeout``: nested reverse modes cost more than the work
    bound's estimate (the request trees of the inner handlers are re-bound
    at every clause), so the time limit is what bounds them."""
    exe = dbr_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    try:
        proc = subprocess.run([str(exe), "--timeout", "3"], input=request_, capture_output=True, text=True,
                              timeout=20)
    except subprocess.TimeoutExpired:
        pytest.fail(f"no answer within 20 s to {request_[:80]}... with --timeout 3")
    if proc.returncode == 1:
        assert error(proc.stdout)[0] == "timeout", proc.stdout[:500]
    else:
        assert proc.returncode == 0, proc.stdout[:500]
        assert value(proc.stdout) in (str(math.factorial(8)), "100000")


def test_a_sum_of_100000_terms_is_linear():
    """Sums associate to the left; the client's code passes continuations
    (run_prog_k), so it does not re-traverse the request tree of each prefix."""
    request_ = "(diff (expr (+ " + " ".join(["x"] * 100_000) + ")) (at 1))"
    proc = dbr_eval(stdin=request_)
    assert proc.returncode == 0 and value(proc.stdout) == "100000", proc.stdout[:300]


# ---------------------------------------------------------------- the command line

def test_serve_continues_after_bad_lines():
    lines = ["(diff (expr (^ (+ x 1) 3)) (at 4) (order 3))",
             "(diff (expr x) (at 1)",
             "",
             "   \t ",
             "(frobnicate)",
             "(diff (expr (^ x 10000)) (at 1000000000000000000000000000000000000000))",
             "(diff (expr y) (at 1))",
             "(grad (expr (^ (+ x (^ y 2)) 3)) (vars x y) (at 2 3))",
             "(diff (expr x) (at 1)) (diff (expr x) (at 1))",
             "(eval (expr (+ x 1)) (vars x) (at 1/2))"]
    a = serve(lines)
    assert len(a) == 8
    assert value(a[0]) == "6"
    assert error(a[1])[0] == "parse"
    assert error(a[2])[0] == "syntax"
    assert error(a[3])[0] == "too-large"
    assert error(a[4])[0] == "unbound"
    assert result(a[5]) == ["363", "2178"]
    assert error(a[6])[0] == "parse"
    assert value(a[7]) == "3/2"


def test_serve_without_input_and_without_final_newline():
    proc = dbr_eval("--serve", stdin="")
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    proc = dbr_eval("--serve", stdin="\n\n  \n")
    assert proc.returncode == 0 and proc.stdout == ""
    proc = dbr_eval("--serve", stdin="(diff (expr (* x x)) (at 3))")
    assert proc.returncode == 0 and value(proc.stdout) == "6"


def test_serve_answers_line_by_line():
    """Each answer is flushed before the next line is read."""
    exe = dbr_eval_path()
    assert exe.exists(), f"{exe} is missing: run `make` first"
    p = subprocess.Popen([str(exe), "--serve"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    try:
        for x in range(5):
            p.stdin.write(f"(diff (expr (^ x 3)) (at {x}))\n")
            p.stdin.flush()
            assert value(p.stdout.readline()) == str(3 * x * x)
            p.stdin.write("(diff (expr x\n")
            p.stdin.flush()
            assert error(p.stdout.readline())[0] == "parse"
    finally:
        p.stdin.close()
        assert p.wait(timeout=30) == 0


def test_file_argument(tmp_path):
    f = tmp_path / "request.sexp"
    f.write_text("; (x+1)^3 at 4, third derivative\n(diff\n  (expr (^ (+ x 1) 3))\n  (at 4)\n  (order 3))\n")
    proc = dbr_eval(str(f))
    assert proc.returncode == 0 and value(proc.stdout) == "6"
    f.write_text("(diff (expr x) (at 1/0))")
    proc = dbr_eval(str(f))
    assert proc.returncode == 2 and error(proc.stdout)[0] == "number"
    proc = dbr_eval(str(tmp_path / "missing.sexp"))
    assert proc.returncode == 2 and error(proc.stdout)[0] == "io" and proc.stderr == ""
    proc = dbr_eval(str(tmp_path))
    assert proc.returncode == 2 and error(proc.stdout)[0] == "io"


@pytest.mark.parametrize("args", [["--help"], ["-h"]])
def test_help(args):
    proc = dbr_eval(*args, stdin="")
    assert proc.returncode == 0 and proc.stdout.startswith("usage: dbr-eval") and proc.stderr == ""


@pytest.mark.parametrize("args", [["--frobnicate"], ["-x"], ["-"], ["a.sexp", "b.sexp"], ["--serve", "--verbose"]])
def test_bad_command_lines_exit_2(args):
    proc = dbr_eval(*args, stdin="(diff (expr x) (at 1))")
    assert proc.returncode == 2, proc.stdout
    assert proc.stdout == "" and proc.stderr.startswith("usage: dbr-eval")


def test_stdin_request():
    proc = dbr_eval(stdin="(diff (expr (^ (+ x 1) 3)) (at 4) (order 2))\n")
    assert proc.returncode == 0 and proc.stderr == ""
    assert value(proc.stdout) == "30"
