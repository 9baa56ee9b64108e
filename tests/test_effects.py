"""The effects of a program (theories/rh/effects.v): the user operations it
may perform that no enclosing handler covers.

The verified ``unhandled`` (``rh-eval``'s ``(effects P)``) against its
Python mirror (``typecheck.unhandled_operations``) on programs written by
hand, with the answer read off the program by hand, and on the campaign's
generated programs; and the theorem's consequence at run time: a program
whose set is empty does not end in ``unhandled-operation``, one whose set
is not empty is refused by ``check``."""

from __future__ import annotations

import pytest
from handler_edits import drop_clauses

import revhandlers as rh
from dataclasses import replace

from revhandlers.rh import gen
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.errors import RevHandlersError
from revhandlers.rh.typecheck import unhandled_operations

# (program, the unhandled operations, read off by hand)
CASES = [
    ("op P : Real(1) ~> Real(1)\nP([1.0])\n", ["P"]),
    ("op P : Real(1) ~> Real(1)\n[| [1.0] |]\n", []),
    # a clause handles P: nothing escapes
    ("op P : Real(1) ~> Real(1)\nrev handle(<[1.0]>)<x>. P(x) with {\n  return r -> [| r |];\n"
     "  P : (x -> [| <x, x> |] | y, z -> [| y |])\n}\n", []),
    # no clause for P: the default clause performs it again outwards
    ("op P : Real(1) ~> Real(1)\nop Q : Real(1) ~> Real(1)\nrev handle(<[1.0]>)<x>. P(x) with {\n"
     "  return r -> [| r |];\n  Q : (x -> [| <x, x> |] | y, z -> [| y |])\n}\n", ["P"]),
    # the clause of P performs Q, which escapes; the clause of R is never used
    ("op P : Real(1) ~> Real(1)\nop Q : Real(1) ~> Real(1)\nop R : Real(1) ~> Real(1)\n"
     "rev handle(<[1.0]>)<x>. P(x) with {\n  return r -> [| r |];\n"
     "  P : (x -> let u <= Q(x) in [| <u, u> |] | y, z -> [| y |]);\n"
     "  R : (x -> let u <= R(x) in [| <u, u> |] | y, z -> [| y |])\n}\n", ["Q"]),
    # an outer handler covers what the inner one passes on
    ("op P : Real(1) ~> Real(1)\nrev handle(<[1.0]>)<a>.\n  rev handle(<a>)<x>. P(x) with { return r -> [| r |] }\n"
     "with {\n  return r -> [| r |];\n  P : (x -> [| <x, x> |] | y, z -> [| y |])\n}\n", []),
]


@pytest.fixture(scope="module")
def ev():
    e = VerifiedEvaluator()
    yield e
    e.close()


@pytest.mark.parametrize("text,expected", CASES)
def test_by_hand(ev, text, expected):
    prog = rh.parse(text)
    assert sorted(set(ev.effects(prog))) == expected
    assert sorted({o.name for o, _ in unhandled_operations(prog)}) == expected


def test_generated_programs_agree_with_the_python_mirror(ev):
    """300 programs of the campaign's generator, each also with some of its
    clauses dropped: the same unhandled operations."""
    with_effects = 0
    for i in range(300):
        base = gen.seeded_program(41, i)
        for prog in (base, replace(base, main=drop_clauses(base.main, i))):
            try:
                ev.check(prog)
            except RevHandlersError:
                continue
            verified = sorted(set(ev.effects(prog)))
            assert verified == sorted({o.name for o, _ in unhandled_operations(prog)}), i
            with_effects += bool(verified)
    assert with_effects > 20     # dropping clauses does leave operations unhandled


def test_the_set_decides_whether_a_run_ends_unhandled(ev):
    """The theorem (run_not_stuck_op) on the generator's programs with
    clauses dropped: an empty set never ends in ``unhandled-operation``;
    and such ends are met (the test can see them)."""
    ended_unhandled = 0
    for i in range(300):
        base = gen.seeded_program(43, i)
        prog = replace(base, main=drop_clauses(base.main, i + 1))
        try:
            ev.check(prog)
        except RevHandlersError:
            continue
        try:
            ev.run(prog)
        except RevHandlersError as e:
            if e.kind == "unhandled-operation":
                assert ev.effects(prog), i
                ended_unhandled += 1
    assert ended_unhandled > 0


def test_an_ill_typed_program_has_no_effects_answer(ev):
    prog = rh.parse("op P : Real(1) ~> Real(1)\nP(<[1.0]>)\n")
    with pytest.raises(RevHandlersError) as e:
        ev.effects(prog)
    assert e.value.kind == "type"
