"""The define-by-run library extracted from Coq, from Python: a long-lived
``dbr-eval --serve`` process (:class:`CoqLibrary`), whose three
implementations of ``diff`` (effect handlers, tape, dual numbers) and
``grad`` are the Coq definitions of ``theories/dbr`` (``program.v``:
``dbr_diff_correct``, ``dbr_grad_correct``).

Expressions travel as S-expressions (:func:`expr_sexp`, from the
expressions of :mod:`.expression`); numbers as exact integers, rationals
``p/q`` or floats (``docs/sexp-format.md``, "dbr-eval")."""

from __future__ import annotations

import math
from fractions import Fraction

from ..errors import RevHandlersError, make_error
from ..paths import driver_path
from ..process import ServeProcess, lazily
from .expression import Let, Name, Nat, Pow, Prod, Sum

MODES = ("handlers", "tape", "forward")


def dbr_eval_path():
    """The extracted driver: ``DBR_EVAL``, the checkout's build, or ``PATH``
    (:func:`revhandlers.paths.driver_path`)."""
    return driver_path("dbr-eval", "DBR_EVAL")


def expr_sexp(e) -> str:
    """An expression of :mod:`.expression` as dbr-eval reads it (the same
    operations in the same order: sums and products left to right, powers by
    fast exponentiation, constants by doubling).  Iterative, so expressions of
    any depth print (the driver bounds their nesting)."""
    out: list[str] = []
    stack: list = [e]
    while stack:
        e = stack.pop()
        if isinstance(e, str):
            out.append(e)
        elif isinstance(e, Nat):
            out.append(str(e.n))
        elif isinstance(e, Name):
            out.append(e.name)
        elif isinstance(e, (Sum, Prod)):
            parts = e.terms if isinstance(e, Sum) else e.factors
            if len(parts) == 1:
                stack.append(parts[0])
                continue
            out.append("(+" if isinstance(e, Sum) else "(*")
            stack.append(")")
            for p in reversed(parts):
                stack.extend([p, " "])
        elif isinstance(e, Pow):
            out.append("(^ ")
            stack.extend([f" {e.k})", e.base])
        elif isinstance(e, Let):
            out.append(f"(let {e.name} ")
            stack.extend([")", e.body, " ", e.bound])
        else:
            raise TypeError(f"not an expression: {e!r}")
    return "".join(out)


def number_atom(x) -> str:
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
    if numbers == "int":
        return int(text)
    if numbers == "rational":
        return Fraction(text)
    return float(text)


def _answer(line: str, numbers: str):
    """``(result (value V) …)`` or ``(result (gradient V …) …)`` as
    ``(kind, values, fields)``; an error line raises its error."""
    from ..sexp import loads
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
    if head(s) != "result":
        raise RevHandlersError("internal", f"unexpected answer from dbr-eval: {line[:200]}")
    fields = {head(x): x[1:] for x in s[1:]}
    ops = int(text(fields["operations"][0])) if "operations" in fields else None
    secs = float(text(fields["seconds"][0])) if "seconds" in fields else None
    if "value" in fields:
        return _number(text(fields["value"][0]), numbers), ops, secs
    return [_number(text(v), numbers) for v in fields["gradient"]], ops, secs


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
