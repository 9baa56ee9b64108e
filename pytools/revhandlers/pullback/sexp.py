"""The S-expression format of pullback terms, requests and answers (read by
the extracted driver ``pullback-eval``)::

    TYPE ::= R | (* TYPE TYPE) | (-> TYPE TYPE) | (dual TYPE)
    TERM ::= (var N) | (lam TYPE TERM) | (app TERM TERM) | (proj 1 TERM) | (proj 2 TERM)
           | (pair TERM TERM) | NUMBER | (fun F TERM) | (jac F TERM)
           | (dual-map TYPE TERM TERM)     ; (λx:TYPE. s1)* · s2, binds x in s1 only
           | (pullback TYPE TERM TERM)     ; (Ω λx:TYPE. p) · s, binds x in p only
           | (ndual NUM)                   ; NUM ::= NUMBER | (NUM NUM) | zero
           | zero | (+ TERM TERM) | (let TERM TERM)   ; let binds z in the second
    REQUEST ::= (run TERM) | (check TERM) | (trace TERM)

    answers: (result (value TERM) (type TYPE) (steps N)), (ok (type TYPE)),
             (error (kind K) (rule R) (message "..."))

An answer is one line of at most :data:`MAX_ANSWER` characters (the
driver's ``max_answer``): a longer one is the runtime error
``answer-too-large``, which :func:`read_answer` also raises on a longer line
without reading it.  Reading is linear in the text: one pass of the reader,
one of :func:`from_sexp` (which measures the nesting as it goes).

``NUMBER`` is a float atom, always with a ``.`` or an exponent (``3.0``,
``1e-05``); values print erased binder types as ``?`` (``(lam ? TERM)``),
which :func:`from_sexp` reads as ``None``.  Reading uses
:func:`revhandlers.sexpio.loads` as the drivers read (OCaml's number syntax)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sexpdata

from ..depth import MAX_NESTING, room, too_deep
from ..errors import BadInput, RevHandlersError, RuntimeFailure, make_error
from ..sexpio import MAX_NAT, FloatAtom, fnum, loads, ocaml_float, show
from .syntax import (FUNCTIONS, NP, NR, NZ, TR, App, BTy, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus, Proj,
                     Real, TArr, TDual, Tm, TProd, Ty, Var, Zero)

REQUESTS = ("run", "check", "trace")

#: the longest answer line of pullback-eval, in characters (its ``max_answer``,
#: ``extracted/pullback_eval.ml``; a trace's line under ``--serve`` included)
MAX_ANSWER = 1_000_000

# ----------------------------------------------------------------- writing


def type_sexp(t: BTy) -> str:
    out: list[str] = []
    with room():
        _type_out(t, out)
    return "".join(out)


def _type_out(t: BTy, out: list) -> None:
    match t:
        case None:
            out.append("?")
        case TR():
            out.append("R")
        case TProd(a, b) | TArr(a, b):
            out.append("(* " if isinstance(t, TProd) else "(-> ")
            _type_out(a, out)
            out.append(" ")
            _type_out(b, out)
            out.append(")")
        case TDual(a):
            out.append("(dual ")
            _type_out(a, out)
            out.append(")")
        case _:
            raise TypeError(f"not a type: {t!r}")


def num_sexp(r: Num, finite: bool = True) -> str:
    out: list[str] = []
    with room():
        _num_out(r, out, finite)
    return "".join(out)


def _number(x: float, finite: bool = True) -> str:
    if finite and not math.isfinite(x):
        raise BadInput("number", f"not a finite number: {x}")
    return fnum(x)


# The writers append the pieces of the text to ``out`` (joined once: linear
# in the text, where nested f-strings copy each subterm once per level).

def _num_out(r: Num, out: list, finite: bool) -> None:
    match r:
        case NR(x):
            out.append(_number(x, finite))
        case NP(a, b):
            out.append("(")
            _num_out(a, out, finite)
            out.append(" ")
            _num_out(b, out, finite)
            out.append(")")
        case NZ():
            out.append("zero")
        case _:
            raise TypeError(f"not a numeric tuple: {r!r}")


#: the head of each term constructor's S-expression with its children
_HEADS = {App: "app", Pair: "pair", Plus: "+", Let: "let"}


def _tm_out(t: Tm, out: list, finite: bool) -> None:
    match t:
        case Var(n):
            out.append(f"(var {n})")
            return
        case Real(r):
            out.append(_number(r, finite))
            return
        case Zero():
            out.append("zero")
            return
        case NDual(r):
            out.append("(ndual ")
            _num_out(r, out, finite)
        case Lam(ty, s):
            out.append("(lam ")
            _type_out(ty, out)
            out.append(" ")
            _tm_out(s, out, finite)
        case Proj(i, s):
            out.append(f"(proj {i} ")
            _tm_out(s, out, finite)
        case Fun(f, p):
            out.append(f"(fun {f} ")
            _tm_out(p, out, finite)
        case Jac(f, s):
            out.append(f"(jac {f} ")
            _tm_out(s, out, finite)
        case App(a, b) | Pair(a, b) | Plus(a, b) | Let(a, b) | Dual(_, a, b) | Pb(_, a, b):
            if isinstance(t, (Dual, Pb)):
                out.append("(dual-map " if isinstance(t, Dual) else "(pullback ")
                _type_out(t.ty, out)
                out.append(" ")
            else:
                out.append(f"({_HEADS[type(t)]} ")
            _tm_out(a, out, finite)
            out.append(" ")
            _tm_out(b, out, finite)
        case _:
            raise TypeError(f"not a term: {t!r}")
    out.append(")")


def to_sexp(t: Tm, finite: bool = True) -> str:
    """``t`` as one line of the S-expression format, in time linear in the
    text; ``finite=False`` also writes ``nan``, ``inf`` and ``-inf`` (as
    pullback-eval prints them in values; input never holds them)."""
    out: list[str] = []
    with room():
        _tm_out(t, out, finite)
    return "".join(out)


def request_sexp(kind: str, t: Tm) -> str:
    """A request line: ``(run TERM)``, ``(check TERM)``, ``(trace TERM)``,
    ``(cps TERM)`` (the continuation machine), ``(last TERM)`` (the term
    a run ends with) or ``(zcheck TERM)`` (the type, once the typed premise
    ``ztyped`` holds)."""
    kinds = REQUESTS + ("cps", "last", "zcheck")
    if kind not in kinds:
        raise BadInput("syntax", f"a request is one of {', '.join(kinds)}, not {kind}")
    return f"({kind} {to_sexp(t)})"


# ----------------------------------------------------------------- reading

def _sym(x) -> str | None:
    return x.value() if isinstance(x, sexpdata.Symbol) else None


def _head(x) -> str | None:
    return _sym(x[0]) if isinstance(x, list) and x else None


def _nat(x, what: str) -> int:
    if isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_NAT:
        return x
    raise BadInput("syntax", f"expected {what} (a natural number up to {MAX_NAT}), found {show(x)}")


def read_number(x) -> float:
    """A ``NUMBER`` atom: a float with a ``.`` or an exponent (or another
    spelling OCaml's ``float_of_string`` reads that is not an integer)."""
    if isinstance(x, FloatAtom):
        f = float(x)
    else:
        text = _sym(x)
        f = ocaml_float(text) if text is not None and not text.lstrip("+-").isdigit() else None
        if f is None:
            if isinstance(x, int) and not isinstance(x, bool):
                raise BadInput("syntax", f"a number is a float atom, with a '.' or an exponent "
                                         f"(write {x}.0), found {x}")
            raise BadInput("syntax", f"expected a number, found {show(x)}")
    if not math.isfinite(f):
        raise BadInput("number", f"not a finite number: {show(x)}")
    return f


def _is_number(x) -> bool:
    if isinstance(x, FloatAtom):
        return True
    text = _sym(x)
    return text is not None and ocaml_float(text) is not None and not text.lstrip("+-").isdigit()


def read_type(s, erased: bool = True) -> BTy:
    """A ``TYPE``; ``?`` (an erased binder type) is ``None`` when
    ``erased``.  Errors: ``syntax``, ``too-deep``."""
    with room():
        return _type(s, erased, 1)


# The readers below take the level ``d`` of the node they read (1 at the
# top; every term, type and numeric tuple is one level, as
# :func:`.syntax.depth` and pullback-eval count them) and stop past
# MAX_NESTING levels: one pass, with recursion bounded by the limit.

def _type(s, erased: bool, d: int) -> BTy:
    if erased and _sym(s) == "?":
        return None
    if d > MAX_NESTING:
        raise too_deep()
    if _sym(s) == "R":
        return TR()
    match _head(s):
        case "*" if len(s) == 3:
            return TProd(_type(s[1], False, d + 1), _type(s[2], False, d + 1))
        case "->" if len(s) == 3:
            return TArr(_type(s[1], False, d + 1), _type(s[2], False, d + 1))
        case "dual" if len(s) == 2:
            return TDual(_type(s[1], False, d + 1))
    raise BadInput("syntax", f"not a type: {show(s)} (R, (* A B), (-> A B), (dual A))")


def _num(s, d: int) -> Num:
    if d > MAX_NESTING:
        raise too_deep()
    if _sym(s) == "zero":
        return NZ()
    if isinstance(s, list):
        if len(s) != 2:
            raise BadInput("syntax", f"a numeric tuple is NUMBER, zero or (NUM NUM), found {show(s)}")
        return NP(_num(s[0], d + 1), _num(s[1], d + 1))
    return NR(read_number(s))


def _fsym(x) -> str:
    name = _sym(x)
    if name is None:
        raise BadInput("syntax", f"expected a function symbol, found {show(x)}")
    if name not in FUNCTIONS:
        raise BadInput("unbound", f"unknown function symbol {name} (the symbols are {', '.join(FUNCTIONS)})")
    return name


_ARITY = {"var": 1, "lam": 2, "app": 2, "proj": 2, "pair": 2, "fun": 2, "jac": 2, "dual-map": 3,
          "pullback": 3, "ndual": 1, "+": 2, "let": 2}


def _term(s, level: int, free: int, d: int) -> Tm:
    """``level`` binders enclose ``s``; ``free`` more variables are free;
    ``s`` is at level ``d``."""
    if d > MAX_NESTING:
        raise too_deep()
    if _sym(s) == "zero":
        return Zero()
    if not isinstance(s, list):
        if _is_number(s) or isinstance(s, (int, float)) and not isinstance(s, bool):
            return Real(read_number(s))
        raise BadInput("syntax", f"not a term: {show(s)}")
    head = _head(s)
    if head not in _ARITY:
        raise BadInput("syntax", f"not a term: {show(s)}")
    if len(s) != _ARITY[head] + 1:
        raise BadInput("syntax", f"({head} …) takes {_ARITY[head]} argument{'s' if _ARITY[head] > 1 else ''}: "
                                 f"{show(s)}")
    e = d + 1
    match head:
        case "var":
            n = _nat(s[1], "a de Bruijn index")
            if n >= level + free:
                raise BadInput("unbound", f"(var {n}) under {level} binder{'s' if level != 1 else ''}"
                                          + (f" and {free} free variables" if free else "") + " is unbound")
            return Var(n)
        case "lam":
            return Lam(_type(s[1], True, e), _term(s[2], level + 1, free, e))
        case "app":
            return App(_term(s[1], level, free, e), _term(s[2], level, free, e))
        case "proj":
            if s[1] not in (1, 2) or isinstance(s[1], bool):
                raise BadInput("syntax", f"a projection is (proj 1 TERM) or (proj 2 TERM), found {show(s)}")
            return Proj(s[1], _term(s[2], level, free, e))
        case "pair":
            return Pair(_term(s[1], level, free, e), _term(s[2], level, free, e))
        case "fun":
            return Fun(_fsym(s[1]), _term(s[2], level, free, e))
        case "jac":
            return Jac(_fsym(s[1]), _term(s[2], level, free, e))
        case "dual-map":
            return Dual(_type(s[1], True, e), _term(s[2], level + 1, free, e), _term(s[3], level, free, e))
        case "pullback":
            return Pb(_type(s[1], True, e), _term(s[2], level + 1, free, e), _term(s[3], level, free, e))
        case "ndual":
            return NDual(_num(s[1], e))
        case "+":
            return Plus(_term(s[1], level, free, e), _term(s[2], level, free, e))
        case "let":
            return Let(_term(s[1], level, free, e), _term(s[2], level + 1, free, e))
    raise AssertionError(head)


def _parsed(text_or_sexp):
    if isinstance(text_or_sexp, str):
        return loads(text_or_sexp, program=True)
    return text_or_sexp


def from_sexp(text_or_sexp, free: int = 0) -> Tm:
    """A term from its S-expression (text, or as read by
    :func:`revhandlers.sexpio.loads`); ``free`` variables may be free (the
    indices past the binders).  Errors: ``parse``, ``syntax``, ``unbound``
    (an index past the binders, an unknown function symbol), ``number``,
    ``too-deep``.  One pass, linear in the text."""
    s = _parsed(text_or_sexp)
    with room():
        return _term(s, 0, free, 1)


def read_request(text_or_sexp) -> tuple[str, Tm]:
    """``(run TERM)``, ``(check TERM)`` or ``(trace TERM)``: the kind and the
    term."""
    s = _parsed(text_or_sexp)
    head = _head(s)
    if head not in REQUESTS or len(s) != 2:
        raise BadInput("syntax", f"a request is (run TERM), (check TERM) or (trace TERM), found {show(s)}")
    return head, from_sexp(s[1])


def read_term_or_request(text: str) -> Tm:
    """A term, or the term of a request."""
    s = _parsed(text)
    if _head(s) in REQUESTS:
        return read_request(s)[1]
    return from_sexp(s)


@dataclass(frozen=True)
class Result:
    """The answer to ``(run TERM)``: the value (binder types may be erased),
    its type and the number of steps; for ``(cps TERM)`` also how often each
    rule fired (``(name, count)`` pairs in the order of first firing)."""
    value: Tm
    type: Ty
    steps: int
    rules: tuple = ()


def too_large_answer(line: str) -> RuntimeFailure | None:
    """The error ``answer-too-large`` when ``line`` is longer than
    :data:`MAX_ANSWER` characters (it is then not read), else ``None``."""
    if len(line.rstrip("\n")) <= MAX_ANSWER:
        return None
    return RuntimeFailure("answer-too-large", f"an answer of pullback-eval of {len(line.rstrip())} characters, more "
                                              f"than its limit of {MAX_ANSWER} (max_answer): not read")


def read_answer(line: str):
    """An answer line of the driver: a :class:`Result` for ``run``, the type
    for ``check``; an error line raises the error it reports (and a line
    longer than :data:`MAX_ANSWER` characters ``answer-too-large``, unread)."""
    too_large = too_large_answer(line)
    if too_large is not None:
        raise too_large
    s = loads(line, program=True)
    head = _head(s)
    fields = {}
    if isinstance(s, list):
        for f in s[1:]:
            if isinstance(f, list) and f and _sym(f[0]) is not None:
                fields[_sym(f[0])] = f[1:]
    match head:
        case "result" if {"value", "type", "steps"} <= fields.keys():
            value = from_sexp(fields["value"][0])
            return Result(value, read_type(fields["type"][0], erased=False), _nat(fields["steps"][0], "steps"),
                          read_rules(fields.get("rules", [])))
        case "ok" if "type" in fields:
            return read_type(fields["type"][0], erased=False)
        case "error" if {"kind", "message"} <= fields.keys():
            kind = _sym(fields["kind"][0]) or str(fields["kind"][0])
            rule = _sym(fields.get("rule", [None])[0]) or "none"
            return _raise(make_error(kind, str(fields["message"][0]), rule))
    raise RevHandlersError("internal", f"unexpected answer from pullback-eval: {line[:200]}")


def read_rules(items) -> tuple:
    """The ``(rules (NAME COUNT) …)`` field of an answer of ``(cps TERM)``."""
    out = []
    for item in items:
        if not (isinstance(item, list) and len(item) == 2):
            raise BadInput("syntax", f"a rule count is (NAME COUNT), found {show(item)}")
        name = _sym(item[0]) if _sym(item[0]) is not None else str(item[0])
        out.append((name, _nat(item[1], "a rule count")))
    return tuple(out)


def _raise(e: RevHandlersError):
    raise e
