"""A define-by-run automatic-differentiation library after de Vilhena and
Pottier, *Verifying an Effect-Handler-Based Define-By-Run Reverse-Mode AD
Library* (LMCS 19(4:5), 2023), whose Coq theory is ``theories/dbr``.

A *client* is an ordinary function ``f(d, x)`` over a dictionary ``d`` of
a commutative semiring (``zero``, ``one``, ``add``, ``mul``;
:mod:`.dictionary`, with operator overloading by :func:`operators`).
``diff(f)`` is again a client, the derivative of ``f``, so it can be
differentiated again; ``grad(f)`` is ``(d, xs) -> [∂f/∂x_i]``.  Three
implementations, as in the paper:

* :mod:`.forward`: forward mode with dual numbers;
* :mod:`.tape`: reverse mode with a tape;
* :mod:`.handlers`: reverse mode with one-shot deep effect handlers, where
  the tape is the stack of suspended handler clauses.

All three work exactly on ``int`` and ``fractions.Fraction`` (and on
``float``), on any dictionary, and nest: ``diff(diff(f))``, mixing
implementations too.

**How the effect handlers are implemented: greenlets, not generators.**  A
Python generator can only suspend itself, at a ``yield`` written in its own
body; for a request performed inside ``d.add`` to suspend the client, every
function between the client and ``d.add`` would have to be a generator and
be called with ``yield from``, so clients would no longer be ordinary
functions and the same client could not run on plain numbers.  A greenlet
suspends the whole stack of calls it runs, wherever the switch happens,
which is what ``perform`` needs; its continuation can be resumed once,
which is exactly the one-shot continuations of OCaml's handlers.  Deep
handling, generative effects, forwarding of other handlers' requests and
the stack of suspended clauses are in :mod:`.effects`; it does not recurse
on the Python stack, so runs of any length work.
"""

from __future__ import annotations

from . import forward, handlers, tape
from .dictionary import FLOATS, FRACTIONS, INTS, NUMBERS, Dictionary, Num, evaluate, natural, operators, power
from .effects import ContinuationError, Effect, Unhandled, handle, perform

IMPLEMENTATIONS = {"handlers": handlers, "tape": tape, "forward": forward}


def diff(f, impl: str = "handlers"):
    """The derivative of the client ``f`` by the implementation ``impl``
    (``"handlers"``, ``"tape"`` or ``"forward"``)."""
    return IMPLEMENTATIONS[impl].diff(f)


def grad(f, impl: str = "handlers"):
    """The gradient of the client ``f(d, xs)`` by ``impl``."""
    return IMPLEMENTATIONS[impl].grad(f)


def diff_n(f, n: int, impl: str = "handlers"):
    """``diff`` applied ``n`` times."""
    for _ in range(n):
        f = diff(f, impl)
    return f


__all__ = ["Dictionary", "INTS", "FRACTIONS", "FLOATS", "NUMBERS", "Num", "operators", "natural", "power",
           "evaluate", "Effect", "perform", "handle", "Unhandled", "ContinuationError", "forward", "tape",
           "handlers", "IMPLEMENTATIONS", "diff", "grad", "diff_n"]
