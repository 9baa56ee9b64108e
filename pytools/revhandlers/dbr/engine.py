"""The define-by-run library extracted from Coq, from Python: a long-lived
``dbr-eval --serve`` process (:class:`CoqLibrary`), whose three
implementations of ``diff`` (effect handlers, tape, dual numbers) and
``grad`` are the Coq definitions of ``theories/dbr`` (``program.v``:
``dbr_diff_correct``, ``dbr_grad_correct``).

Expressions travel as S-expressions (:func:`expr_sexp`, from the
expressions of :mod:`.syntax`); numbers as exact integers, rationals
``p/q`` or floats (``docs/sexp-format.md``, "dbr-eval")."""

from __future__ import annotations

import math
import re
import sys
from fractions import Fraction

from ..errors import RevHandlersError, make_error
from ..paths import driver_path
from ..process import ServeProcess, lazily
from ..sexpio import loads
from ..tree import leaves
from .syntax import Let, Name, Nat, Pow, Prod, Sum

MODES = ("handlers", "tape", "forward")


def dbr_eval_path():
    """The extracted driver: ``DBR_EVAL``, the checkout's build, or ``PATH``
    (:func:`revhandlers.paths.driver_path`)."""
    return driver_path("dbr-eval", "DBR_EVAL")


def expr_sexp(e) -> str:
    """An expression of :mod:`.syntax` as dbr-eval reads it (the same
    operations in the same order: sums and products left to right, powers by
    fast exponentiation, constants by doubling).  Iterative, so expressions of
    any depth print (the driver bounds their nesting)."""
    def parts(e):
        if isinstance(e, str):
            return None
        if isinstance(e, Nat):
            return [str(e.n)]
        if isinstance(e, Name):
            return [e.name]
        if isinstance(e, (Sum, Prod)):
            items = e.terms if isinstance(e, Sum) else e.factors
            if len(items) == 1:
                return items
            return ["(+" if isinstance(e, Sum) else "(*", *(x for i in items for x in (" ", i)), ")"]
        if isinstance(e, Pow):
            return ["(^ ", e.base, f" {e.k})"]
        if isinstance(e, Let):
            return [f"(let {e.name} ", e.bound, " ", e.body, ")"]
        raise TypeError(f"not an expression: {e!r}")

    return "".join(leaves(e, parts))


class any_digits:
    """Lift Python's limit on converting long integers to and from text
    (4300 digits) for the numbers exchanged with dbr-eval, which allows
    exact numbers of up to 10⁶ bits."""

    def __enter__(self):
        self.old = sys.get_int_max_str_digits()
        sys.set_int_max_str_digits(0)

    def __exit__(self, *exc):
        sys.set_int_max_str_digits(self.old)


def number_atom(x) -> str:
    with any_digits():
        return _number_atom(x)


def _number_atom(x) -> str:
    if isinstance(x, bool):
        raise TypeError("a number, not a bool")
    if isinstance(x, int):
        return str(x)
    if isinstance(x, Fraction):
        return str(x.numerator) if x.denominator == 1 else f"{x.numerator}/{x.denominator}"
    if isinstance(x, float):
        if not math.isfinite(x):
            raise ValueError(f"a point is finite, not {x!r}")
        return repr(x)
    raise TypeError(f"not a number: {x!r}")


def _number(text: str, numbers: str):
    with any_digits():
        return _parse_number(text, numbers)


def _parse_number(text: str, numbers: str):
    if numbers == "int":
        return int(text)
    if numbers == "rational":
        return Fraction(text)
    return float(text)


_RESULT = re.compile(r"\(result \((value|gradient)((?: [^()\s]+)*)\) \(operations (\d+)\) \(seconds ([^()\s]+)\)\)")


def _answer(line: str, numbers: str):
    """``(result (value V) …)`` or ``(result (gradient V …) …)`` as
    ``(values, operations, seconds)``; an error line raises its error.  The
    numbers are read from the text (exact integers may have 300,000
    digits, past what an S-expression reader turns into numbers)."""
    m = _RESULT.fullmatch(line.strip())
    if m:
        values = [_number(v, numbers) for v in m.group(2).split()]
        value = values[0] if m.group(1) == "value" and len(values) == 1 else values
        return value, int(m.group(3)), float(m.group(4))
    s = loads(line)

    def head(x):
        return x[0].value() if isinstance(x, list) and x and hasattr(x[0], "value") else None

    def text(x):
        return x.value() if hasattr(x, "value") else str(x)

    if head(s) == "error":
        f = {head(x): x for x in s[1:]}
        kind = text(f["kind"][1]) if "kind" in f else "internal"
        message = f["message"][1] if "message" in f else line
        raise make_error(kind, message if isinstance(message, str) else text(message))
    raise RevHandlersError("internal", f"unexpected answer from dbr-eval: {line[:200]}")


def _kind(xs) -> str:
    if all(isinstance(x, int) and not isinstance(x, bool) for x in xs):
        return "int"
    if all(isinstance(x, (int, Fraction)) and not isinstance(x, bool) for x in xs):
        return "rational"
    if all(isinstance(x, float) for x in xs):
        return "float"
    raise TypeError(f"points are all ints/Fractions or all floats, not {xs!r}")


class CoqLibrary(ServeProcess):
    """A ``dbr-eval --serve`` process: the library extracted from Coq."""

    def __init__(self, path=None, timeout: float | None = None):
        super().__init__(path or dbr_eval_path(), timeout=timeout)
        #: the ``(operations N)`` and ``(seconds S)`` of the last answer
        self.operations: int | None = None
        self.seconds: float | None = None

    def _ask(self, request: str, numbers: str):
        value, self.operations, self.seconds = _answer(self.request(request), numbers)
        return value

    def diff(self, expr, x, order: int = 1, mode: str = "handlers", var: str = "x"):
        """The ``order``-th derivative of ``expr`` (an expression, or its
        S-expression text) at ``x`` (int, Fraction or float), by ``mode``."""
        if mode not in MODES:
            raise ValueError(f"mode is one of {MODES}")
        numbers = _kind([x])
        e = expr if isinstance(expr, str) else expr_sexp(expr)
        return self._ask(f"(diff (expr {e}) (vars {var}) (at {number_atom(x)}) (order {int(order)}) "
                         f"(mode {mode}) (numbers {numbers}))", numbers)

    def grad(self, expr, names, xs):
        """The gradient of ``expr`` in the variables ``names`` at ``xs``."""
        numbers = _kind(xs)
        e = expr if isinstance(expr, str) else expr_sexp(expr)
        return self._ask(f"(grad (expr {e}) (vars {' '.join(names)}) (at {' '.join(map(number_atom, xs))}) "
                         f"(numbers {numbers}))", numbers)

    def value(self, expr, names, xs):
        """The value of ``expr`` at ``xs``."""
        numbers = _kind(xs)
        e = expr if isinstance(expr, str) else expr_sexp(expr)
        return self._ask(f"(eval (expr {e}) (vars {' '.join(names)}) (at {' '.join(map(number_atom, xs))}) "
                         f"(numbers {numbers}))", numbers)


#: the process shared by ``revhandlers dbr … --engine coq``
default_library = lazily(CoqLibrary)
