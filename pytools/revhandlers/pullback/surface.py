"""The surface syntax of the pullback language, close to the paper's
notation, in Unicode or ASCII; a parser (:func:`parse`, errors with line and
column) and a pretty-printer (:func:`pretty`) with
``parse(pretty(t)) == t`` for every term.

| construct | Unicode | ASCII |
|---|---|---|
| abstraction | ``λx:σ. s`` | ``\\x:s. s`` |
| application | ``s p`` | ``s p`` |
| projections | ``π1(s)``, ``π2(s)`` | ``pi1(s)``, ``pi2(s)`` |
| pairs, n-tuples (nested to the left) | ``⟨p, q⟩``, ``⟨p, q, r⟩`` | ``<p, q>`` |
| function symbols | ``sin(p)``, ``add(p, q)`` = ``add(⟨p, q⟩)`` | same |
| Jacobian | ``J f · s`` | ``J f . s`` |
| dual map | ``(λx:σ. s1)* · s2`` | ``(\\x:s. s1)* . s2`` |
| pullback | ``(Ω λx:σ. p) · s`` | ``(Omega \\x:s. p) . s`` |
| numeric dual | ``[660, 528]*``, ``⟨1, 2⟩*``, ``[1]*`` | same |
| zero, sum | ``zero``, ``s + p`` | same |
| let | ``let z = e in l`` | same |
| types | ``R``, ``σ × τ``, ``σ ⇒ τ``, ``σ*``, ``Ω σ``, ``R^n`` | ``R``, ``s * t``, ``s -> t``, ``s*``, ``Omega s``, ``R^n`` |

Conventions:

* Every numeral (``0``, ``0.``, ``0.0``, ``-0``, ``3``, ``1e-3``) is a real
  constant; the zero term ``0`` of the paper, of every type, is written
  ``zero`` (a keyword), so a point ``⟨0, 0⟩`` is a pair of reals
  (``docs/decisions-pullback.md``, "The real 0 and the zero term").
* ``[r1, …, rn]`` is the column ``⟨r1, …, rn⟩`` of numerals; ``⟨…⟩*`` and
  ``[…]*`` make a numeric dual ``r*`` from a tuple of numerals and
  ``zero`` (the zero tuple ``NZ``, of every shape).
* ``+`` nests to the right (``P ::= 0 | S | S + P``); application to the
  left; ``σ × τ × ρ`` is ``(σ × τ) × ρ`` (so ``R × R × R = R^3``); ``⇒``
  nests to the right; ``Ω`` and the postfix ``*`` bind tighter than ``×``.
* The operand after ``·`` is an application or another ``·`` form
  (``A · B · ω`` is ``A · (B · ω)``); abstractions, ``let`` and sums there
  need parentheses, and so does a ``·`` form used as a function:
  ``(J f · v) r``.
* Binders may destructure tuples: ``λ⟨x, y⟩:R^2. s`` is ``λz:R^2. s`` with
  ``x = π1(z)``, ``y = π2(z)`` (spec §1); so may ``let`` and the binders of
  dual maps and pullbacks.
* The binder type ``?`` is an erased type (values printed by the driver).
* ``#`` starts a comment that runs to the end of the line.
* Keywords: ``let in J R Omega pi1 pi2 zero`` and the function symbols."""

from __future__ import annotations

import math
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from ..depth import MAX_NESTING, room, too_deep
from ..errors import BadInput
from .syntax import (FUNCTIONS, NP, NR, NZ, App, BTy, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus, Proj, R,
                     Real, TArr, TDual, Tm, TProd, Ty, Var, Zero, depth, rn_dim, tm_num)

KEYWORDS = frozenset({"let", "in", "J", "R", "Omega", "pi1", "pi2", "zero"}) | frozenset(FUNCTIONS)

T = TypeVar("T")

# ----------------------------------------------------------------- tokens

_TOKEN = re.compile(r"""
    (?P<ws>[ \t\r\n\f\v]+|\#[^\n]*)
  | (?P<num>-?[0-9]+(?:\.[0-9]+(?:[eE][+-]?[0-9]+)?|[eE][+-]?[0-9]+|\.(?=[,⟩>\])*]|\s*\Z))?)
  | (?P<proj>π[12])
  | (?P<name>(?![λΩπ])[^\W\d][\w']*)
  | (?P<sym>->|=>|[λ\\Ω()⟨⟩<>\[\],.·:=+*×⇒→^?])
""", re.VERBOSE)

# the ASCII and Unicode spellings of the same token
_CANON = {"\\": "λ", "<": "⟨", ">": "⟩", ".": "·", "->": "⇒", "=>": "⇒", "→": "⇒", "Omega": "Ω",
          "pi1": "π1", "pi2": "π2"}


@dataclass(frozen=True)
class Tok:
    kind: str      # "num", "name", or the canonical symbol itself ("comment" for a comment)
    text: str
    line: int
    col: int
    pos: int = 0   # the offset in the text


def _tokens(text: str, comments: list[Tok] | None = None) -> list[Tok]:
    """The tokens of ``text``, ending with ``eof``; its comments go to
    ``comments`` when given."""
    out: list[Tok] = []
    pos, line, start = 0, 1, 0
    n = len(text)
    while pos < n:
        m = _TOKEN.match(text, pos)
        if not m:
            raise BadInput("parse", f"line {line}, column {pos - start + 1}: unexpected character {text[pos]!r}")
        kind = m.lastgroup
        tok = m.group()
        col = pos - start + 1
        if kind == "ws":
            if comments is not None and tok.startswith("#"):
                comments.append(Tok("comment", tok, line, col, pos))
        elif kind == "name" and tok in _CANON:
            out.append(Tok(_CANON[tok], tok, line, col, pos))
        elif kind == "name":
            out.append(Tok("name", tok, line, col, pos))
        elif kind == "num":
            out.append(Tok("num", tok, line, col, pos))
        else:
            out.append(Tok(_CANON.get(tok, tok), tok, line, col, pos))
        nl = tok.count("\n")
        if nl:
            line += nl
            start = pos + tok.rindex("\n") + 1
        pos = m.end()
    out.append(Tok("eof", "", line, pos - start + 1, pos))
    return out


_DESCR = {"eof": "the end of the input", "num": "a number", "name": "a name"}

# ------------------------------------------------------------------ parser

# An environment entry: a name, the binder level it belongs to, and the
# access path (projections, 1 or 2) from that binder's variable.
_Entry = tuple[str, int, tuple[int, ...]]


class _Parser:
    def __init__(self, text: str, context: tuple[str, ...], comments: list[Tok] | None = None):
        self.toks = _tokens(text, comments)
        self.i = 0
        # the roles of the tokens whose spelling alone does not tell them (the
        # formatter's): index -> "binder" (the '.' after a binder's type) or
        # "product" (a '*' or '×' between types)
        self.roles: dict[int, str] = {}
        self.level = len(context)
        # context[0] is de Bruijn index 0, the innermost
        self.env: list[_Entry] = [(name, len(context) - 1 - k, ()) for k, name in enumerate(context)][::-1]
        self.nest = 0

    # ---- tokens
    @property
    def tok(self) -> Tok:
        return self.toks[self.i]

    def peek(self, k: int = 1) -> Tok:
        return self.toks[min(self.i + k, len(self.toks) - 1)]

    def error(self, message: str, tok: Tok | None = None, kind: str = "parse") -> BadInput:
        tok = tok or self.tok
        return BadInput(kind, f"line {tok.line}, column {tok.col}: {message}")

    def unexpected(self, expected: str) -> BadInput:
        t = self.tok
        found = _DESCR.get(t.kind) if t.kind == "eof" else repr(t.text)
        return self.error(f"expected {expected}, found {found}")

    def next(self) -> Tok:
        t = self.tok
        self.i += 1
        return t

    def expect(self, kind: str, what: str | None = None) -> Tok:
        if self.tok.kind != kind:
            raise self.unexpected(what or repr(kind))
        return self.next()

    def items(self, item: Callable[[], T], close: str) -> list[T]:
        """``item ("," item)* close``, after the opening bracket: the items."""
        out = [item()]
        while self.tok.kind == ",":
            self.next()
            out.append(item())
        self.expect(close, f"',' or '{close}'")
        return out

    def enter(self):
        self.nest += 1
        if self.nest > 8 * MAX_NESTING:      # a safety net: parse() checks the depth of the term
            raise too_deep()

    # ---- types
    def type_or_erased(self) -> BTy:
        if self.tok.kind == "?":
            self.next()
            return None
        return self.type()

    def _type_start(self, t: Tok) -> bool:
        return t.kind in ("(", "Ω") or (t.kind == "name" and t.text == "R")

    def type(self) -> Ty:
        self.enter()
        left = self.prod_type()
        if self.tok.kind == "⇒":
            self.next()
            left = TArr(left, self.type())
        self.nest -= 1
        return left

    def prod_type(self) -> Ty:
        left = self.pre_type()
        while self.tok.kind in ("×", "*") and (self.tok.kind == "×" or self._type_start(self.peek())):
            self.roles[self.i] = "product"
            self.next()
            left = TProd(left, self.pre_type())
        return left

    def pre_type(self) -> Ty:
        if self.tok.kind == "Ω":
            self.next()
            self.enter()
            a = self.pre_type()
            self.nest -= 1
            return TArr(a, TDual(a))
        t = self.atom_type()
        while self.tok.kind == "*" and not self._type_start(self.peek()):
            self.next()
            t = TDual(t)
        return t

    def atom_type(self) -> Ty:
        t = self.tok
        if t.kind == "(":
            self.next()
            a = self.type()
            self.expect(")", "')'")
            return a
        if t.kind == "name" and t.text == "R":
            self.next()
            if self.tok.kind == "^":
                self.next()
                n_tok = self.expect("num", "a dimension n ≥ 1 after R^")
                if not re.fullmatch(r"[0-9]+", n_tok.text) or not 1 <= int(n_tok.text[:6]) <= MAX_NESTING:
                    raise self.error(f"R^n takes a whole number n from 1 to {MAX_NESTING}, not {n_tok.text}", n_tok)
                n = int(n_tok.text)
                a: Ty = R
                for _ in range(n - 1):
                    a = TProd(a, R)
                return a
            return R
        raise self.unexpected("a type (R, R^n, Ω σ or a parenthesised type)")

    # ---- binders
    def pattern(self) -> list[tuple[str, tuple[int, ...], Tok]]:
        """A name or a tuple pattern ``⟨p1, …, pn⟩``: the names with their
        paths."""
        t = self.tok
        if t.kind == "name":
            if t.text in KEYWORDS:
                raise self.error(f"{t.text!r} is a keyword, not a variable name")
            self.next()
            return [(t.text, (), t)]
        if t.kind == "⟨":
            self.next()
            self.enter()
            parts = self.items(self.pattern, "⟩")
            self.nest -= 1
            if len(parts) < 2:
                raise self.error("a tuple pattern has at least two components", t)
            # ⟨p1, …, pn⟩ nests to the left: p1 is at π1^(n-1), pk (k ≥ 2) at π2 after π1^(n-k)
            out = []
            n = len(parts)
            for k, part in enumerate(parts):
                prefix = (1,) * (n - 1) if k == 0 else (1,) * (n - 1 - k) + (2,)
                out += [(name, prefix + path, tk) for name, path, tk in part]
            seen = set()
            for name, _, tk in out:
                if name in seen:
                    raise self.error(f"the name {name} occurs twice in a pattern", tk)
                seen.add(name)
            return out
        raise self.unexpected("a variable name or a tuple pattern ⟨x, y⟩")

    def bind(self, pat) -> int:
        """Bind a pattern at a new level; return the old environment length."""
        mark = len(self.env)
        for name, path, _ in pat:
            self.env.append((name, self.level, path))
        self.level += 1
        return mark

    def unbind(self, mark: int) -> None:
        del self.env[mark:]
        self.level -= 1

    def binder(self) -> tuple[list, BTy]:
        """``λpattern:type.`` after the λ."""
        pat = self.pattern()
        self.expect(":", "':' and the binder's type")
        ty = self.type_or_erased()
        self.roles[self.i] = "binder"
        self.expect("·", "'.' after the binder's type")
        return pat, ty

    def abstraction(self) -> tuple[BTy, Tm]:
        """``pattern:type. body`` after the λ: the binder's type and the body."""
        pat, ty = self.binder()
        return ty, self.under(pat)

    def under(self, pat) -> Tm:
        """A term in the scope of the names of ``pat``."""
        mark = self.bind(pat)
        body = self.term()
        self.unbind(mark)
        return body

    def lookup(self, tok: Tok) -> Tm:
        for name, level, path in reversed(self.env):
            if name == tok.text:
                t: Tm = Var(self.level - 1 - level)
                for i in path:
                    t = Proj(i, t)
                return t
        hint = ""
        if self.tok.kind == "(":
            hint = f" (the function symbols are {', '.join(sorted(FUNCTIONS))})"
        raise self.error(f"unbound variable {tok.text}{hint}", tok, kind="unbound")

    # ---- terms
    def term(self) -> Tm:
        self.enter()
        t = self.tok
        if t.kind == "λ":
            self.next()
            ty, body = self.abstraction()
            out: Tm = Lam(ty, body)
        elif t.kind == "name" and t.text == "let":
            self.next()
            pat = self.pattern()
            self.expect("=", "'='")
            e = self.term()
            if not (self.tok.kind == "name" and self.tok.text == "in"):
                raise self.unexpected("'in'")
            self.next()
            out = Let(e, self.under(pat))
        else:
            out = self.sum()
        self.nest -= 1
        return out

    def sum(self) -> Tm:
        left = self.dot()
        if self.tok.kind == "+":
            self.next()
            self.enter()
            right = self.sum_operand()
            self.nest -= 1
            return Plus(left, right)
        return left

    def sum_operand(self) -> Tm:
        if self.tok.kind == "λ" or (self.tok.kind == "name" and self.tok.text == "let"):
            raise self.error("an abstraction or a let after '+' needs parentheses")
        return self.sum()

    def operand(self) -> Tm:
        """The operand after ``·``."""
        self.expect("·", "'·' (or '.')")
        t = self.tok
        if t.kind == "λ" or (t.kind == "name" and t.text == "let"):
            raise self.error("an abstraction or a let after '·' needs parentheses")
        self.enter()
        out = self.dot()
        self.nest -= 1
        return out

    def dot(self) -> Tm:
        t = self.tok
        if t.kind == "name" and t.text == "J":
            self.next()
            f = self.tok
            if f.kind != "name" or f.text not in FUNCTIONS:
                raise self.error(f"J takes a function symbol ({', '.join(sorted(FUNCTIONS))})", f, kind="unbound"
                                 if f.kind == "name" and f.text not in KEYWORDS else "parse")
            self.next()
            return Jac(f.text, self.operand())
        if t.kind == "(" and self.peek().kind == "Ω":
            self.next()
            self.next()
            if self.tok.kind != "λ":
                raise self.unexpected("λ after Ω")
            self.next()
            ty, body = self.abstraction()
            self.expect(")", "')' closing (Ω λx:σ. p)")
            return Pb(ty, body, self.operand())
        if t.kind == "(" and self.peek().kind == "λ":
            self.next()
            self.next()
            ty, body = self.abstraction()
            self.expect(")", "')'")
            if self.tok.kind == "*":
                self.next()
                return Dual(ty, body, self.operand())
            return self.app(Lam(ty, body))
        return self.app(self.atom())

    def _atom_start(self, t: Tok) -> bool:
        if t.kind == "name":
            return t.text not in KEYWORDS or t.text in FUNCTIONS or t.text == "zero"
        return t.kind in ("num", "(", "⟨", "[", "π1", "π2")

    def app(self, head: Tm) -> Tm:
        while self._atom_start(self.tok):
            head = App(head, self.atom())
        return head

    def atom(self) -> Tm:
        self.enter()
        t = self.tok
        if t.kind == "name" and t.text in FUNCTIONS:
            self.next()
            self.expect("(", f"'(' after the function symbol {t.text}")
            out: Tm = Fun(t.text, _tuple(self.items(self.term, ")")))
        elif t.kind == "name" and t.text == "zero":
            self.next()
            out = Zero()
        elif t.kind == "name":
            if t.text in KEYWORDS:
                raise self.error(f"unexpected keyword {t.text!r}")
            self.next()
            out = self.lookup(t)
        elif t.kind == "num":
            self.next()
            out = self.number(t)
        elif t.kind in ("π1", "π2"):
            self.next()
            self.expect("(", f"'(' after {t.text}")
            s = self.term()
            self.expect(")", "')'")
            out = Proj(1 if t.kind == "π1" else 2, s)
        elif t.kind == "(":
            self.next()
            out = self.term()
            self.expect(")", "')'")
            if self.tok.kind == "*" and isinstance(out, Lam):
                raise self.error("a dual map is written (λx:σ. s)* · s', with one pair of parentheses around "
                                 "the abstraction, and needs parentheses around it as an argument")
        elif t.kind == "⟨":
            self.next()
            items = self.items(self.term, "⟩")
            if len(items) < 2:
                raise self.error("a tuple ⟨…⟩ has at least two components", t)
            out = _tuple(items)
        elif t.kind == "[":
            self.next()
            out = _tuple(self.items(lambda: self.number(self.expect("num", "a number")), "]"))
        else:
            raise self.unexpected("a term")
        if self.tok.kind == "*":
            star = self.next()
            r = tm_num(out)
            if r is None:
                raise self.error("only a tuple of numbers r makes a numeric dual r*", star)
            out = NDual(r)
        self.nest -= 1
        return out

    def number(self, t: Tok) -> Tm:
        x = float(t.text)
        if not math.isfinite(x):
            raise self.error(f"not a finite number: {t.text[:40]}", t, kind="number")
        return Real(x)


def _tuple(items: list[Tm]) -> Tm:
    out = items[0]
    for x in items[1:]:
        out = Pair(out, x)
    return out


def parse(text: str, context: tuple[str, ...] | list[str] = ()) -> Tm:
    """A term from its surface syntax.  ``context`` names the free variables
    (``context[0]`` is de Bruijn index 0).  Errors are :class:`BadInput`
    of kind ``parse`` (with line and column), ``unbound``, ``number`` or
    ``too-deep``."""
    context = tuple(context)
    for name in context:
        if not is_name(name):
            raise BadInput("syntax", f"{name!r} cannot be a variable name of the surface syntax")
    return _parse(text, context)[0]


def _parse(text: str, context: tuple[str, ...], comments: list[Tok] | None = None) -> tuple[Tm, _Parser]:
    with room():
        p = _Parser(text, context, comments)
        t = p.term()
        if p.tok.kind != "eof":
            raise p.unexpected("the end of the input" if p.tok.kind != "*" else "the end of the input "
                               "(only numeric tuples and (λx:σ. s) take a postfix *)")
    if depth(t) > MAX_NESTING:
        raise too_deep()
    return t, p


def scan(text: str) -> tuple[Tm, list[Tok], list[Tok], dict[int, str]]:
    """A closed term's text parsed (errors as :func:`parse`), with its
    tokens (without the end), its comments (``#`` to the end of a line) and
    the roles the parser gave some tokens: ``"binder"`` for the ``.`` that
    ends a binder, ``"product"`` for a ``*`` or ``×`` between two types,
    by their index in the tokens (what :mod:`.fmt` needs to lay the text
    out and change its notation)."""
    comments: list[Tok] = []
    t, p = _parse(text, (), comments)
    return t, p.toks[:-1], comments, p.roles


def parse_type(text: str) -> BTy:
    """A type (or ``?``) from its surface syntax."""
    with room():
        p = _Parser(text, ())
        t = p.type_or_erased()
        if p.tok.kind != "eof":
            raise p.unexpected("the end of the type")
    return t


_NAME = re.compile(r"(?![λΩπ])[^\W\d][\w']*\Z")


def is_name(x: str) -> bool:
    """Whether ``x`` can be a variable name of the surface syntax."""
    return bool(_NAME.match(x)) and x not in KEYWORDS and x not in _CANON


# ---------------------------------------------------------------- printing

_UNICODE = {"lam": "λ", "lt": "⟨", "gt": "⟩", "dot": "·", "arrow": "⇒", "times": "×", "omega": "Ω",
            "pi1": "π1", "pi2": "π2"}
_ASCII = {"lam": "\\", "lt": "<", "gt": ">", "dot": ".", "arrow": "->", "times": "*", "omega": "Omega",
          "pi1": "pi1", "pi2": "pi2"}


def fmt_real(x: float, lenient: bool = False) -> str:
    """A real constant as a numeral: integers without a decimal point
    (``-0.0`` keeps its sign), else ``repr``.  ``inf`` and
    ``nan`` are not numerals: an error, or with ``lenient`` (to show a
    result, not to be read back) ``inf``, ``-inf``, ``nan``."""
    x = float(x)
    if not math.isfinite(x):
        if lenient:
            return repr(x)
        raise BadInput("number", f"{x} cannot be written in the surface syntax")
    if x == 0 and math.copysign(1.0, x) < 0:
        return "-0.0"
    if x.is_integer() and abs(x) < 1e15:
        return str(int(x))
    return repr(x)


def pretty_type(t: BTy, ascii: bool = False, level: int = 0) -> str:
    """A type; ``level``: 0 any, 1 a product's left operand, 2 after Ω or a
    product's right operand, 3 before a postfix ``*``."""
    c = _ASCII if ascii else _UNICODE
    if t is None:
        return "?"
    if getattr(t, "is_tvar", False):        # a type variable of the checker
        return str(t)
    if t == R:
        return "R"
    n = rn_dim(t)
    if n is not None:
        return f"R^{n}"
    if isinstance(t, TDual) and rn_dim(t.A) is not None and t.A != R:
        s, own = f"({pretty_type(t.A, ascii)})*", 3          # (R^n)*, as the paper writes it
    elif isinstance(t, TDual):
        s, own = pretty_type(t.A, ascii, 3) + "*", 3
    elif isinstance(t, TArr) and t.B == TDual(t.A):
        s, own = f"{c['omega']} " + pretty_type(t.A, ascii, 2), 2
    elif isinstance(t, TProd):
        s, own = pretty_type(t.A, ascii, 1) + f" {c['times']} " + pretty_type(t.B, ascii, 2), 1
    elif isinstance(t, TArr):
        s, own = pretty_type(t.A, ascii, 1) + f" {c['arrow']} " + pretty_type(t.B, ascii, 0), 0
    else:
        raise TypeError(f"not a type: {t!r}")
    return s if own >= level else f"({s})"


def _flat_vec(r: Num) -> list[float] | None:
    """``[x1, …, xn]`` if ``r`` is a left-nested tuple of scalars."""
    out: list[float] = []
    while isinstance(r, NP):
        if not isinstance(r.b, NR):
            return None
        out.append(r.b.r)
        r = r.a
    if not isinstance(r, NR):
        return None
    out.append(r.r)
    return out[::-1]


def pretty_num(r: Num, ascii: bool = False, lenient: bool = False) -> str:
    c = _ASCII if ascii else _UNICODE
    v = _flat_vec(r)
    if v is not None:
        return "[" + ", ".join(fmt_real(x, lenient) for x in v) + "]"
    if isinstance(r, NZ):
        return "zero"

    def go(u: Num) -> str:
        if isinstance(u, NR):
            return fmt_real(u.r, lenient)
        if isinstance(u, NZ):
            return "zero"
        items = [u.b]
        while isinstance(u.a, NP):
            u = u.a
            items.append(u.b)
        items.append(u.a)
        return c["lt"] + ", ".join(go(x) for x in reversed(items)) + c["gt"]
    return go(r)


def _base(ty: BTy, ascii: bool) -> str:
    if ty == R or ty is None:
        return "x"
    if isinstance(ty, TArr) and ty.B == TDual(ty.A):
        return "w" if ascii else "ω"
    if isinstance(ty, TArr):
        return "f"
    if isinstance(ty, TDual):
        return "phi" if ascii else "φ"
    return "p"


class _Printer:
    def __init__(self, ascii: bool, context: tuple[str, ...], lenient: bool = False):
        self.ascii = ascii
        self.lenient = lenient
        self.c = _ASCII if ascii else _UNICODE
        self.scope: list[str] = list(reversed(context))     # the innermost last
        self.used = set(context)

    def fresh(self, base: str) -> str:
        name, k = base, 0
        while name in self.used or name in KEYWORDS:
            k += 1
            name = f"{base}{k}"
        return name

    def under(self, base: str, fn):
        name = self.fresh(base)
        self.scope.append(name)
        self.used.add(name)
        try:
            return name, fn()
        finally:
            self.scope.pop()
            self.used.discard(name)

    def ty(self, t: BTy) -> str:
        return pretty_type(t, self.ascii)

    def tm(self, t: Tm, level: int = 0) -> str:
        """``level``: 0 any term, 1 a sum, 2 a ``·`` form, 3 an application,
        4 an atom."""
        c = self.c
        match t:
            case Var(n):
                if n >= len(self.scope):
                    raise BadInput("unbound", f"the free variable #{n - len(self.scope)} has no name "
                                              "(pass its name in the context)")
                return self.scope[-1 - n]
            case Real(r):
                return fmt_real(r, self.lenient)
            case Zero():
                return "zero"
            case NDual(r):
                return pretty_num(r, self.ascii, self.lenient) + "*"
            case Pair():
                items = [t.s2]
                u = t.s1
                while isinstance(u, Pair):
                    items.append(u.s2)
                    u = u.s1
                items.append(u)
                return c["lt"] + ", ".join(self.tm(x) for x in reversed(items)) + c["gt"]
            case Proj(i, s):
                return f"{c['pi1'] if i == 1 else c['pi2']}({self.tm(s)})"
            case Fun(f, p):
                if isinstance(p, Pair):
                    inner = self.tm(p)
                    return f"{f}({inner[len(c['lt']):-len(c['gt'])]})"
                return f"{f}({self.tm(p)})"
            case App(s, p):
                out, own = f"{self.tm(s, 3)} {self.tm(p, 4)}", 3
            case Jac(f, s):
                out, own = f"J {f} {c['dot']} {self.tm(s, 2)}", 2
            case Dual(ty, s1, s2):
                name, body = self.under("v", lambda: self.tm(s1))
                out, own = f"({c['lam']}{name}:{self.ty(ty)}. {body})* {c['dot']} {self.tm(s2, 2)}", 2
            case Pb(ty, p, s):
                name, body = self.under("y", lambda: self.tm(p))
                out, own = f"({c['omega']} {c['lam']}{name}:{self.ty(ty)}. {body}) {c['dot']} {self.tm(s, 2)}", 2
            case Plus(s, p):
                out, own = f"{self.tm(s, 2)} + {self.tm(p, 1)}", 1
            case Lam(ty, s):
                name, body = self.under(_base(ty, self.ascii), lambda: self.tm(s))
                out, own = f"{c['lam']}{name}:{self.ty(ty)}. {body}", 0
            case Let(e, l):
                bound = self.tm(e)
                name, body = self.under("z", lambda: self.tm(l))
                out, own = f"let {name} = {bound} in {body}", 0
            case _:
                raise TypeError(f"not a term: {t!r}")
        return out if own >= level else f"({out})"


def pretty(t: Tm, ascii: bool = False, context: tuple[str, ...] | list[str] = (), lenient: bool = False) -> str:
    """``t`` in the surface syntax, Unicode or ``ascii``; ``context`` names
    the free variables (``context[0]`` is index 0).  Bound variables get
    fresh names (never shadowing), so ``parse(pretty(t), context) == t``.
    A non-finite number is an error, or with ``lenient`` (to show a
    computed value) is written ``inf``, ``-inf``, ``nan``."""
    context = tuple(context)
    for name in context:
        if not is_name(name):
            raise BadInput("syntax", f"{name!r} cannot be a variable name of the surface syntax")
    with room():
        return _Printer(ascii, context, lenient).tm(t)
