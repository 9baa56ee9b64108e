"""Deep nesting: the Python tools measure a program's depth as rh-eval does,
accept and run what rh-eval accepts, and reject what it rejects with the
same ``too-deep`` error (exit code 2), never with a Python crash."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

import revhandlers as rh
from revhandlers.rh import nesting, sexp, surface
from revhandlers.rh.syntax import (App, CCons, CLet, Const, FSym, Handler, OpDecl, OpUser, Prim, Program, Proj, Rd, Ret,
                             RevHandle, TBase, TProd, Tuple, Var)
from revhandlers.errors import BadInput
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.families import let_chain

ROOT = Path(__file__).resolve().parents[1]
one = Const((1.0,))


def swish(m, k=0):
    return App(FSym(k, Prim("swish", (1,))), m)


def nested_apps(n):
    m = one
    for _ in range(n):
        m = swish(m)
    return Program(Ret(m))


def nested_rd_symbol(n):
    """Applications nested ``n`` deep around an rd² function symbol."""
    m = Proj(0, swish(Tuple((Tuple((one, one)), one)), 2))
    for _ in range(n):
        m = swish(m)
    return Program(Ret(m))


def nested_tuples(n):
    m = one
    for _ in range(n):
        m = Tuple((m,))
    return Program(Ret(m))


def nested_rds(n):
    m = one
    for i in range(n):
        m = Rd(one, f"x{i}", m, one)
    return Program(Ret(m))


def nested_handlers(n):
    a = TBase(1)
    clause = CCons(OpUser("F"), TBase(0), "x", Ret(Tuple((Var("x"), Const(())))), "y", "z", Ret(Var("y")))
    c = Ret(Var("x0"))
    for _ in range(n):
        c = RevHandle(Tuple((one,)), ("x0",), c, Handler("r", Ret(Var("r")), (clause,)))
        c = CLet("p", c, Ret(one))
    return Program(c, (OpDecl("F", a, a),))


def deep_type(n):
    t = TBase(1)
    for _ in range(n):
        t = TProd((t,))
    return Program(Ret(one), (OpDecl("F", t, TBase(1)),))


SHAPES = [let_chain, nested_apps, nested_rd_symbol, nested_tuples, nested_rds, nested_handlers, deep_type]


def boundary(shape):
    """The largest n whose program is within the limit, and that program and
    the next one (which is not)."""
    lo, hi = 0, 4 * nesting.MAX_NESTING
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if nesting.depth(shape(mid)) <= nesting.MAX_NESTING else (lo, mid)
    return shape(lo), shape(lo + 1)


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


def test_the_limit_is_rh_evals():
    """rh-eval's reader (theories/rh/frontend.v) defines the limit as a
    product of naturals (ten is 10)."""
    text = (ROOT / "theories" / "rh" / "frontend.v").read_text()
    ten = int(re.search(r"Definition ten : nat := (\d+)\.", text).group(1))
    product = re.search(r"Definition max_depth : nat := ([\w *]+)\.", text).group(1)
    value = 1
    for factor in product.split("*"):
        value *= ten if factor.strip() == "ten" else int(factor)
    assert value == nesting.MAX_NESTING


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_depth_is_measured_as_rh_eval_does(verified, shape):
    inside, outside = boundary(shape)
    assert nesting.depth(inside) <= nesting.MAX_NESTING < nesting.depth(outside)
    with nesting.room():
        verified.check(inside)                       # rh-eval reads it
        with pytest.raises(BadInput) as err:
            verified.check(outside)
    assert err.value.kind == "too-deep"


@pytest.mark.parametrize("shape", SHAPES, ids=lambda f: f.__name__)
def test_python_tools_handle_the_deepest_programs(verified, shape):
    inside, outside = boundary(shape)
    t_ref, t_verified = rh.check(inside, engine="reference"), rh.check(inside)
    with nesting.room():                             # dataclass equality recurses
        assert t_ref == t_verified
    text = sexp.program_sexp(inside) if shape is not let_chain else surface.pretty(inside)
    parsed = rh.parse(text)
    with nesting.room():
        assert parsed == inside
    for engine in ("reference", "verified"):
        with pytest.raises(BadInput) as err:
            rh.check(outside, engine=engine)
        assert err.value.kind == "too-deep"


def test_the_deepest_let_chain_runs_on_both_engines():
    inside, _ = boundary(let_chain)
    a, b = rh.run(inside), rh.run(inside, engine="reference")
    assert a.value.tolist() == pytest.approx(b.value.tolist(), rel=1e-9, abs=1e-12)


@pytest.mark.parametrize("text", [
    "let v0 <= [| [1.0] |] in\n" + "".join(f"let v{i + 1} <= [| swish[1](v{i}) |] in\n" for i in range(2500)) + "[| v2500 |]\n",
    "[| " + "swish[1](" * 3000 + "[1.0]" + ")" * 3000 + " |]\n",
    "(program (main (ret " + "(tuple " * 50_000 + "(const 1.0)" + ")" * 50_000 + ")))\n",
], ids=["let-chain", "applications", "sexp-tuples"])
@pytest.mark.parametrize("command", ["check", "run", "fmt"])
def test_too_deep_files_get_a_clear_error_on_the_command_line(tmp_path, text, command):
    path = tmp_path / ("deep.sexp" if text.startswith("(program") else "deep.rh")
    path.write_text(text)
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", command, str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 2, proc.stderr[-500:]
    assert proc.stderr.strip() == f"error (too-deep): nesting deeper than {nesting.MAX_NESTING} levels"


def test_redundant_parentheses_do_not_nest(tmp_path):
    """Parentheses are not syntax nodes: 50000 of them around a constant
    make a program of depth 2, which runs."""
    path = tmp_path / "parens.rh"
    path.write_text("[| " + "(" * 50_000 + "[1.5]" + ")" * 50_000 + " |]\n")
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "run", str(path)],
                          capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stderr[-500:]
    assert "value: [1.5]" in proc.stdout
