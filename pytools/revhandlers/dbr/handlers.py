"""Reverse mode with effect handlers (the paper's §3, the verified one).

The client's dictionary performs a request for each ``add`` and ``mul``,
with two effects created anew for each run (generative effects, as OCaml's
local ``effect Add`` and ``effect Mul``).  A one-shot deep handler
(:mod:`revhandlers.dbr.effects`) answers each request with a new node,
resumes the rest of the client, and once that has returned, sends the new
node's adjoint to the operands.  The return clause sets the adjoint of the
result to ``one``.  No tape is kept: the backward phase is the unwinding of
the suspended clauses, latest first.

In ``diff(diff(f))`` the inner handler's clauses compute with the outer
dictionary, whose requests carry the outer run's effects; the inner handler
has no clause for them, so they reach the outer handler.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Sequence

from .dictionary import Dictionary
from .effects import Effect, handle, perform
from .nodes import I, O, Var, check_node, get_v, update


@dataclass
class Stats:
    """Counts of a run of the handler-based reverse mode (for cost checks):
    requests answered (forward operations), backward updates done after a
    continuation returned, and the most clauses suspended at once."""

    forward: int = 0
    backward: int = 0
    suspended: int = 0
    most_suspended: int = 0


def _run(f: Callable, d: Dictionary, arg, stats: Stats | None) -> None:
    Add, Mul = Effect("Add"), Effect("Mul")

    def add(a, b):
        return perform(Add, (a, b))

    def mul(a, b):
        return perform(Mul, (a, b))

    ad = Dictionary(O, I, add, mul, f"handlers over {d.name}")

    def forward():
        if stats is not None:
            stats.forward += 1
            stats.suspended += 1
            stats.most_suspended = max(stats.most_suspended, stats.suspended)

    def backward():
        if stats is not None:
            stats.backward += 1
            stats.suspended -= 1

    def on_add(payload, k):
        a, b = payload
        forward()
        u = Var(d.add(get_v(d, a), get_v(d, b)), d.zero)
        k(u)
        update(d, a, u.d)
        update(d, b, u.d)
        backward()

    def on_mul(payload, k):
        a, b = payload
        forward()
        u = Var(d.mul(get_v(d, a), get_v(d, b)), d.zero)
        k(u)
        update(d, a, d.mul(u.d, get_v(d, b)))
        update(d, b, d.mul(u.d, get_v(d, a)))
        backward()

    def ret(y):
        check_node(y, "handlers")
        update(d, y, d.one)

    handle(lambda: f(ad, arg), ret, {Add: on_add, Mul: on_mul})


def diff(f: Callable, *, stats: Stats | None = None) -> Callable:
    """The derivative of the client ``f(d, x)``, itself a client.  With
    ``stats``, every run adds its counts to it."""

    def df(d: Dictionary, x):
        xv = Var(x, d.zero)
        _run(f, d, xv, stats)
        return xv.d

    df.__name__ = f"diff_handlers({getattr(f, '__name__', 'f')})"
    return df


def grad(f: Callable, *, stats: Stats | None = None) -> Callable:
    """The gradient of the client ``f(d, xs)``: the inputs are the first
    nodes, and their adjoints are returned."""

    def gf(d: Dictionary, xs: Sequence):
        inputs = [Var(x, d.zero) for x in xs]
        _run(f, d, inputs, stats)
        return [u.d for u in inputs]

    gf.__name__ = f"grad_handlers({getattr(f, '__name__', 'f')})"
    return gf
