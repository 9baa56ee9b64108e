"""Dictionaries (the paper's ``'v dict``) and operator overloading.

A *client* is an ordinary Python function ``f(d, x)``: it receives a
dictionary ``d`` with the four members ``zero``, ``one``, ``add`` and
``mul``, and the value ``x`` of its variable, and returns a value built
from ``x``, ``d.zero`` and ``d.one`` with ``d.add`` and ``d.mul`` only.  It
must not look at the values it handles (compare them, convert them to
numbers, …): that is what makes it an *expression*, the same code running on
plain numbers, on dual numbers or on the nodes of a reverse-mode
differentiator.  A client of several variables is ``f(d, xs)`` with ``xs``
a sequence.

:func:`operators` lets a client be written with ``+``, ``*``, ``**`` (a
natural exponent) and natural-number literals instead of ``d.add`` and
``d.mul``.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from fractions import Fraction
from functools import wraps
from typing import Any, Callable


@dataclass(frozen=True)
class Dictionary:
    """The operations of a commutative semiring on some representation of
    its elements.  ``add`` and ``mul`` may do anything (perform effects,
    record a tape), as long as they behave as the semiring's operations."""

    zero: Any
    one: Any
    add: Callable[[Any, Any], Any]
    mul: Callable[[Any, Any], Any]
    name: str = "dictionary"

    def __repr__(self) -> str:
        return f"<dictionary {self.name}>"


INTS = Dictionary(0, 1, operator.add, operator.mul, "int")
FRACTIONS = Dictionary(Fraction(0), Fraction(1), operator.add, operator.mul, "Fraction")
FLOATS = Dictionary(0.0, 1.0, operator.add, operator.mul, "float")

NUMBERS = {"int": INTS, "fraction": FRACTIONS, "float": FLOATS}


def natural(d: Dictionary, n: int):
    """The natural number ``n`` in the semiring of ``d``: ``one`` added to
    itself, by doubling (``O(log n)`` operations of ``d``)."""
    if not isinstance(n, int) or isinstance(n, bool) or n < 0:
        raise TypeError(f"a semiring has only the natural numbers as constants, not {n!r}")
    result, power = d.zero, d.one
    first = True
    while n:
        if n & 1:
            result = power if first else d.add(result, power)
            first = False
        n >>= 1
        if n:
            power = d.add(power, power)
    return result


def power(d: Dictionary, x, k: int):
    """``x`` to the natural power ``k`` by the paper's fast exponentiation
    (Figure 3, ``monomial``): over the binary digits of ``k``, least
    significant first, multiplying by ``one`` on even digits."""
    if not isinstance(k, int) or isinstance(k, bool) or k < 0:
        raise TypeError(f"the exponent is a natural number, not {k!r}")
    result = d.one
    while k > 0:
        result = d.mul(result, d.one if k % 2 == 0 else x)
        x = d.mul(x, x)
        k //= 2
    return result


class Num:
    """A value of the dictionary ``d``, with the operators of the semiring:
    ``a + b``, ``a * b``, ``a ** k`` (``k`` a natural number), and natural
    literals on either side (``1 + x``)."""

    __slots__ = ("d", "v")

    def __init__(self, d: Dictionary, v):
        self.d = d
        self.v = v

    def _other(self, other):
        if isinstance(other, Num):
            if other.d is not self.d:
                raise TypeError("the operands come from two different dictionaries")
            return other.v
        if isinstance(other, int) and not isinstance(other, bool) and other >= 0:
            return natural(self.d, other)
        return NotImplemented

    def _combine(self, op, other, flip: bool = False):
        """``op`` on the values of ``self`` and ``other``, in that order, or
        the other way round when ``flip`` (for the reflected operators)."""
        o = self._other(other)
        if o is NotImplemented:
            return NotImplemented
        return Num(self.d, op(o, self.v) if flip else op(self.v, o))

    def __add__(self, other):
        return self._combine(self.d.add, other)

    def __radd__(self, other):
        return self._combine(self.d.add, other, flip=True)

    def __mul__(self, other):
        return self._combine(self.d.mul, other)

    def __rmul__(self, other):
        return self._combine(self.d.mul, other, flip=True)

    def __pow__(self, k):
        if not isinstance(k, int) or isinstance(k, bool) or k < 0:
            return NotImplemented
        return Num(self.d, power(self.d, self.v, k))

    def __bool__(self):
        raise TypeError("an expression cannot look at the values it computes")

    def __repr__(self) -> str:
        return f"Num({self.v!r})"


def unwrap(d: Dictionary, r):
    """The dictionary's value of a client's result (a :class:`Num` or a
    natural literal)."""
    if isinstance(r, Num):
        if r.d is not d:
            raise TypeError("the result comes from another dictionary")
        return r.v
    return natural(d, r)


def operators(f: Callable) -> Callable:
    """Turn ``f(d, x)`` written with operators into a client: ``x`` (or
    each element of ``x`` when it is a list or a tuple) is given to ``f``
    as a :class:`Num` of ``d``, and the result is unwrapped."""

    @wraps(f)
    def client(d: Dictionary, x):
        if isinstance(x, (list, tuple)):
            arg = [Num(d, v) for v in x]
        else:
            arg = Num(d, x)
        return unwrap(d, f(d, arg))

    return client


def evaluate(f: Callable, x, d: Dictionary = INTS):
    """Run the client ``f`` at ``x`` on the dictionary ``d`` (plain
    evaluation, no differentiation)."""
    return f(d, x)


def counting(d: Dictionary) -> tuple[Dictionary, dict[str, int]]:
    """``d`` with counters of its ``add`` and ``mul`` calls."""
    counts = {"add": 0, "mul": 0}

    def add(a, b):
        counts["add"] += 1
        return d.add(a, b)

    def mul(a, b):
        counts["mul"] += 1
        return d.mul(a, b)

    return Dictionary(d.zero, d.one, add, mul, f"counting {d.name}"), counts


__all__ = ["Dictionary", "INTS", "FRACTIONS", "FLOATS", "NUMBERS", "Num", "operators", "unwrap",
           "natural", "power", "evaluate", "counting"]
