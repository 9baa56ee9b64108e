"""Polynomial expressions written as text, for the ``revhandlers dbr``
command: ``(x+1)^3``, ``let y = x*x in y*y + 1``, ``(x + y^2)^3``.

Grammar (``^`` and ``**`` are the same; powers are natural numbers)::

    expr  ::= "let" NAME "=" expr "in" expr | sum
    sum   ::= prod ("+" prod)*
    prod  ::= pow ("*" pow)*
    pow   ::= atom (("^" | "**") NAT)?
    atom  ::= NAT | NAME | "(" expr ")"

An expression compiles to a client (:func:`client`): natural constants are
``one`` added up, powers use the paper's fast exponentiation, and ``let``
shares a value.  Anything else (``-``, ``/``, decimals) is an error: a
client reaches only what ``zero``, ``one``, ``add`` and ``mul`` make.
"""

from __future__ import annotations

import re
from typing import Callable, Union

from ..errors import BadInput
from ..tree import Node
from .dictionary import Dictionary, natural, power

MAX_LENGTH = 10_000
MAX_NESTING = 100
MAX_EXPONENT = 10_000
MAX_CONSTANT = 10 ** 100

KEYWORDS = {"let", "in"}
_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z_0-9']*)|(\*\*|[-+*^()=/.,]|\S))")


class Nat(Node):
    """A natural constant ``n``: ``one`` added up."""
    n: int


class Name(Node):
    """A variable."""
    name: str


class Sum(Node):
    """``t1 + … + tn``, added left to right."""
    terms: tuple["Expr", ...]


class Prod(Node):
    """``f1 * … * fn``, multiplied left to right."""
    factors: tuple["Expr", ...]


class Pow(Node):
    """``base ^ k``, by fast exponentiation."""
    base: "Expr"
    k: int


class Let(Node):
    """``let name = bound in body``: ``bound``'s value, shared."""
    name: str
    bound: "Expr"
    body: "Expr"


Expr = Union[Nat, Name, Sum, Prod, Pow, Let]


def _tokens(text: str) -> list[tuple[str, str, int]]:
    out = []
    pos = 0
    while True:
        m = _TOKEN.match(text, pos)
        if m is None or m.end() == pos and not m.group(0):
            break
        if m.group(1) is not None:
            out.append(("nat", m.group(1), m.start(1)))
        elif m.group(2) is not None:
            kind = "kw" if m.group(2) in KEYWORDS else "name"
            out.append((kind, m.group(2), m.start(2)))
        elif m.group(3) is not None:
            out.append(("sym", m.group(3), m.start(3)))
        else:
            break
        pos = m.end()
    out.append(("end", "", len(text)))
    return out


class _Parser:
    def __init__(self, text: str):
        self.text = text
        self.toks = _tokens(text)
        self.i = 0
        self.depth = 0

    def error(self, message: str, at: int | None = None):
        pos = self.toks[self.i][2] if at is None else at
        where = "at the end" if pos >= len(self.text) else f"at column {pos + 1}"
        raise BadInput("parse", f"{message} {where} of {self.text!r}")

    def peek(self):
        return self.toks[self.i]

    def take(self):
        t = self.toks[self.i]
        self.i += 1
        return t

    def expect(self, kind: str, value: str | None = None):
        t = self.peek()
        if t[0] != kind or (value is not None and t[1] != value):
            self.error(f"expected {value or kind!r}, found {self.describe(t)}")
        return self.take()

    @staticmethod
    def describe(t) -> str:
        return "the end of the expression" if t[0] == "end" else repr(t[1])

    def parse(self):
        e = self.expr()
        t = self.peek()
        if t[0] != "end":
            self.unexpected(t)
        return e

    def unexpected(self, t):
        if t[0] == "sym" and t[1] in "-/.":
            what = {"-": "subtraction", "/": "division", ".": "decimal numbers"}[t[1]]
            self.error(f"{what} is not available (a client has only 0, 1, + and *; powers are natural)")
        self.error(f"unexpected {self.describe(t)}")

    def expr(self):
        self.depth += 1
        if self.depth > MAX_NESTING:
            raise BadInput("too-deep", f"expression nested more than {MAX_NESTING} levels deep")
        try:
            t = self.peek()
            if t[0] == "kw" and t[1] == "let":
                self.take()
                name = self.expect("name")[1]
                self.expect("sym", "=")
                bound = self.expr()
                self.expect("kw", "in")
                return Let(name, bound, self.expr())
            return self.sum()
        finally:
            self.depth -= 1

    def series(self, sym: str, item, make):
        """``item (sym item)*``: the one item, or ``make`` of all of them."""
        items = [item()]
        while self.peek()[:2] == ("sym", sym):
            self.take()
            items.append(item())
        return items[0] if len(items) == 1 else make(tuple(items))

    def sum(self):
        return self.series("+", self.prod, Sum)

    def prod(self):
        return self.series("*", self.pow, Prod)

    def pow(self):
        base = self.atom()
        if self.peek()[0] == "sym" and self.peek()[1] in ("^", "**"):
            self.take()
            t = self.peek()
            if t[0] != "nat":
                self.error(f"the exponent is a natural number, not {self.describe(t)}")
            self.take()
            k = int(t[1])
            if k > MAX_EXPONENT:
                self.error(f"exponent {k} is above {MAX_EXPONENT}", t[2])
            base = Pow(base, k)
            if self.peek()[0] == "sym" and self.peek()[1] in ("^", "**"):
                self.error("write (a^b)^c: chained powers are ambiguous")
        return base

    def atom(self):
        t = self.peek()
        if t[0] == "nat":
            self.take()
            n = int(t[1])
            if n > MAX_CONSTANT:
                self.error("constant too large", t[2])
            return Nat(n)
        if t[0] == "name":
            self.take()
            return Name(t[1])
        if t[:2] == ("sym", "("):
            self.take()
            e = self.expr()
            self.expect("sym", ")")
            return e
        self.unexpected(t)


def parse(text: str):
    """The expression written in ``text``; :class:`BadInput` if it is not one."""
    if len(text) > MAX_LENGTH:
        raise BadInput("too-large", f"expression longer than {MAX_LENGTH} characters")
    if not text.strip():
        raise BadInput("parse", "empty expression")
    return _Parser(text).parse()


def free_names(e, bound: frozenset = frozenset()) -> list[str]:
    """The free variables of ``e``, in order of first occurrence."""
    out: list[str] = []

    def go(e, bound):
        if isinstance(e, Name):
            if e.name not in bound and e.name not in out:
                out.append(e.name)
        elif isinstance(e, (Sum, Prod)):
            for c in (e.terms if isinstance(e, Sum) else e.factors):
                go(c, bound)
        elif isinstance(e, Pow):
            go(e.base, bound)
        elif isinstance(e, Let):
            go(e.bound, bound)
            go(e.body, bound | {e.name})

    go(e, bound)
    return out


def evaluate(e, d: Dictionary, env: dict):
    """``e`` on the dictionary ``d``, its variables valued by ``env``."""
    if isinstance(e, Nat):
        return natural(d, e.n)
    if isinstance(e, Name):
        return env[e.name]
    if isinstance(e, Sum):
        acc = evaluate(e.terms[0], d, env)
        for t in e.terms[1:]:
            acc = d.add(acc, evaluate(t, d, env))
        return acc
    if isinstance(e, Prod):
        acc = evaluate(e.factors[0], d, env)
        for t in e.factors[1:]:
            acc = d.mul(acc, evaluate(t, d, env))
        return acc
    if isinstance(e, Pow):
        return power(d, evaluate(e.base, d, env), e.k)
    if isinstance(e, Let):
        v = evaluate(e.bound, d, env)
        return evaluate(e.body, d, {**env, e.name: v})
    raise TypeError(f"not an expression: {e!r}")


def client(e, names: list[str]) -> Callable:
    """``e`` as a client: of one variable ``f(d, x)`` when ``names`` has one
    name, else of several, ``f(d, xs)``."""
    missing = [n for n in free_names(e) if n not in names]
    if missing:
        raise BadInput("unbound", f"unbound variable{'s' if len(missing) > 1 else ''}: {', '.join(missing)}")
    if len(names) == 1:
        return lambda d, x: evaluate(e, d, {names[0]: x})
    return lambda d, xs: evaluate(e, d, dict(zip(names, xs)))


def parse_sexp(s):
    """An expression from its S-expression (as :func:`revhandlers.sexpio.loads`
    reads it): natural numbers, names, ``(+ E E …)``, ``(* E E …)``,
    ``(^ E K)``, ``(let NAME E E)``; the form ``dbr-eval`` reads and
    :func:`revhandlers.dbr.engine.expr_sexp` prints."""
    def text(x):
        return x.value() if hasattr(x, "value") else x

    def go(s, depth):
        if depth > MAX_NESTING * 20:
            raise BadInput("too-deep", "expression nested too deeply")
        if isinstance(s, bool) or isinstance(s, float):
            raise BadInput("syntax", f"not an expression: {s!r}")
        if isinstance(s, int):
            if s < 0:
                raise BadInput("syntax", f"constants are natural numbers, not {s}")
            return Nat(s)
        if not isinstance(s, list):
            name = text(s)
            if not isinstance(name, str) or not re.fullmatch(r"[A-Za-z_][A-Za-z_0-9']*", name):
                raise BadInput("syntax", f"not a variable name: {name!r}")
            return Name(name)
        head = text(s[0]) if s else None
        if head in ("+", "*") and len(s) >= 3:
            parts = tuple(go(x, depth + 1) for x in s[1:])
            return Sum(parts) if head == "+" else Prod(parts)
        if head == "^" and len(s) == 3 and isinstance(s[2], int) and not isinstance(s[2], bool) and s[2] >= 0:
            return Pow(go(s[1], depth + 1), s[2])
        if head == "let" and len(s) == 4:
            return Let(go(s[1], depth + 1).name if not isinstance(s[1], list) else _bad_name(s[1]),
                       go(s[2], depth + 1), go(s[3], depth + 1))
        raise BadInput("syntax", f"not an expression: {s!r}"[:300])

    return go(s, 0)


def _bad_name(s):
    raise BadInput("syntax", f"a let binds a name, not {s!r}"[:300])
