"""Deeply nested inputs in every position, built by hand, through the
Python S-expression reader, the surface parser and the Python checker, called
as a library user calls them (no ``nesting.room()`` around the call): a
program within rh-eval's nesting limit (``max_depth``, 2000 levels) is read
and checked, one level deeper gets the ``too-deep`` error, and neither ever
raises ``RecursionError`` (``check_program`` called directly used to, for a
program nested 500 to 2000 levels).  The expected outcome of each program
within the limit is rh-eval's (``--check``); the levels are counted by hand
(the main command is level 1, each command, term, handler, type and ``rd``
of a function symbol one more).

Also: types far larger than the program (the domain of ``rd^k[p]`` has a
Fibonacci number of nodes; a chain of lets doubling a tuple), compared and
shown without walking the tree; huge inputs (a 100 MB token, a file of NUL
bytes) rejected cleanly; the command line's exit code 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from revhandlers.rh import nesting, sexp, surface
from revhandlers.rh.syntax import TBase, TProd
from revhandlers.errors import BadInput, RevHandlersError, TypeCheckError
from revhandlers.paths import rh_eval_path
from revhandlers.rh.typecheck import check_program, same_ty, show_ty

ROOT = Path(__file__).resolve().parents[1]
ENV = {**os.environ, "PYTHONPATH": os.pathsep.join([str(ROOT / "pytools"), os.environ.get("PYTHONPATH", "")])}
LIMIT = 2000          # rh-eval's max_depth (tests/test_nesting.py reads it from frontend.v)


def P(main: str, ops: str = "") -> str:
    return f"(program (ops{ops}) (locs) (heap) (main {main}))"


def nest(open_: str, inner: str, close: str, n: int) -> str:
    return open_ * n + inner + close * n


# Each shape: n -> program text, and the largest n within the limit, by hand.
# (ret M): Ret at 1, M at 2.
SEXP_SHAPES = {
    # tuples at 2 .. n+1, the constant at n+2
    "tuple": (lambda n: P("(ret " + nest("(tuple ", "(const 1.0)", ")", n) + ")"), LIMIT - 2),
    # adds at 2 .. n+1, their operands at n+2
    "add": (lambda n: P("(ret " + nest("(add (const 1.0) ", "(const 1.0)", ")", n) + ")"), LIMIT - 2),
    # projections of 1-tuples: proj at 2, 4, .., tuples at 3, 5, .., the constant at 2n+2
    "proj": (lambda n: P("(ret " + nest("(proj 0 (tuple ", "(const 1.0)", "))", n) + ")"), (LIMIT - 2) // 2),
    # term lets in the body: lets at 2 .. n+1, x at n+2
    "term-let": (lambda n: P("(ret " + nest("(let x (const 1.0) ", "x", ")", n) + ")"), LIMIT - 2),
    # term lets in the bound term
    "term-let-bound": (lambda n: P("(ret " + nest("(let x ", "(const 1.0)", " x)", n) + ")"), LIMIT - 2),
    # rd terms in the body: rd at 2 .. n+1, x at n+2
    "rd-term": (lambda n: P("(ret " + nest("(rd (const 1.0) x ", "x", " (const 1.0))", n) + ")"), LIMIT - 2),
    # applications: app at 2 .. n+1, (swish 1) and the constant at n+2
    "app": (lambda n: P("(ret " + nest("(app (swish 1) ", "(const 1.0)", ")", n) + ")"), LIMIT - 2),
    # command lets in the bound command: lets at 1 .. n, the innermost ret at n+1, its constant at n+2
    "cmd-let-bound": (lambda n: P(nest("(let x ", "(ret (const 1.0))", " (ret x))", n)), LIMIT - 2),
    # command lets in the body
    "cmd-let-body": (lambda n: P(nest("(let x (ret (const 1.0)) ", "(ret x)", ")", n)), LIMIT - 2),
    # rev handles in the body: revhandle at 1 .. n, the innermost one's handler at n+1, the
    # command of its return clause at n+2, x at n+3
    "revhandle-body": (lambda n: P(nest("(revhandle (tuple) () ", "(ret (tuple))",
                                        " (handler (return x (ret x))))", n)), LIMIT - 3),
    # rev handles in the return clause: revhandle at 1, 3, .., handler at 2, 4, .., return command at 3, ..
    "handler-return": (lambda n: P(nest("(revhandle (tuple) () (ret (tuple)) (handler (return x ",
                                        "(ret (tuple))", ")))", n)), (LIMIT - 2) // 2),
    # a product type of an operation: declared at level 1, prods at 1 .. n, (real 1) at n+1
    "op-type": (lambda n: P("(ret (const 1.0))", " (F " + nest("(prod ", "(real 1)", ")", n) + " (real 1))"),
                LIMIT - 1),
    # a clause's residual type: revhandle 1, handler 2, residual 3 .. n+2, (real 1) at n+3
    # (the forward clause does not return a pair: a type error, for rh-eval too)
    "residual-type": (lambda n: P(
        "(revhandle (tuple) () (ret (tuple)) (handler (return x (ret x)) (clause F "
        + nest("(prod ", "(real 1)", ")", n) + " (x (op F x)) (y z (ret y)))))", " (F (real 0) (real 0))"),
        LIMIT - 3),
}
#: the outcome of each shape within the limit, when it is not "ok"
SEXP_EXPECTED = {"residual-type": "type"}


def rh_eval_check(text: str) -> str:
    """rh-eval's outcome class for a program: ok, or the kind of its error."""
    out = subprocess.run([str(rh_eval_path()), "--check"], input=text.encode(), capture_output=True,
                         timeout=120).stdout.decode()
    return "ok" if out.startswith("(ok") else out.split("(kind ", 1)[1].split(")", 1)[0]


def python_check(text: str, reader=sexp.parse_program) -> str:
    """The Python reader and checker, called directly (as scripts/input-fuzz.py
    and a library user do): ok or the kind of the error.  Any other exception
    (RecursionError) propagates and fails the test."""
    try:
        check_program(reader(text))
        return "ok"
    except RevHandlersError as e:
        return e.kind


@pytest.fixture(autouse=True)
def default_recursion_limit():
    """Each test at Python's default recursion limit, whatever ran before."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(1000)
    yield
    sys.setrecursionlimit(old)


@pytest.mark.parametrize("shape", sorted(SEXP_SHAPES))
def test_sexp_nesting_at_the_limit(shape):
    build, deepest = SEXP_SHAPES[shape]
    inside, outside = build(deepest), build(deepest + 1)
    expected = SEXP_EXPECTED.get(shape, "ok")
    assert rh_eval_check(inside) == python_check(inside) == expected, shape
    assert rh_eval_check(outside) == python_check(outside) == "too-deep", shape


@pytest.mark.parametrize("shape", sorted(SEXP_SHAPES))
@pytest.mark.parametrize("n", [400, 1000])
def test_sexp_nesting_well_within_the_limit(shape, n):
    build, deepest = SEXP_SHAPES[shape]
    assert python_check(build(min(n, deepest))) == SEXP_EXPECTED.get(shape, "ok")


@pytest.mark.parametrize("shape", sorted(SEXP_SHAPES))
@pytest.mark.parametrize("n", [4 * LIMIT - 10, 4 * LIMIT + 1, 30_000])
def test_sexp_nesting_far_past_the_limit(shape, n):
    """The reader reads up to 8000 levels before it measures the program,
    and refuses more at once: too-deep either way."""
    assert python_check(SEXP_SHAPES[shape][0](n)) == "too-deep"


@pytest.mark.parametrize("text", ["(" * 100_000, "(" * 100_000 + ")" * 100_000, "(a " * 9000 + ")" * 9000,
                                  "(program " * 9000 + ")" * 9000], ids=["open", "balanced", "atoms", "programs"])
def test_parentheses_alone(text):
    assert python_check(text) == "too-deep"


def test_parentheses_in_a_string_are_not_nesting():
    """A variable named by 10000 parentheses: unbound (for rh-eval too)."""
    text = '(program (main (ret "' + "(" * 10_000 + '")))'
    assert python_check(text) == rh_eval_check(text) == "unbound"


# ------------------------------------------------------------- surface syntax

RH_SHAPES = {
    # [| M |]: Ret at 1, M at 2
    "tuple": (lambda n: "[| " + nest("<", "[1.0]", ">", n) + " |]", LIMIT - 2),
    "add": (lambda n: "[| " + nest("[1.0] + (", "[1.0]", ")", n) + " |]", LIMIT - 2),
    "app": (lambda n: "[| " + nest("swish[1](", "[1.0]", ")", n) + " |]", LIMIT - 2),
    "term-let": (lambda n: "[| " + "let x <- [1.0] in " * n + "x |]", LIMIT - 2),
    "rd-term": (lambda n: "[| " + nest("[1.0].rd(x. ", "x", ")([1.0])", n) + " |]", LIMIT - 2),
    "cmd-let-bound": (lambda n: nest("let x <= ", "[| [1.0] |]", " in [| x |]", n), LIMIT - 2),
    "cmd-let-body": (lambda n: "let x <= [| [1.0] |] in " * n + "[| x |]", LIMIT - 2),
    "revhandle-body": (lambda n: nest("rev handle(<>)<>. ", "[| <> |]", " with { return x -> [| x |] }", n),
                       LIMIT - 3),
    "op-type": (lambda n: "op F : " + nest("Prod(", "Real(1)", ")", n) + " ~> Real(1)\n[| [1.0] |]", LIMIT - 1),
    # Prod(...) of a product of two: the parentheses of A * B are not nodes
    # Prod at 1, 3, .., the infix product at 2, 4, .., the innermost Real(1) at 2n+1
    "mixed-type": (lambda n: "op F : " + nest("Prod((Real(1) * ", "Real(1)", "))", n) + " ~> Real(1)\n[| [] |]",
                   (LIMIT - 1) // 2),
}


@pytest.mark.parametrize("shape", sorted(RH_SHAPES))
def test_surface_nesting_at_the_limit(shape):
    build, deepest = RH_SHAPES[shape]
    inside, outside = build(deepest), build(deepest + 1)
    assert python_check(inside, surface.parse) == "ok", shape
    assert rh_eval_check(sexp.program_sexp(surface.parse(inside))) == "ok", shape
    assert python_check(outside, surface.parse) == "too-deep", shape


@pytest.mark.parametrize("shape", sorted(RH_SHAPES))
def test_surface_nesting_far_past_the_limit(shape):
    assert python_check(RH_SHAPES[shape][0](4 * LIMIT + 5), surface.parse) == "too-deep"


def test_redundant_parentheses_and_brackets_in_the_surface_syntax():
    """Parentheses are not nodes: 20000 around a constant are depth 2; an
    unclosed run of them is a parse error, not a crash."""
    assert python_check("[| " + nest("(", "[1.5]", ")", 20_000) + " |]", surface.parse) == "ok"
    assert python_check("[| " + "(" * 20_000 + "[1.5] |]", surface.parse) == "parse"
    assert python_check("(" * 20_000, surface.parse) == "parse"


# ------------------------------------------------- types larger than programs

def test_rd_power_domain_is_built_and_compared_with_sharing():
    """rd^1990[swish[1]] (a domain with a Fibonacci number of nodes, ~10^415)
    is refused by the reader (too-large: more than 8 levels); rd^8[swish[1]]
    applied to a Real(1): its domain is not Real(1), a type error found at
    once."""
    text = P("(ret (app " + nest("(rd ", "(swish 1)", ")", 1990) + " (const 1.0)))")
    with pytest.raises(BadInput) as err:
        sexp.parse_program(text)
    assert err.value.kind == "too-large"
    text = P("(ret (app " + nest("(rd ", "(swish 1)", ")", 8) + " (const 1.0)))")
    with pytest.raises(TypeCheckError) as err:
        check_program(sexp.parse_program(text))
    assert err.value.rule == "typed_tm_app"
    assert "expects (" in err.value.message
    # rd^k applied to <x, x'> for k = 2, by hand: fdom 2 = (Real(1) * Real(1)) * Real(1)
    ok = P("(ret (app (rd (rd (swish 1))) (tuple (tuple (const 1.0) (const 2.0)) (const 3.0))))")
    assert check_program(sexp.parse_program(ok)) == TProd((TBase(1), TBase(1)))


def doubling(k: int, leaf: str = "(const 1.0)") -> str:
    """x0 = leaf, x_{i+1} = <x_i, x_i>, ..., x_k: a type with 2^k leaves."""
    body = f"x{k}"
    for i in range(k, 0, -1):
        body = f"(let x{i} (tuple x{i - 1} x{i - 1}) {body})"
    return f"(let x0 {leaf} {body})"


def test_doubling_types_are_typed_compared_and_shown_without_walking_them():
    k = 300
    t = check_program(sexp.parse_program(P("(ret " + doubling(k) + ")")))
    u = check_program(sexp.parse_program(P("(ret " + doubling(k) + ")")))
    v = check_program(sexp.parse_program(P("(ret " + doubling(k, "(const 1.0 2.0)") + ")")))
    assert t is not u and same_ty(t, u) and not same_ty(t, v)
    # x_k = x_{k-1} * x_{k-1}, each component in parentheses: k - 1 of them before the first Real(1)
    assert show_ty(t) == "(" * 199 + "…"
    assert surface.pretty_ty(check_program(sexp.parse_program(P("(ret " + doubling(2) + ")")))) == \
        "(Real(1) * Real(1)) * (Real(1) * Real(1))"
    # an rd whose cotangent and body have these two types: a type error, found at once
    bad = P("(ret (let a " + doubling(k) + " (let b " + doubling(k, "(const 1.0 2.0)") + " (rd a y b (const 1.0)))))")
    with pytest.raises(TypeCheckError) as err:
        check_program(sexp.parse_program(bad))
    assert err.value.rule == "typed_tm_rd" and len(err.value.message) < 1500
    good = P("(ret (let a " + doubling(k) + " (let b " + doubling(k) + " (rd a y b (const 1.0)))))")
    assert check_program(sexp.parse_program(good)) == TBase(1)


def test_same_ty_by_hand():
    r1, r2 = TBase(1), TBase(2)
    assert same_ty(TProd((r1, TProd(()))), TProd((TBase(1), TProd(()))))
    assert not same_ty(TProd((r1, r2)), TProd((r1, r1)))
    assert not same_ty(TProd((r1,)), TProd((r1, r1)))
    assert not same_ty(TProd(()), TBase(0)) and not same_ty(TBase(0), TProd(()))
    deep_a, deep_b = r1, r1
    for _ in range(50_000):                      # far deeper than the recursion limit
        deep_a, deep_b = TProd((deep_a,)), TProd((deep_b,))
    assert same_ty(deep_a, deep_b) and not same_ty(deep_a, TProd((deep_b,)))
    assert show_ty(deep_a).startswith("Prod(Prod(") and show_ty(deep_a).endswith("…")


def test_pretty_ty_by_hand():
    t = TProd((TBase(1), TProd((TBase(2), TBase(3))), TProd((TBase(4),)), TProd(())))
    assert surface.pretty_ty(t) == "Real(1) * (Real(2) * Real(3)) * Prod(Real(4)) * Prod()"
    assert surface.pretty_ty(t, True) == "(" + surface.pretty_ty(t) + ")"
    assert surface.pretty_ty(TProd((TProd((TBase(1), TBase(0))),))) == "Prod(Real(1) * Real(0))"


# ------------------------------------------------------------ huge inputs

@pytest.mark.parametrize("reader", ["sexp", "surface"])
@pytest.mark.parametrize("what", ["token", "nul", "digits"])
def test_a_100_mb_token_is_a_clean_error(reader, what):
    """One atom of 100 MB (letters, NUL bytes as /dev/zero gives, digits):
    a clean error; read in linear time (quadratic time would not end)."""
    text = {"token": "a", "nul": "\x00", "digits": "9"}[what] * 100_000_000
    kind = python_check(text, sexp.parse_program if reader == "sexp" else surface.parse)
    assert kind == ("syntax" if reader == "sexp" else "parse")
    if reader == "sexp":            # the same atom inside a program
        prog = "(program (main (ret (const " + text[:20_000_000] + "))))"
        assert python_check(prog) == ("number" if what == "digits" else "syntax")


def test_100_mb_of_open_parentheses_is_too_deep_for_the_s_expression_readers():
    """Refused at the 8001st level, without tokenizing the rest first."""
    text = "(" * 100_000_000
    assert python_check(text) == "too-deep"
    with pytest.raises(BadInput) as err:
        sexp.loads(text)
    assert err.value.kind == "too-deep"
    with pytest.raises(BadInput) as err:                 # the general reader, after a comment
        sexp.loads(";\n" + "(" * 10_000_000)
    assert err.value.kind == "too-deep"


# ------------------------------------------------------------ command line

@pytest.mark.parametrize("name, text, code, kind", [
    ("tuple-inside.sexp", SEXP_SHAPES["tuple"][0](LIMIT - 2), 0, None),
    ("tuple-outside.sexp", SEXP_SHAPES["tuple"][0](LIMIT - 1), 2, "too-deep"),
    ("residual-outside.sexp", SEXP_SHAPES["residual-type"][0](LIMIT - 2), 2, "too-deep"),
    ("let-inside.rh", RH_SHAPES["cmd-let-body"][0](LIMIT - 2), 0, None),
    ("let-outside.rh", RH_SHAPES["cmd-let-body"][0](LIMIT - 1), 2, "too-deep"),
    ("zeros.sexp", "\x00" * 1_000_000, 2, "parse"),        # the command line refuses NUL characters
    ("zeros.rh", "\x00" * 1_000_000, 2, "parse"),
], ids=lambda x: x if isinstance(x, str) and len(x) < 40 else "")
def test_the_command_line(tmp_path, name, text, code, kind):
    path = tmp_path / name
    path.write_text(text)
    p = subprocess.run([sys.executable, "-m", "revhandlers.cli", "check", "--engine", "reference", str(path)],
                       capture_output=True, text=True, env=ENV, timeout=300)
    assert p.returncode == code, p.stderr[-500:]
    assert "Traceback" not in p.stderr
    if kind is not None:
        assert f"error ({kind})" in p.stderr


def test_nesting_room_is_restored():
    """The checkers raise the recursion limit only while they run."""
    check_program(sexp.parse_program(SEXP_SHAPES["tuple"][0](LIMIT - 2)))
    assert sys.getrecursionlimit() == 1000
    with pytest.raises(BadInput):
        check_program(sexp.parse_program(SEXP_SHAPES["tuple"][0](LIMIT - 1)))
    assert sys.getrecursionlimit() == 1000 and nesting.MAX_NESTING == LIMIT


# ------------------------------------------------- rd applied to rd^8[f]

def _rd_power(k: int, surface_syntax: bool) -> str:
    """``rd^k[swish[1]]`` applied to ``[1.0]``, written out by hand."""
    if surface_syntax:
        return "[| " + "rd[" * k + "swish[1]" + "]" * k + "([1.0]) |]"
    return "(program (main (ret (app " + "(rd " * k + "(swish 1)" + ")" * k + " (const 1.0)))))"


@pytest.mark.parametrize("k", [8, 9, 40])
def test_rd_power_limit_verified_and_python(k, tmp_path):
    """rd^k[f] for k > 8 is refused (too-large, exit 2) by rh-eval and by both
    Python readers at once; rd^8 is read and is a type error (its domain is
    not Real(1)), in rh-eval too."""
    text = _rd_power(k, False)
    proc = subprocess.run([str(rh_eval_path()), "--check"], input=text, capture_output=True, text=True, timeout=60)
    if k <= 8:
        assert proc.returncode == 2 and "(kind type)" in proc.stdout
        sexp.parse_program(text)
        surface.parse(_rd_power(k, True))
    else:
        assert proc.returncode == 2 and "(kind too-large)" in proc.stdout and "more than 8 times" in proc.stdout
        for read in (lambda: sexp.parse_program(text), lambda: surface.parse(_rd_power(k, True))):
            with pytest.raises(BadInput) as e:
                read()
            assert e.value.kind == "too-large"
