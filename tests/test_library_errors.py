"""The library's ``check`` and ``run`` (``import revhandlers as rh``)
locate the verified engine's errors as the command line does: at the line
and column of the construct, in the surface syntax, still naming the Coq
rule.  Positions below are counted by hand in the source text."""

from __future__ import annotations

import pytest

import revhandlers as rh

ILL_TYPED = """op Q : Real(1) ~> Real(1)

let v <= [| [2.0] |] in
let y <= [| swish[2](v) |] in
[| y |]
"""

UNHANDLED = """op Q : Real(1) ~> Real(1)

let v <= [| [2.0] |] in
Q(v)
"""


@pytest.mark.parametrize("call", [rh.check, rh.run], ids=["check", "run"])
def test_a_type_error_of_the_verified_checker_is_located(call):
    with pytest.raises(rh.TypeCheckError) as info:
        call(rh.parse(ILL_TYPED))
    e = info.value
    assert e.pos == (4, 13)                    # `swish` on line 4: "let y <= [| " is 12 characters
    assert e.rule == "typed_tm_app"            # the Coq rule, as rh-eval names it
    assert e.checker == "verified+python"      # found by the verified checker, rendered by the Python one
    assert e.message == ("line 4, column 13: swish[2] expects Real(2), its argument v has type Real(1), "
                         "in swish[2](v)")


def test_an_unhandled_operation_is_located_at_the_operation():
    with pytest.raises(rh.RuntimeFailure) as info:
        rh.run(rh.parse(UNHANDLED))
    e = info.value
    assert e.kind == "unhandled-operation"
    assert e.pos == (4, 1)
    assert e.message == "line 4, column 1: operation Q performed on [2.0] is handled by no handler"


def test_a_program_without_positions_keeps_the_engines_error():
    # an S-expression program has no positions: the error is rh-eval's own
    prog = rh.parse("(program (main (ret (app (swish 3) (const 1.0 2.0)))))")
    with pytest.raises(rh.TypeCheckError) as info:
        rh.check(prog)
    assert info.value.pos is None and info.value.rule == "typed_tm_app"
