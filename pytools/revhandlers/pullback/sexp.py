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

``NUMBER`` is a float atom, always with a ``.`` or an exponent (``3.0``,
``1e-05``); values print erased binder types as ``?`` (``(lam ? TERM)``),
which :func:`from_sexp` reads as ``None``.  Reading uses
:func:`revhandlers.sexp.loads` as the drivers read (OCaml's number syntax)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import sexpdata

from ..errors import BadInput, RevHandlersError, make_error
from ..nesting import MAX_NESTING, room, too_deep
from ..sexp import MAX_NAT, _Float, _show, fnum, loads, ocaml_float
from .syntax import (FUNCTIONS, NP, NR, NZ, App, BTy, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus,
                     Proj, Real, TArr, TDual, Tm, TProd, TR, Ty, Var, Zero, depth)

REQUESTS = ("run", "check", "trace")

# ----------------------------------------------------------------- writing


def type_sexp(t: BTy) -> str:
    if t is None:
        return "?"
    match t:
        case TR():
            return "R"
        case TProd(a, b):
            return f"(* {type_sexp(a)} {type_sexp(b)})"
        case TArr(a, b):
            return f"(-> {type_sexp(a)} {type_sexp(b)})"
        case TDual(a):
            return f"(dual {type_sexp(a)})"
    raise TypeError(f"not a type: {t!r}")


def num_sexp(r: Num) -> str:
    match r:
        case NR(x):
            return _number(x)
        case NP(a, b):
            return f"({num_sexp(a)} {num_sexp(b)})"
        case NZ():
            return "zero"
    raise TypeError(f"not a numeric tuple: {r!r}")


def _number(x: float) -> str:
    if not math.isfinite(x):
        raise BadInput("number", f"not a finite number: {x}")
    return fnum(x)


def _tm(t: Tm) -> str:
    match t:
        case Var(n):
            return f"(var {n})"
        case Lam(ty, s):
            return f"(lam {type_sexp(ty)} {_tm(s)})"
        case App(s, p):
            return f"(app {_tm(s)} {_tm(p)})"
        case Proj(i, s):
            return f"(proj {i} {_tm(s)})"
        case Pair(a, b):
            return f"(pair {_tm(a)} {_tm(b)})"
        case Real(r):
            return _number(r)
        case Fun(f, p):
            return f"(fun {f} {_tm(p)})"
        case Jac(f, s):
            return f"(jac {f} {_tm(s)})"
        case Dual(ty, s1, s2):
            return f"(dual-map {type_sexp(ty)} {_tm(s1)} {_tm(s2)})"
        case Pb(ty, p, s):
            return f"(pullback {type_sexp(ty)} {_tm(p)} {_tm(s)})"
        case NDual(r):
            return f"(ndual {num_sexp(r)})"
        case Zero():
            return "zero"
        case Plus(a, b):
            return f"(+ {_tm(a)} {_tm(b)})"
        case Let(e, l):
            return f"(let {_tm(e)} {_tm(l)})"
    raise TypeError(f"not a term: {t!r}")


def to_sexp(t: Tm) -> str:
    """``t`` as one line of the S-expression format."""
    with room():
        return _tm(t)


def request_sexp(kind: str, t: Tm) -> str:
    """A request line: ``(run TERM)``, ``(check TERM)``, ``(trace TERM)`` or
    ``(cps TERM)`` (the continuation machine)."""
    if kind not in REQUESTS + ("cps",):
        raise BadInput("syntax", f"a request is one of {', '.join(REQUESTS + ('cps',))}, not {kind}")
    return f"({kind} {to_sexp(t)})"


# ----------------------------------------------------------------- reading

def _sym(x) -> str | None:
    return x.value() if isinstance(x, sexpdata.Symbol) else None


def _head(x) -> str | None:
    return _sym(x[0]) if isinstance(x, list) and x else None


def _nat(x, what: str) -> int:
    if isinstance(x, int) and not isinstance(x, bool) and 0 <= x <= MAX_NAT:
        return x
    raise BadInput("syntax", f"expected {what} (a natural number up to {MAX_NAT}), found {_show(x)}")


def read_number(x) -> float:
    """A ``NUMBER`` atom: a float with a ``.`` or an exponent (or another
    spelling OCaml's ``float_of_string`` reads that is not an integer)."""
    if isinstance(x, _Float):
        f = float(x)
    else:
        text = _sym(x)
        f = ocaml_float(text) if text is not None and not text.lstrip("+-").isdigit() else None
        if f is None:
            if isinstance(x, int) and not isinstance(x, bool):
                raise BadInput("syntax", f"a number is a float atom, with a '.' or an exponent "
                                         f"(write {x}.0), found {x}")
            raise BadInput("syntax", f"expected a number, found {_show(x)}")
    if not math.isfinite(f):
        raise BadInput("number", f"not a finite number: {_show(x)}")
    return f


def _is_number(x) -> bool:
    if isinstance(x, _Float):
        return True
    text = _sym(x)
    return text is not None and ocaml_float(text) is not None and not text.lstrip("+-").isdigit()


def read_type(s, erased: bool = True) -> BTy:
    """A ``TYPE``; ``?`` (an erased binder type) is ``None`` when
    ``erased``."""
    with room():
        return _type(s, erased)


def _type(s, erased: bool) -> BTy:
    if _sym(s) == "R":
        return TR()
    if erased and _sym(s) == "?":
        return None
    match _head(s):
        case "*" if len(s) == 3:
            return TProd(_type(s[1], False), _type(s[2], False))
        case "->" if len(s) == 3:
            return TArr(_type(s[1], False), _type(s[2], False))
        case "dual" if len(s) == 2:
            return TDual(_type(s[1], False))
    raise BadInput("syntax", f"not a type: {_show(s)} (R, (* A B), (-> A B), (dual A))")


def _num(s) -> Num:
    if _sym(s) == "zero":
        return NZ()
    if isinstance(s, list):
        if len(s) != 2:
            raise BadInput("syntax", f"a numeric tuple is NUMBER, zero or (NUM NUM), found {_show(s)}")
        return NP(_num(s[0]), _num(s[1]))
    return NR(read_number(s))


def _fsym(x) -> str:
    name = _sym(x)
    if name is None:
        raise BadInput("syntax", f"expected a function symbol, found {_show(x)}")
    if name not in FUNCTIONS:
        raise BadInput("unbound", f"unknown function symbol {name} (the symbols are {', '.join(FUNCTIONS)})")
    return name


_ARITY = {"var": 1, "lam": 2, "app": 2, "proj": 2, "pair": 2, "fun": 2, "jac": 2, "dual-map": 3,
          "pullback": 3, "ndual": 1, "+": 2, "let": 2}


def _term(s, level: int, free: int) -> Tm:
    """``level`` binders enclose ``s``; ``free`` more variables are free."""
    if _sym(s) == "zero":
        return Zero()
    if not isinstance(s, list):
        if _is_number(s) or isinstance(s, (int, float)) and not isinstance(s, bool):
            return Real(read_number(s))
        raise BadInput("syntax", f"not a term: {_show(s)}")
    head = _head(s)
    if head not in _ARITY:
        raise BadInput("syntax", f"not a term: {_show(s)}")
    if len(s) != _ARITY[head] + 1:
        raise BadInput("syntax", f"({head} …) takes {_ARITY[head]} argument{'s' if _ARITY[head] > 1 else ''}: "
                                 f"{_show(s)}")
    match head:
        case "var":
            n = _nat(s[1], "a de Bruijn index")
            if n >= level + free:
                raise BadInput("unbound", f"(var {n}) under {level} binder{'s' if level != 1 else ''}"
                                          + (f" and {free} free variables" if free else "") + " is unbound")
            return Var(n)
        case "lam":
            return Lam(_type(s[1], True), _term(s[2], level + 1, free))
        case "app":
            return App(_term(s[1], level, free), _term(s[2], level, free))
        case "proj":
            if s[1] not in (1, 2) or isinstance(s[1], bool):
                raise BadInput("syntax", f"a projection is (proj 1 TERM) or (proj 2 TERM), found {_show(s)}")
            return Proj(s[1], _term(s[2], level, free))
        case "pair":
            return Pair(_term(s[1], level, free), _term(s[2], level, free))
        case "fun":
            return Fun(_fsym(s[1]), _term(s[2], level, free))
        case "jac":
            return Jac(_fsym(s[1]), _term(s[2], level, free))
        case "dual-map":
            return Dual(_type(s[1], True), _term(s[2], level + 1, free), _term(s[3], level, free))
        case "pullback":
            return Pb(_type(s[1], True), _term(s[2], level + 1, free), _term(s[3], level, free))
        case "ndual":
            return NDual(_num(s[1]))
        case "+":
            return Plus(_term(s[1], level, free), _term(s[2], level, free))
        case "let":
            return Let(_term(s[1], level, free), _term(s[2], level + 1, free))
    raise AssertionError(head)


def _parsed(text_or_sexp):
    if isinstance(text_or_sexp, str):
        return loads(text_or_sexp, program=True)
    return text_or_sexp


def _sexp_depth(s) -> int:
    deepest, stack = 0, [(s, 1)]
    while stack:
        u, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_NESTING:
            return d
        if isinstance(u, list):
            stack.extend((x, d + 1) for x in u)
    return deepest


def from_sexp(text_or_sexp, free: int = 0) -> Tm:
    """A term from its S-expression (text, or as read by
    :func:`revhandlers.sexp.loads`); ``free`` variables may be free (the
    indices past the binders).  Errors: ``parse``, ``syntax``, ``unbound``
    (an index past the binders, an unknown function symbol), ``number``,
    ``too-deep``."""
    s = _parsed(text_or_sexp)
    if _sexp_depth(s) > MAX_NESTING + 1:
        raise too_deep()
    with room():
        t = _term(s, 0, free)
    if depth(t) > MAX_NESTING:
        raise too_deep()
    return t


def read_request(text_or_sexp) -> tuple[str, Tm]:
    """``(run TERM)``, ``(check TERM)`` or ``(trace TERM)``: the kind and the
    term."""
    s = _parsed(text_or_sexp)
    head = _head(s)
    if head not in REQUESTS or len(s) != 2:
        raise BadInput("syntax", f"a request is (run TERM), (check TERM) or (trace TERM), found {_show(s)}")
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


def read_answer(line: str):
    """An answer line of the driver: a :class:`Result` for ``run``, the type
    for ``check``; an error line raises the error it reports."""
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
            raise BadInput("syntax", f"a rule count is (NAME COUNT), found {_show(item)}")
        name = _sym(item[0]) if _sym(item[0]) is not None else str(item[0])
        out.append((name, _nat(item[1], "a rule count")))
    return tuple(out)


def _raise(e: RevHandlersError):
    raise e
