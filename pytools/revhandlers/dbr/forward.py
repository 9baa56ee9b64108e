"""Forward mode with dual numbers (the paper's §3): a value is a pair
``(v, v′)`` of a value and its derivative; the client runs on the dual
numbers over the caller's dictionary, the variable seeded with ``(x, 1)``.
"""

from __future__ import annotations

from typing import Callable, Sequence

from .dictionary import Dictionary


class Dual:
    """A value and its tangents (one per variable)."""

    __slots__ = ("v", "t")

    def __init__(self, v, t: tuple):
        self.v = v
        self.t = t

    def __repr__(self) -> str:
        return f"Dual({self.v!r}, {self.t!r})"


def dual_dictionary(d: Dictionary, n: int) -> Dictionary:
    """The dual numbers over ``d`` with ``n`` tangents.  ``(a, a′)·(b, b′)``
    is ``a·b``, then ``a′·b + a·b′`` (in that order, tangent by tangent)."""
    zeros = (d.zero,) * n

    def add(a: Dual, b: Dual) -> Dual:
        return Dual(d.add(a.v, b.v), tuple(d.add(x, y) for x, y in zip(a.t, b.t)))

    def mul(a: Dual, b: Dual) -> Dual:
        v = d.mul(a.v, b.v)
        return Dual(v, tuple(d.add(d.mul(x, b.v), d.mul(a.v, y)) for x, y in zip(a.t, b.t)))

    return Dictionary(Dual(d.zero, zeros), Dual(d.one, zeros), add, mul, f"dual {d.name}")


def _tangents(y) -> tuple:
    if not isinstance(y, Dual):
        raise TypeError(f"forward mode: the client returned {y!r}, not a value of the dictionary it was given")
    return y.t


def diff(f: Callable) -> Callable:
    """The derivative of the client ``f(d, x)``, itself a client."""

    def df(d: Dictionary, x):
        y = f(dual_dictionary(d, 1), Dual(x, (d.one,)))
        return _tangents(y)[0]

    df.__name__ = f"diff_forward({getattr(f, '__name__', 'f')})"
    return df


def grad(f: Callable) -> Callable:
    """The gradient of the client ``f(d, xs)`` of several variables: a
    function ``(d, xs) -> list`` of the partial derivatives (one pass, a
    tangent per variable)."""

    def gf(d: Dictionary, xs: Sequence):
        n = len(xs)
        seeds = [Dual(x, tuple(d.one if j == i else d.zero for j in range(n))) for i, x in enumerate(xs)]
        y = f(dual_dictionary(d, n), seeds)
        return list(_tangents(y))

    gf.__name__ = f"grad_forward({getattr(f, '__name__', 'f')})"
    return gf
