"""The reference's shortcuts change no number: constants' arrays shared
between evaluations keep the sign of a zero and are never written, and the
swish derivatives' polynomials in ``σ`` give the numbers of
``numpy.polynomial`` (docs/decisions.md, "The reference's cost per
program")."""

from __future__ import annotations

import numpy as np
import pytest

from revhandlers.rh import autodiff as ad
from revhandlers.rh.reference import run_reference
from revhandlers.rh.syntax import Add, Const, Program, Ret, Tuple


def _bits(a) -> bytes:
    return np.asarray(a, dtype="<f8").tobytes()


def test_constants_keep_the_sign_of_zero():
    """0.0 == -0.0 in Python: a cache of arrays by their numbers must not
    give one for the other, whichever comes first, in one run or the next."""
    for order in ((0.0, -0.0), (-0.0, 0.0)):
        for _ in range(2):
            items = tuple(Const((z, 2.0)) for z in order) + tuple(Const((z,)) for z in order)
            value = run_reference(Program(Ret(Tuple(items)))).value
            want = [(order[0], 2.0), (order[1], 2.0), (order[0],), (order[1],)]
            assert [_bits(v) for v in value] == [_bits(w) for w in want]


def test_shared_constants_are_not_written():
    """The same constant twice (its array shared) added to itself: the
    result is new, the constant unchanged in a second run; the value
    returned is the caller's to change."""
    c = (1.5, -3.0, 0.25)
    prog = Program(Ret(Add(Const(c), Const(c))))
    first = run_reference(prog).value
    first += 1.0                                # a copy: allowed, and changes nothing below
    assert _bits(run_reference(prog).value) == _bits([3.0, -6.0, 0.5])


@pytest.mark.parametrize("order", range(6))
def test_sigmoid_polynomials_as_numpy_polynomial(order):
    """Horner on the cached coefficients against ``Polynomial`` built here
    from ``σ' = σ(1 − σ)``, bit for bit (NaN and the ends included)."""
    P = np.polynomial.Polynomial
    p = P([0.0, 1.0])
    for _ in range(order):
        p = p.deriv() * P([0.0, 1.0, -1.0])
    s = np.concatenate([[0.0, 1.0, 0.5, np.nan], np.random.default_rng(order).random(50)])
    assert _bits(ad._horner(ad._sigmoid_poly(order), s)) == _bits(p(s))
