"""The paper's example clients (Figures 2 and 3 and the artifact's tests),
written as ordinary functions of a dictionary and a value."""

from __future__ import annotations

from typing import Callable

from .dictionary import Dictionary, operators


def cube_plus_one(d: Dictionary, x):
    """(x+1)³ as ``cube (one + x)`` with ``cube z = z * z * z`` (Figure 2)."""
    z = d.add(d.one, x)
    return d.mul(d.mul(z, z), z)


@operators
def cube_plus_one_sugar(d, x):
    """(x+1)³ with operators."""
    z = 1 + x
    return z * z * z


def x_cube(d: Dictionary, x):
    """x·(x·x) (the artifact's machine-checked client)."""
    return d.mul(x, d.mul(x, x))


def monomial(k: int) -> Callable:
    """x^k by fast exponentiation (Figure 3): over the binary digits of
    ``k``, least significant first, multiplying by ``one`` on even
    digits."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise ValueError(f"monomial: k is a natural number, not {k!r}")

    def mono(d: Dictionary, x):
        result, k_ = d.one, k
        while k_ > 0:
            result = d.mul(result, d.one if k_ % 2 == 0 else x)
            x = d.mul(x, x)
            k_ //= 2
        return result

    mono.__name__ = f"monomial_{k}"
    return mono


def subst(e1: Callable, e2: Callable) -> Callable:
    """``e2`` at ``e1``: ``fun d x -> e2 d (e1 d x)``."""
    return lambda d, x: e2(d, e1(d, x))


@operators
def x_plus_y_squared_cubed(d, xs):
    """(x + y²)³, a client of two variables."""
    x, y = xs
    return (x + y * y) ** 3
