"""Reverse mode with a tape (the paper's §3, "reverse mode with a stack"):
``add`` and ``mul`` make a new node and push the operation on a tape; when
the client has returned, the adjoint of the result is set to ``one`` and
the tape is popped, each entry sending its node's adjoint to its operands.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .dictionary import Dictionary
from .nodes import I, O, Var, check_node, get_v, update

ADD, MUL = "add", "mul"


def _run(f: Callable, d: Dictionary, arg) -> None:
    tape: list = []

    def add(a, b):
        u = Var(d.add(get_v(d, a), get_v(d, b)), d.zero)
        tape.append((ADD, a, b, u))
        return u

    def mul(a, b):
        u = Var(d.mul(get_v(d, a), get_v(d, b)), d.zero)
        tape.append((MUL, a, b, u))
        return u

    y = f(Dictionary(O, I, add, mul, f"tape over {d.name}"), arg)
    check_node(y, "tape")
    update(d, y, d.one)
    while tape:
        op, a, b, u = tape.pop()
        if op is ADD:
            update(d, a, u.d)
            update(d, b, u.d)
        else:
            update(d, a, d.mul(u.d, get_v(d, b)))
            update(d, b, d.mul(u.d, get_v(d, a)))


def diff(f: Callable) -> Callable:
    """The derivative of the client ``f(d, x)``, itself a client."""

    def df(d: Dictionary, x):
        xv = Var(x, d.zero)
        _run(f, d, xv)
        return xv.d

    df.__name__ = f"diff_tape({getattr(f, '__name__', 'f')})"
    return df


def grad(f: Callable) -> Callable:
    """The gradient of the client ``f(d, xs)``: one forward pass, one
    backward pass."""

    def gf(d: Dictionary, xs: Sequence):
        inputs = [Var(x, d.zero) for x in xs]
        _run(f, d, inputs)
        return [u.d for u in inputs]

    gf.__name__ = f"grad_tape({getattr(f, '__name__', 'f')})"
    return gf
