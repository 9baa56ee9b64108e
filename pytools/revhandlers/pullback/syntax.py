"""The abstract syntax of the pullback language, one frozen dataclass per
constructor of the Coq development (``theories/pullback/syntax.v``: ``ty``,
``num``, ``tm``), with the same names (checked by
``tests/pullback/test_syntax.py``).

Two differences from Coq, on purpose:

* the binders :class:`Lam`, :class:`Dual` and :class:`Pb` carry the type of
  their bound variable (``ty``), which the type checker needs (the Coq
  relation ``typed`` guesses it); ``None`` is an *erased* type, printed
  ``?`` (the driver prints values that way);
* :class:`Proj` counts from 1 as the paper does (``Proj(1, s)`` is ``π1(s)``,
  Coq's ``Proj false s``).

Binders are de Bruijn indices, as in Coq: :class:`Lam` ``(ty, s)``, the dual
map :class:`Dual` ``(ty, s1, s2)`` = ``(λx:ty. s1)* · s2`` and the pullback
:class:`Pb` ``(ty, p, s)`` = ``(Ω λx:ty. p) · s`` bind index 0 in their first
term only; :class:`Let` ``(e, l)`` binds index 0 in ``l``.

Function symbols are names of :data:`FUNCTIONS` with their arities
``f : R^n → R^m`` (Coq's ``fdom``/``fcod``); their values and Jacobians are in
:mod:`.reference`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

from ..tree import Node

# ----------------------------------------------------------------- types


class TR(Node):
    """``R``: Coq ``TR``."""


class TProd(Node):
    """``A × B``: Coq ``TProd``."""
    A: "Ty"
    B: "Ty"


class TArr(Node):
    """``A ⇒ B``: Coq ``TArr``."""
    A: "Ty"
    B: "Ty"


class TDual(Node):
    """``A*``, the linear functionals on ``A``: Coq ``TDual``."""
    A: "Ty"


Ty = Union[TR, TProd, TArr, TDual]
#: a binder's type, ``None`` when erased (``?``)
BTy = Optional[Ty]

R = TR()


def TOmega(a: Ty) -> Ty:
    """``Ω σ = σ ⇒ σ*``, the 1-forms on ``σ``: Coq ``TOmega``."""
    return TArr(a, TDual(a))


def Rn(n: int) -> Ty:
    """``R^n``, left-nested (``R^(n+1) = R^n × R``); ``R^0`` reads as ``R``:
    Coq ``Rn``."""
    t: Ty = R
    for _ in range(n - 1):
        t = TProd(t, R)
    return t


def rn_dim(t: Ty) -> int | None:
    """``n`` if ``t`` is ``R^n``, else ``None``."""
    n = 1
    while isinstance(t, TProd):
        if t.B != R:
            return None
        t, n = t.A, n + 1
    return n if t == R else None


def is_ground(t: BTy) -> bool:
    """``R`` and products of ground types: the types of numeric tuples."""
    stack = [t]
    while stack:
        u = stack.pop()
        if isinstance(u, TProd):
            stack += [u.A, u.B]
        elif u != R:
            return False
    return True


# ----------------------------------------------------------- numeric tuples


class NR(Node):
    """A scalar: Coq ``NR``."""
    r: float


class NP(Node):
    """A pair of numeric tuples: Coq ``NP``."""
    a: "Num"
    b: "Num"


class NZ(Node):
    """The zero tuple of any shape: Coq ``NZ``."""


Num = Union[NR, NP, NZ]


# ----------------------------------------------------------------- terms


class Var(Node):
    """``x``, the de Bruijn index ``n``: Coq ``Var``."""
    n: int


class Lam(Node):
    """``λx:ty. s``: Coq ``Lam`` (binds index 0 in ``s``)."""
    ty: BTy
    s: "Tm"


class App(Node):
    """``s p``: Coq ``App``."""
    s: "Tm"
    p: "Tm"


class Proj(Node):
    """``πi(s)``, ``i`` ∈ {1, 2}: Coq ``Proj`` (``Proj false`` is ``π1``)."""
    i: int
    s: "Tm"


class Pair(Node):
    """``⟨s1, s2⟩``: Coq ``Pair``."""
    s1: "Tm"
    s2: "Tm"


class Real(Node):
    """A real constant ``r``: Coq ``Real``."""
    r: float


class Fun(Node):
    """``f(p)`` for a function symbol ``f``: Coq ``Fun``."""
    f: str
    p: "Tm"


class Jac(Node):
    """``J f · s``, the Jacobian of ``f`` along ``s`` (a function of the base
    point): Coq ``Jac``."""
    f: str
    s: "Tm"


class Dual(Node):
    """``(λx:ty. s1)* · s2``, the dual map: Coq ``Dual`` (binds index 0 in
    ``s1`` only)."""
    ty: BTy
    s1: "Tm"
    s2: "Tm"


class Pb(Node):
    """``(Ω λx:ty. p) · s``, the pullback of the 1-form ``s`` along
    ``λx.p``: Coq ``Pb`` (binds index 0 in ``p`` only)."""
    ty: BTy
    p: "Tm"
    s: "Tm"


class NDual(Node):
    """``r*``, a numeric dual: Coq ``NDual``."""
    r: Num


class Zero(Node):
    """``0``, of every type: Coq ``Zero``."""


class Plus(Node):
    """``s + p``: Coq ``Plus``."""
    s: "Tm"
    p: "Tm"


class Let(Node):
    """``let z = e in l``: Coq ``Let`` (binds index 0 in ``l``)."""
    e: "Tm"
    l: "Tm"


Tm = Union[Var, Lam, App, Proj, Pair, Real, Fun, Jac, Dual, Pb, NDual, Zero, Plus, Let]

#: the Python class of each Coq constructor
TM_CONSTRUCTORS = (Var, Lam, App, Proj, Pair, Real, Fun, Jac, Dual, Pb, NDual, Zero, Plus, Let)
TY_CONSTRUCTORS = (TR, TProd, TArr, TDual)
NUM_CONSTRUCTORS = (NR, NP, NZ)


# ------------------------------------------------------- function symbols


@dataclass(frozen=True)
class FunSym:
    """A function symbol ``f : R^dom → R^cod``."""
    name: str
    dom: int
    cod: int
    doc: str


#: the signature F: every function symbol with its arity
FUNCTIONS: dict[str, FunSym] = {f.name: f for f in (
    FunSym("add", 2, 1, "add(⟨a, b⟩) = a + b"),
    FunSym("mul", 2, 1, "mul(⟨a, b⟩) = a · b"),
    FunSym("neg", 1, 1, "neg(a) = −a"),
    FunSym("sin", 1, 1, "sin(a)"),
    FunSym("cos", 1, 1, "cos(a)"),
    FunSym("exp", 1, 1, "exp(a)"),
    FunSym("sq", 1, 1, "sq(a) = a²"),
)}


# ---------------------------------------------------------------- helpers


def num_tm(r: Num) -> Tm:
    """A numeric tuple as a term (Coq ``num_tm``): ``NZ`` is ``0``."""
    if isinstance(r, NR):
        return Real(r.r)
    if isinstance(r, NP):
        return Pair(num_tm(r.a), num_tm(r.b))
    return Zero()


def tm_num(t: Tm) -> Num | None:
    """The numeric tuple a term is the image of by :func:`num_tm`, if any."""
    if isinstance(t, Real):
        return NR(t.r)
    if isinstance(t, Zero):
        return NZ()
    if isinstance(t, Pair):
        a, b = tm_num(t.s1), tm_num(t.s2)
        return None if a is None or b is None else NP(a, b)
    return None


def vec(*xs: float) -> Num:
    """The left-nested numeric tuple ``[x1, …, xn]``."""
    r: Num = NR(float(xs[0]))
    for x in xs[1:]:
        r = NP(r, NR(float(x)))
    return r


def tuple_tm(*items: Tm) -> Tm:
    """``⟨t1, …, tn⟩``, left-nested."""
    t = items[0]
    for x in items[1:]:
        t = Pair(t, x)
    return t


def children(t: Tm) -> tuple:
    """The immediate subterms (terms only, not types or numbers)."""
    match t:
        case Lam(_, s) | Proj(_, s) | Fun(_, s) | Jac(_, s):
            return (s,)
        case App(a, b) | Pair(a, b) | Plus(a, b) | Let(a, b) | Dual(_, a, b) | Pb(_, a, b):
            return (a, b)
    return ()


def binds(t: Tm) -> tuple[bool, ...]:
    """For each child of ``t``, whether it is under the binder of ``t``."""
    match t:
        case Lam():
            return (True,)
        case Dual() | Pb():
            return (True, False)
        case Let():
            return (False, True)
    return (False,) * len(children(t))


def free_vars(t: Tm) -> frozenset[int]:
    """The free de Bruijn indices of ``t`` (without recursion)."""
    out: set[int] = set()
    stack = [(t, 0)]
    while stack:
        u, d = stack.pop()
        if isinstance(u, Var):
            if u.n >= d:
                out.add(u.n - d)
            continue
        for c, b in zip(children(u), binds(u)):
            stack.append((c, d + 1 if b else d))
    return frozenset(out)


def ty_depth(t: BTy) -> int:
    deepest, stack = 0, [(t, 1)]
    while stack:
        u, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(u, (TProd, TArr)):
            stack += [(u.A, d + 1), (u.B, d + 1)]
        elif isinstance(u, TDual):
            stack.append((u.A, d + 1))
    return deepest


def num_depth(r: Num) -> int:
    deepest, stack = 0, [(r, 1)]
    while stack:
        u, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(u, NP):
            stack += [(u.a, d + 1), (u.b, d + 1)]
    return deepest


def depth(t: Tm) -> int:
    """The nesting depth of ``t`` as its S-expression counts it: every term,
    type and numeric tuple is one level (without recursion)."""
    deepest, stack = 0, [(t, 1)]
    while stack:
        u, d = stack.pop()
        deepest = max(deepest, d)
        if isinstance(u, (Lam, Dual, Pb)) and u.ty is not None:
            deepest = max(deepest, d + ty_depth(u.ty))
        if isinstance(u, NDual):
            deepest = max(deepest, d + num_depth(u.r))
        stack.extend((c, d + 1) for c in children(u))
    return deepest


def size(t: Tm) -> int:
    """The number of term nodes of ``t``."""
    n, stack = 0, [t]
    while stack:
        u = stack.pop()
        n += 1
        stack.extend(children(u))
    return n


def ren(t: Tm, rho, cutoff: int = 0) -> Tm:
    """Rename the free indices of ``t`` by ``rho`` (Coq ``ren``): an index
    ``n ≥ cutoff`` (past the binders crossed) becomes ``rho(n - cutoff) + cutoff``."""
    match t:
        case Var(n):
            return Var(n if n < cutoff else rho(n - cutoff) + cutoff)
        case Lam(ty, s):
            return Lam(ty, ren(s, rho, cutoff + 1))
        case App(s, p):
            return App(ren(s, rho, cutoff), ren(p, rho, cutoff))
        case Proj(i, s):
            return Proj(i, ren(s, rho, cutoff))
        case Pair(a, b):
            return Pair(ren(a, rho, cutoff), ren(b, rho, cutoff))
        case Fun(f, p):
            return Fun(f, ren(p, rho, cutoff))
        case Jac(f, s):
            return Jac(f, ren(s, rho, cutoff))
        case Dual(ty, s1, s2):
            return Dual(ty, ren(s1, rho, cutoff + 1), ren(s2, rho, cutoff))
        case Pb(ty, p, s):
            return Pb(ty, ren(p, rho, cutoff + 1), ren(s, rho, cutoff))
        case Plus(a, b):
            return Plus(ren(a, rho, cutoff), ren(b, rho, cutoff))
        case Let(e, l):
            return Let(ren(e, rho, cutoff), ren(l, rho, cutoff + 1))
    return t


def shift(t: Tm, k: int = 1) -> Tm:
    """``↑t``: every free index up by ``k`` (Coq ``shift``, ``k`` times)."""
    return ren(t, lambda n: n + k) if k else t
