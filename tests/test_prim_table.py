"""The table of primitives (revhandlers.rh.prims.TABLE) against the Coq
instance: the constructors of ``prim`` in theories/rh/instance.v with their
parameters' names, the name each has in the S-expressions (frontend.v's
``prim_sexp``), and the types the verified checker (rh-eval) gives to an
application of each primitive at every small choice of parameters.  Then a
throwaway primitive, added as one table entry, reaches the checker, the
surface syntax, the S-expressions, the reference, the generator and the
strategies (docs/adding-a-primitive.md)."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import find

import revhandlers as rh
from revhandlers.errors import BadInput, RevHandlersError
from revhandlers.rh import autodiff as ad, gen, prims, sexp, strategies, surface
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.reference import run_reference
from revhandlers.rh.syntax import App, Const, FSym, Prim, Program, Ret, TBase, Tuple
from revhandlers.rh.typecheck import check_program

ROOT = Path(__file__).resolve().parent.parent
INSTANCE = ROOT / "theories" / "rh" / "instance.v"
FRONTEND = ROOT / "theories" / "rh" / "frontend.v"


def coq_constructors() -> dict[str, tuple[str, ...]]:
    """``Inductive prim``'s constructors and the names of their parameters."""
    text = INSTANCE.read_text()
    body = text[text.index("Inductive prim : Type :="):]
    body = body[:body.index(".\n")]
    body = re.sub(r"\(\*.*?\*\)", "", body, flags=re.S)
    found = {}
    for m in re.finditer(r"\|\s*(P\w+)\s*\(([^:)]*):\s*nat\s*\)", body):
        found[m.group(1)] = tuple(m.group(2).split())
    return found


def coq_names() -> dict[str, str]:
    """The S-expression name of each constructor (frontend.v ``prim_sexp``)."""
    text = FRONTEND.read_text()
    body = text[text.index("Definition prim_sexp"):]
    body = body[:body.index("end.")]
    return {m.group(1): m.group(2) for m in re.finditer(r"\|\s*(P\w+)[^=]*=>\s*l\s+\"(\w+)\"", body)}


def test_the_table_has_the_coq_constructors_with_their_parameters():
    coq = coq_constructors()
    assert len(coq) == 19
    assert {e.coq: e.params for e in prims.TABLE.values()} == coq
    assert list(e.coq for e in prims.TABLE.values()) == list(coq)       # in the order of the constructors


def test_the_table_names_the_primitives_as_the_s_expressions_do():
    assert {e.coq: e.name for e in prims.TABLE.values()} == coq_names()


def _argument(sizes: list[int]):
    leaves = [Const(tuple(0.5 for _ in range(n))) for n in sizes]
    return leaves[0] if len(leaves) == 1 else Tuple(tuple(leaves))


def _applied(p: Prim, sizes: list[int]) -> Program:
    return Program(Ret(App(FSym(0, p), _argument(sizes))), (), (), (), None)


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


@pytest.mark.parametrize("name", list(prims.TABLE))
def test_the_table_types_every_small_instance_as_the_verified_checker(verified, name):
    """For every parameter tuple in 0..3 (0..2 for four parameters): where
    the table says the parameters make sense, rh-eval types the application
    to an argument of the table's domain as ``Real(cod)``; where it says they
    do not, rh-eval refuses it."""
    e = prims.TABLE[name]
    top = 3 if len(e.params) < 4 else 2
    checked = 0
    for a in itertools.product(range(top + 1), repeat=len(e.params)):
        p = Prim(name, a)
        prog = _applied(p, prims.prim_dom(p))
        if prims.prim_ok(p):
            assert verified.check(prog) == TBase(prims.prim_cod(p)), p
            checked += 1
        else:
            with pytest.raises(RevHandlersError) as refused:
                verified.check(prog)
            assert refused.value.kind == "shape", (p, refused.value)
    assert checked > 0


# ------------------------------------------------ a primitive added in one entry

TWICE = prims.Primitive("twice", "PTwice", ("n",), lambda n: [n], lambda n: n,
                        lambda a, xs: ad.add(xs[0], xs[0]), pointwise=True, rank=20,
                        generate=lambda n: [(n,)], examples=((3,),))


def test_a_primitive_added_as_one_entry_reaches_every_python_component():
    text = "[| twice[2]([1.0, -2.5]) |]\n"
    with pytest.raises(BadInput):
        check_program(rh.parse(text))            # unknown before
    with prims.registered(TWICE):
        prog = rh.parse(text)                                        # the surface syntax
        assert check_program(prog) == TBase(2)                       # the checker
        assert "twice[2]" in surface.pretty(prog)                    # the printer
        assert sexp.parse_program(sexp.program_sexp(prog)) == prog   # the S-expressions
        np.testing.assert_array_equal(run_reference(prog).value, [2.0, -5.0])   # the forward map
        # rd[twice]: the point and the cotangent to the cotangent of the point, 2·g
        back = Program(Ret(App(FSym(1, Prim("twice", (2,))), Tuple((Const((1.0, 3.0)), Const((0.5, -1.0)))))),
                       (), (), (), None)
        assert check_program(back) == TBase(2)
        np.testing.assert_array_equal(run_reference(back).value, [1.0, -2.0])
        with pytest.raises(BadInput, match=r"twice\[n\]"):
            check_program(rh.parse("[| twice[2,3]([1.0, 2.0]) |]\n"))   # its parameters, as the table spells them
        assert FSym(0, Prim("twice", (2,))) in [f for f, _ in gen.fsyms_to(TBase(2))]   # the generator
        assert find(strategies.prim_instances(), lambda p: p.name == "twice") == Prim("twice", (3,))
        assert "twice" in prims.POINTWISE
    assert "twice" not in prims.TABLE and "twice" not in prims.PRIMS
    assert FSym(0, Prim("twice", (2,))) not in [f for f, _ in gen.fsyms_to(TBase(2))]
