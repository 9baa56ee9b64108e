"""A type checker mirroring the typing relation of the Coq development
(``typed`` in ``theories/pullback/typing.v``) rule for rule, with the
linearity side condition of (dual) as ``lin`` and ``nocc`` of
``theories/pullback/syntax.v``.  Every branch names its Coq rule, and so
does every error (:class:`revhandlers.errors.TypeCheckError`'s ``rule``).

The Coq relation is declarative: ``0`` (``typed_zero``) and the zero tuple
``NZ`` (``num_ty_z``) have every type, so a term's type is not always
determined by its subterms' (``⟨v, 0⟩`` in ``(λv:R^2. ⟨v, 0⟩)* · ⟨⟨0, 0⟩,
⟨1, 2⟩⟩*`` gets its type from the functional).  The checker therefore
gives ``0`` and ``NZ`` a fresh *type variable* (:class:`TVar`) and solves
the equalities the rules ask for (``σ`` of (app) in both premises, ``τ`` of
(dual) and (pb), …) by unification, rule by rule, as they arise.  This is
exactly the Coq relation for annotated binders: a derivation exists iff the
equalities have a solution, and a type variable left over may be any type
(:func:`check` ``(Γ, t, A)`` accepts ``0`` at every ``A``).  An erased
binder type (``?``, in values printed by the driver) is a type variable as
well, so values type-check too.

A context ``Γ`` is a tuple of types, ``Γ[0]`` the type of index 0, as in
Coq (``nth_error Γ n``)."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, NamedTuple

from ..depth import room
from ..errors import BadInput, TypeCheckError
from ..tree import preorder
from .sexp import to_sexp
from .surface import pretty_type
from .syntax import (FUNCTIONS, NP, NR, NZ, TR, App, BTy, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus, Proj,
                     Real, Rn, TArr, TDual, Tm, TOmega, TProd, Ty, Var, Zero, children, free_vars)

#: the constructors of ``typed`` (typing.v), in its order
RULES = ("typed_zero", "typed_plus", "typed_var", "typed_lam", "typed_app", "typed_proj1", "typed_proj2",
         "typed_pair", "typed_real", "typed_fun", "typed_jac", "typed_ndual", "typed_dual", "typed_pb",
         "typed_let")

Ctx = tuple


class TVar:
    """A type variable: the type of a ``0``, an ``NZ`` or an erased binder,
    until unification determines it (not a Coq constructor)."""

    is_tvar = True
    __slots__ = ("k",)

    def __init__(self, k: int):
        self.k = k

    def __repr__(self):
        return f"TVar({self.k})"

    def __eq__(self, other):
        return isinstance(other, TVar) and other.k == self.k

    def __hash__(self):
        return hash(("TVar", self.k))

    def __str__(self):
        return f"'{self.k}"


def show(t) -> str:
    """A type, its type variables written ``'1``, ``'2``, …"""
    return pretty_type(t)


def _snippet(t: Tm) -> str:
    """The term (its S-expression, abbreviated) for a message."""
    try:
        s = to_sexp(t)
    except BadInput:               # a non-finite number in a term built by hand
        return type(t).__name__
    return s if len(s) <= 80 else s[:77] + "..."


def _type_parts(u) -> tuple:
    """The component types of a type (none for ``R`` or a variable)."""
    if isinstance(u, (TProd, TArr)):
        return (u.A, u.B)
    if isinstance(u, TDual):
        return (u.A,)
    return ()


def _fail(rule: str, message: str, t: Tm) -> TypeCheckError:
    return TypeCheckError(rule, f"{message} (in {_snippet(t)})")


class _MapRule(NamedTuple):
    """A rule that types a map applied to an argument, (dual) or (pb): the
    argument has type ``expected(τ)`` for the body's type τ, a type whose
    head is ``head``; ``what`` names the argument in messages."""
    name: str
    what: str
    head: type
    expected: Callable[[Any], Any]
    expected_text: str


_DUAL = _MapRule("typed_dual", "the functional", TDual, TDual, "a dual type τ*")
_PB = _MapRule("typed_pb", "the 1-form", TArr, TOmega, "Ω τ = τ ⇒ τ*")


# --------------------------------------------------------- linearity (syntax.v)

def lift(X: frozenset) -> frozenset:
    """Coq ``lift X``: the same variables seen under one more binder."""
    return frozenset(n + 1 for n in X)


def ext(X: frozenset) -> frozenset:
    """Coq ``ext X``: ``lift X`` and the bound variable."""
    return lift(X) | {0}


def nocc(X: frozenset, t: Tm) -> bool:
    """Coq ``nocc X t``: no variable of ``X`` is free in ``t``."""
    return not (X & free_vars(t))


def lin(X: frozenset, t: Tm) -> bool:
    """Coq ``lin X t``: ``t`` is jointly linear in the variables of ``X``
    (spec §2.2, extended: ``lin(0)`` is every variable, ``lin(S + P)`` the
    intersection, ``FV(λx.S1)`` in the dual-map clause, and the let clause
    of syntax.v)."""
    match t:
        case Var(n):
            return n in X
        case Lam(_, s):
            return lin(lift(X), s)
        case App(s, p):
            return lin(X, s) and nocc(X, p)
        case Proj(_, s) | Jac(_, s):
            return lin(X, s)
        case Pair(a, b) | Plus(a, b):
            return lin(X, a) and lin(X, b)
        case Dual(_, s1, s2):
            return ((lin(lift(X), s1) and nocc(X, s2)) or (lin(X, s2) and nocc(lift(X), s1)))
        case Zero():
            return True
        case Let(e, l):
            return (lin(X, e) and lin(ext(X), l)) or (nocc(X, e) and lin(lift(X), l))
        case Real() | Fun() | Pb() | NDual():
            return False
    raise TypeError(f"not a term: {t!r}")


IS0 = frozenset({0})


# ----------------------------------------------------------- numeric tuples

def num_check(r: Num, a: Ty) -> bool:
    """Coq ``num_ty r a`` (for a type without variables)."""
    match r:
        case NR():
            return a == TR()
        case NP(x, y):
            return isinstance(a, TProd) and num_check(x, a.A) and num_check(y, a.B)
        case NZ():
            return True
    return False


# ------------------------------------------------------------ unification

class _Solver:
    """Type variables and their solutions (a substitution kept solved)."""

    def __init__(self):
        self.sol: dict[int, object] = {}
        self.count = 0

    def fresh(self) -> TVar:
        self.count += 1
        return TVar(self.count)

    def walk(self, t):
        while isinstance(t, TVar) and t.k in self.sol:
            t = self.sol[t.k]
        return t

    def resolve(self, t):
        """``t`` with every solved variable replaced (without recursion)."""
        t = self.walk(t)
        if isinstance(t, TVar) or t == TR():
            return t
        # rebuild bottom-up
        stack, out = [(t, False)], []
        while stack:
            u, done = stack.pop()
            u = self.walk(u)
            if isinstance(u, (TProd, TArr)):
                if done:
                    b, a = out.pop(), out.pop()
                    out.append(type(u)(a, b))
                else:
                    stack += [(u, True), (u.B, False), (u.A, False)]
            elif isinstance(u, TDual):
                if done:
                    out.append(TDual(out.pop()))
                else:
                    stack += [(u, True), (u.A, False)]
            else:
                out.append(u)
        return out[0]

    def occurs(self, k: int, t) -> bool:
        walked = preorder(self.walk(t), lambda u: [self.walk(x) for x in _type_parts(u)])
        return any(isinstance(u, TVar) and u.k == k for u in walked)

    def unify(self, a, b) -> bool:
        """Make ``a`` and ``b`` equal, or return False (the solution may then
        be partly extended: the caller fails)."""
        stack = [(a, b)]
        while stack:
            x, y = stack.pop()
            x, y = self.walk(x), self.walk(y)
            if x is y:
                continue
            if isinstance(x, TVar) and isinstance(y, TVar) and x.k == y.k:
                continue
            if isinstance(x, TVar) or isinstance(y, TVar):
                v, u = (x, y) if isinstance(x, TVar) else (y, x)
                if self.occurs(v.k, u):
                    return False
                self.sol[v.k] = u
            elif type(x) is not type(y):
                return False
            elif isinstance(x, (TProd, TArr)):
                stack += [(x.A, y.A), (x.B, y.B)]
            elif isinstance(x, TDual):
                stack.append((x.A, y.A))
        return True


# ------------------------------------------------------------------ rules

class _Checker:
    def __init__(self, zs: list | None = None):
        self.s = _Solver()
        # ``zs``: where the ``0``s and sums outside dual maps' bodies are
        # recorded with their types (:func:`outside_ztyped`); ``body``: how
        # many dual maps' bodies the term being typed is in
        self.zs = zs
        self.body = 0

    def record(self, t: Tm, a):
        """``a``, the type of ``t`` (a ``0`` or a sum), recorded when
        :func:`outside_ztyped` asks and ``t`` is outside dual maps' bodies."""
        if self.zs is not None and self.body == 0:
            self.zs.append((t, a))
        return a

    def show(self, t) -> str:
        return show(self.s.resolve(t))

    def need(self, rule: str, a, b, what: str, t: Tm) -> None:
        """The premise's equality ``a = b`` (``a`` what was found)."""
        if not self.s.unify(a, b):
            raise _fail(rule, f"{what} has type {self.show(a)}, expected {self.show(b)}", t)

    def binder(self, ty: BTy):
        return self.s.fresh() if ty is None else ty

    def map_and_argument(self, rule: _MapRule, ctx: Ctx, ty: BTy, body: Tm, arg: Tm, t: Tm):
        """The premises (dual) and (pb) share: σ :: Γ ⊢ ``body`` : τ and
        Γ ⊢ ``arg`` : ``rule.expected(τ)``; returns σ, the binder's type."""
        a = self.binder(ty)
        inside = rule is _DUAL
        self.body += inside
        tau = self.infer((a,) + ctx, body)
        self.body -= inside
        got = self.s.walk(self.infer(ctx, arg))
        if not isinstance(got, (rule.head, TVar)):
            raise _fail(rule.name, f"{rule.what} has type {self.show(got)}, not {rule.expected_text}", t)
        self.need(rule.name, got, rule.expected(tau), rule.what, t)
        return a

    def fun(self, f: str):
        if f not in FUNCTIONS:
            raise BadInput("unbound", f"unknown function symbol {f}")
        return FUNCTIONS[f]

    def num(self, r: Num):
        """The most general type of a numeric tuple (num_ty)."""
        match r:
            case NR():
                return TR()
            case NP(x, y):
                return TProd(self.num(x), self.num(y))
        return self.s.fresh()          # num_ty_z: NZ has every type

    def infer(self, ctx: Ctx, t: Tm):
        match t:
            case Zero():
                # typed_zero: Γ ⊢ 0 : σ for every σ
                return self.record(t, self.s.fresh())
            case Plus(s, p):
                # typed_plus: Γ ⊢ S : σ, Γ ⊢ P : σ  ⟹  Γ ⊢ S + P : σ
                a = self.infer(ctx, s)
                b = self.infer(ctx, p)
                self.need("typed_plus", b, a, "the right operand of + (the left has the type expected)", t)
                return self.record(t, a)
            case Var(n):
                # typed_var: nth_error Γ n = Some σ  ⟹  Γ ⊢ x : σ
                if n >= len(ctx):
                    raise _fail("typed_var", f"the variable #{n} is not bound (the context has {len(ctx)})", t)
                return ctx[n]
            case Lam(ty, s):
                # typed_lam: σ :: Γ ⊢ S : τ  ⟹  Γ ⊢ λx:σ. S : σ ⇒ τ
                a = self.binder(ty)
                return TArr(a, self.infer((a,) + ctx, s))
            case App(s, p):
                # typed_app: Γ ⊢ S : σ ⇒ τ, Γ ⊢ P : σ  ⟹  Γ ⊢ S P : τ
                f = self.s.walk(self.infer(ctx, s))
                a = self.infer(ctx, p)
                if isinstance(f, TVar):
                    b = self.s.fresh()
                    self.need("typed_app", f, TArr(a, b), "the function", t)
                    return b
                if not isinstance(f, TArr):
                    raise _fail("typed_app", f"the function has type {self.show(f)}, not an arrow σ ⇒ τ", t)
                self.need("typed_app", a, f.A, "the argument", t)
                return f.B
            case Proj(i, s):
                # typed_proj1 / typed_proj2: Γ ⊢ S : σ1 × σ2  ⟹  Γ ⊢ πi(S) : σi
                rule = "typed_proj1" if i == 1 else "typed_proj2"
                a = self.s.walk(self.infer(ctx, s))
                if isinstance(a, TVar):
                    b, c = self.s.fresh(), self.s.fresh()
                    self.need(rule, a, TProd(b, c), f"the argument of π{i}", t)
                    a = TProd(b, c)
                if not isinstance(a, TProd):
                    raise _fail(rule, f"π{i} of a term of type {self.show(a)}, not a product", t)
                return a.A if i == 1 else a.B
            case Pair(a, b):
                # typed_pair: Γ ⊢ S1 : σ1, Γ ⊢ S2 : σ2  ⟹  Γ ⊢ ⟨S1, S2⟩ : σ1 × σ2
                return TProd(self.infer(ctx, a), self.infer(ctx, b))
            case Real():
                # typed_real: Γ ⊢ r : R
                return TR()
            case Fun(f, p):
                # typed_fun: Γ ⊢ P : R^n, f : R^n → R^m  ⟹  Γ ⊢ f(P) : R^m
                sym = self.fun(f)
                self.need("typed_fun", self.infer(ctx, p), Rn(sym.dom), f"the argument of {f}", t)
                return Rn(sym.cod)
            case Jac(f, s):
                # typed_jac: Γ ⊢ S : R^n, f : R^n → R^m  ⟹  Γ ⊢ J f · S : R^n ⇒ R^m
                sym = self.fun(f)
                self.need("typed_jac", self.infer(ctx, s), Rn(sym.dom), f"the direction of J {f}", t)
                return TArr(Rn(sym.dom), Rn(sym.cod))
            case NDual(r):
                # typed_ndual: num_ty r σ  ⟹  Γ ⊢ r* : σ*
                return TDual(self.num(r))
            case Dual(ty, s1, s2):
                # typed_dual: σ :: Γ ⊢ S1 : τ, Γ ⊢ S2 : τ*, x ∈ lin(S1)  ⟹  Γ ⊢ (λx:σ. S1)* · S2 : σ*
                a = self.map_and_argument(_DUAL, ctx, ty, s1, s2, t)
                if not lin(IS0, s1):
                    raise _fail("typed_dual", "the body of the dual map is not linear in its bound variable "
                                              "(x ∈ lin(S1) fails)", t)
                return TDual(a)
            case Pb(ty, p, s):
                # typed_pb: σ :: Γ ⊢ P : τ, Γ ⊢ S : Ω τ  ⟹  Γ ⊢ (Ω λx:σ. P) · S : Ω σ
                return TOmega(self.map_and_argument(_PB, ctx, ty, p, s, t))
            case Let(e, l):
                # typed_let: Γ ⊢ E : σ, σ :: Γ ⊢ L : τ  ⟹  Γ ⊢ let z = E in L : τ
                a = self.infer(ctx, e)
                return self.infer((a,) + ctx, l)
        raise TypeError(f"not a term: {t!r}")


def infer(ctx: Ctx, t: Tm):
    """The most general type ``A`` with ``Γ ⊢ t : A`` (type variables,
    :class:`TVar`, may be left: any type fits there), or a
    :class:`TypeCheckError` naming the Coq rule that fails."""
    c = _Checker()
    return c.s.resolve(c.infer(tuple(ctx), t))


def check(ctx: Ctx, t: Tm, a: Ty) -> None:
    """Decide ``Γ ⊢ t : A``, or raise a :class:`TypeCheckError`."""
    c = _Checker()
    b = c.infer(tuple(ctx), t)
    if not c.s.unify(b, a):
        raise _fail(_rule_of(t), f"the term has type {c.show(b)}, expected {show(a)}", t)


def outside_ztyped(t: Tm, ctx: Ctx = ()) -> tuple[str, Tm, Ty] | None:
    """Where ``t`` (well typed) leaves the typed premise ``ztyped``
    (``theories/pullback/ztyped.v``): the first ``0`` (``zt_zero``) or sum
    (``zt_plus``) outside the bodies of dual maps that no typing of ``t``
    puts at a dual type, as ``(rule, subterm, its type)``; ``None`` when
    ``t`` is in ``ztyped``.  The most general typing, then each recorded
    type unified with ``σ*`` for a fresh ``σ``: a typing with every one at
    a dual type exists exactly when all these unifications succeed.  The
    verdict of the tools is the extracted ``zcheck``; this names the
    subterm in their message."""
    zs: list = []
    c = _Checker(zs)
    with room():
        c.infer(tuple(ctx), t)
        for u, a in zs:
            shown = c.show(a)
            if not c.s.unify(a, TDual(c.s.fresh())):
                return ("zt_zero" if isinstance(u, Zero) else "zt_plus", u, shown)
    return None


def _rule_of(t: Tm) -> str:
    match t:
        case Proj(i, _):
            return "typed_proj1" if i == 1 else "typed_proj2"
    return {Var: "typed_var", App: "typed_app", Real: "typed_real", Fun: "typed_fun", Jac: "typed_jac",
            Dual: "typed_dual", Pb: "typed_pb", Lam: "typed_lam", Pair: "typed_pair", NDual: "typed_ndual",
            Plus: "typed_plus", Let: "typed_let", Zero: "typed_zero"}[type(t)]


def type_of(t: Tm, ctx: Ctx = ()):
    """The type of ``t`` in ``ctx`` (closed by default): :func:`infer` under
    :func:`revhandlers.depth.room`."""
    with room():
        return infer(tuple(ctx), t)


def has_type(t: Tm, a: Ty, ctx: Ctx = ()) -> None:
    """:func:`check` under :func:`revhandlers.depth.room`."""
    with room():
        check(tuple(ctx), t, a)


def well_typed(t: Tm, ctx: Ctx = ()) -> bool:
    try:
        type_of(t, ctx)
        return True
    except TypeCheckError:
        return False


def ground(t) -> bool:
    """Whether a type has no type variable."""
    return not any(isinstance(u, TVar) for u in preorder(t, _type_parts))


# ------------------------------------------- well-formed terms (wf.v)

#: the two conditions of ``wf_tm`` (``theories/pullback/wf.v``), by the
#: rule names pullback-eval gives them, in the order it checks them
WF_RULES = ("wf_let", "jac_app_free", "param_app_free")

_WF_MESSAGES = {
    "wf_let": "a let in the body of a pullback is not a let series (theories/pullback/wf.v, pb_lets_ok): "
              "the paper's terms have no let; write ((lam T L) E) instead",
    "jac_app_free": "a Jacobian (jac f S) is applied in the body of a pullback (theories/pullback/wf.v, "
                    "pb_jac_ok): Remark 3.6 leaves it stuck, its derivative would need the second derivative "
                    "of f",
    "param_app_free": "a parameter of an abstraction (or of a dual map) in the body of a pullback is applied to "
                      "data bound in that body (theories/pullback/wf.v, pb_param_ok): Remark 3.6 leaves it stuck, "
                      "the derivative of an unknown function is not known",
    "pb_point_ok": "a pullback whose body applies a path of a variable is applied to a point holding a Jacobian "
                   "or a pullback (theories/pullback/wf.v, pb_point_ok): Remark 3.6 (value 2) leaves it stuck, "
                   "rule 19b differentiates an applied path of the point only when it is an abstraction",
}

#: the condition of the checkers' judgment ``wf_query`` (wf.v) beyond
#: :data:`WF_RULES`, checked after them by :func:`ill_formed`
QUERY_RULES = ("pb_point_ok",)


def _subterms(t: Tm) -> Iterator[Tm]:
    """Every subterm of ``t`` (``t`` first), in the order of the text."""
    return preorder(t, children)


def is_atom(t: Tm) -> bool:
    while isinstance(t, Proj):
        t = t.s
    return isinstance(t, Var)


def is_elem(t: Tm) -> bool:
    """anf.v ``elem``."""
    match t:
        case Zero() | Real() | NDual():
            return True
        case Plus(a, b) | App(a, b) | Pair(a, b):
            return is_atom(a) and is_atom(b)
        case Lam(_, body):
            return is_lets(body)
        case Fun(_, a) | Jac(_, a):
            return is_atom(a)
        case Dual(_, body, a) | Pb(_, body, a):
            return is_lets(body) and is_atom(a)
    return is_atom(t)


def is_lets(t: Tm) -> bool:
    """anf.v ``lets``: a let series ``let x1 = E1 in … let xn = En in xn``."""
    while isinstance(t, Let):
        if not is_elem(t.e):
            return False
        if t.l == Var(0):
            return True
        t = t.l
    return False


def _free(t: Tm, depth: int = 0, out: set | None = None) -> set:
    """The free indices of ``t``."""
    out = set() if out is None else out
    match t:
        case Var(n):
            if n >= depth:
                out.add(n - depth)
        case Lam(_, s):
            _free(s, depth + 1, out)
        case Dual(_, s1, s2) | Pb(_, s1, s2):
            _free(s1, depth + 1, out)
            _free(s2, depth, out)
        case Let(e, l):
            _free(e, depth, out)
            _free(l, depth + 1, out)
        case _:
            for c in children(t):
                _free(c, depth, out)
    return out


def _param_app(t: Tm, binders: tuple) -> bool:
    """``param_app_free binders t`` (wf.v) fails: ``binders`` lists the
    binders crossed inside a pullback's body, innermost first, the
    pullback's variable last; ``True`` for a λ or a dual map.  A head
    bound by such a binder (index ``n``) must not be applied to an
    argument that mentions a variable bound in the body outside that
    binder (an index between ``n`` and the pullback's variable)."""
    stack = [(t, binders)]
    while stack:
        u, k = stack.pop()
        match u:
            case App(s, a):
                h = s
                while isinstance(h, Proj):
                    h = h.s
                if isinstance(h, Var) and h.n < len(k) and k[h.n] and any(h.n < m < len(k) for m in _free(a)):
                    return True
                stack += [(s, k), (a, k)]
            case Lam(_, s):
                stack.append((s, (True,) + k))
            case Dual(_, s1, s2):
                stack += [(s1, (True,) + k), (s2, k)]
            case Pb(_, s1, s2):
                stack += [(s1, (False,) + k), (s2, k)]
            case Let(e, l):
                stack += [(e, k), (l, (False,) + k)]
            case _:
                stack += [(c, k) for c in children(u)]
    return False


def _head_is_var(t: Tm) -> bool:
    """wf.v ``hd_var t <> None``: ``t`` is a path ``z^{π…}`` of a variable."""
    while isinstance(t, Proj):
        t = t.s
    return isinstance(t, Var)


def _point_bad(t: Tm) -> bool:
    """``pb_point_ok t`` (wf.v) fails: some ``((Ω λy.P) · S) V`` in ``t``
    whose body ``P`` applies a path of a variable (``var_app``) has a
    Jacobian or a pullback in its point ``V`` (``jac_pb_free``)."""
    for u in _subterms(t):
        if (isinstance(u, App) and isinstance(u.s, Pb)
                and any(isinstance(w, App) and _head_is_var(w.s) for w in _subterms(u.s.p))
                and any(isinstance(w, (Jac, Pb)) for w in _subterms(u.p))):
            return True
    return False


def ill_formed(t: Tm) -> str | None:
    """The condition of ``wf_tm`` (wf.v) that ``t`` fails, by its rule name
    (:data:`WF_RULES`: every let in a pullback's body a let series, then no
    Jacobian applied in a pullback's body, then no parameter applied to data
    bound in a pullback's body, ``pb_param_ok``, then :data:`QUERY_RULES`: no
    Jacobian or pullback in the point of a pullback whose body applies a
    path, ``pb_point_ok``), or ``None`` when ``t`` is well
    formed.  Every ``let`` inside a let series is one, so "every let of the
    body is a let series" is ``wf_let``."""
    bodies = [u.p for u in _subterms(t) if isinstance(u, Pb)]
    if any(isinstance(u, Let) and not is_lets(u) for p in bodies for u in _subterms(p)):
        return "wf_let"
    if any(isinstance(u, App) and isinstance(u.s, Jac) for p in bodies for u in _subterms(p)):
        return "jac_app_free"
    if any(_param_app(p, (False,)) for p in bodies):
        return "param_app_free"
    if _point_bad(t):
        return "pb_point_ok"
    return None


def well_formed(t: Tm) -> None:
    """Decide ``wf_tm t`` (wf.v), or raise the bad input ``ill-formed``
    (exit code 2) naming the condition that fails, as pullback-eval does."""
    with room():
        rule = ill_formed(t)
    if rule is not None:
        raise BadInput("ill-formed", f"{_WF_MESSAGES[rule]} (in {_snippet(t)})", rule)
