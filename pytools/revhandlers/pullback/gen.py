"""Hypothesis generators of pullback terms.

* :func:`types`, :func:`terms`: any type, any *scoped* term (well typed or
  not, erased binder types included), for the syntax round trips;
* :func:`typed_terms` ``(ty)``: well-typed closed terms of a given type,
  every constructor included (dual maps with linear bodies, pullbacks,
  numeric duals with zero tuples, queries); each is accepted by
  :mod:`.typecheck` (``tests/pullback/test_gen.py`` asserts it);
* :func:`queries`: closed pullback queries ``((Ω λy:R^n. P) · ω) V`` with
  ``P : R^m``, first-order (the function symbols, Jacobian applications,
  sums, pairs, ``let``) or higher-order (λ-abstractions applied, pairs of
  functions, Church-encoded lists folded as in spec §10), with a constant
  1-form ``λx. c*`` or, for ``m = 1``, the 1-form ``λx. (λv. (J g · v) x)* · [1]*``
  (the differential of ``g``).

Generation is from the goal type with a size budget (hypothesmith's
habit); numbers are small multiples of 1/4, so that values stay moderate."""

from __future__ import annotations

from dataclasses import dataclass
from functools import lru_cache

from hypothesis import strategies as st

from .surface import parse
from .syntax import (FUNCTIONS, NP, NR, NZ, App, Dual, Fun, Jac, Lam, Let, NDual, Num, Pair, Pb, Plus, Proj, R, Real,
                     Rn, TArr, TDual, Tm, TOmega, TProd, Ty, Var, Zero, is_ground, num_tm, shift, vec)

UNARY = tuple(f for f, s in FUNCTIONS.items() if s.dom == 1)


@lru_cache(maxsize=None)
def _stop(k: int) -> st.SearchStrategy[bool]:
    """True one time in ``k`` (Hypothesis's simplest choice, the first, is
    False: it keeps building, within the budget)."""
    return st.sampled_from([False] * (k - 1) + [True])
BINARY = tuple(f for f, s in FUNCTIONS.items() if s.dom == 2)

# ------------------------------------------------------------ any term


@lru_cache(maxsize=None)
def types(max_depth: int = 3) -> st.SearchStrategy[Ty]:
    """Any type."""
    return st.recursive(st.just(R), lambda inner: st.one_of(
        st.builds(TProd, inner, inner), st.builds(TArr, inner, inner), st.builds(TDual, inner)),
        max_leaves=2 ** max_depth)


@lru_cache(maxsize=None)
def floats() -> st.SearchStrategy[float]:
    """Finite floats of every kind (``-0.0``, huge, subnormal)."""
    return st.one_of(st.floats(allow_nan=False, allow_infinity=False),
                     st.integers(-1000, 1000).map(float), st.just(-0.0))


@lru_cache(maxsize=None)
def nums(shape: Ty | None = None, dense: bool = False, small: bool = False) -> st.SearchStrategy[Num]:
    """Numeric tuples (of ``shape`` when given; ``NZ`` included unless
    ``dense``)."""
    scalars = small_reals() if small else floats()

    def of(t):
        parts = [st.builds(NR, scalars)] if t == R else [st.builds(NP, of(t.A), of(t.B))]
        if not dense:
            parts.append(st.just(NZ()))
        return st.one_of(*parts)
    if shape is not None:
        return of(shape)
    leaves = st.one_of(st.builds(NR, scalars), st.just(NZ())) if not dense else st.builds(NR, scalars)
    return st.recursive(leaves, lambda inner: st.builds(NP, inner, inner), max_leaves=6)


@lru_cache(maxsize=None)
def small_reals() -> st.SearchStrategy[float]:
    return st.integers(-8, 8).map(lambda k: k / 4)


_BINDER_TY = st.deferred(lambda: st.one_of(st.none(), types(2)))
_LEAVES = st.deferred(lambda: st.one_of(st.builds(Real, floats()), st.just(Zero()), st.builds(NDual, nums())))


@st.composite
def _term_s(draw, scope: int, budget: int):
    binder_ty = _BINDER_TY
    leaves = [_LEAVES]
    if scope:
        leaves.append(st.builds(Var, st.integers(0, scope - 1)))
    if budget <= 1 or draw(_stop(4)):
        return draw(_one_of(tuple(leaves)))
    b = budget - 1
    kind = draw(_choose(("lam", "app", "proj", "pair", "fun", "jac", "dual", "pb", "plus", "let")))
    if kind == "lam":
        return Lam(draw(binder_ty), draw(_term(scope + 1, b)))
    if kind == "app":
        return App(draw(_term(scope, b // 2)), draw(_term(scope, b // 2)))
    if kind == "proj":
        return Proj(draw(_choose((1, 2))), draw(_term(scope, b)))
    if kind == "pair":
        return Pair(draw(_term(scope, b // 2)), draw(_term(scope, b // 2)))
    if kind == "fun":
        return Fun(draw(_choose(tuple(sorted(FUNCTIONS)))), draw(_term(scope, b)))
    if kind == "jac":
        return Jac(draw(_choose(tuple(sorted(FUNCTIONS)))), draw(_term(scope, b)))
    if kind == "dual":
        return Dual(draw(binder_ty), draw(_term(scope + 1, b // 2)), draw(_term(scope, b // 2)))
    if kind == "pb":
        return Pb(draw(binder_ty), draw(_term(scope + 1, b // 2)), draw(_term(scope, b // 2)))
    if kind == "plus":
        return Plus(draw(_term(scope, b // 2)), draw(_term(scope, b // 2)))
    return Let(draw(_term(scope, b // 2)), draw(_term(scope + 1, b // 2)))


@lru_cache(maxsize=None)
def _term(scope: int, budget: int):
    """The strategy, built once per argument (building strategies is what costs)."""
    return _term_s(scope, budget)


def terms(free: int = 0, budget: int = 20) -> st.SearchStrategy[Tm]:
    """Any term whose free indices are below ``free`` (well typed or not)."""
    return _term(free, budget)


# ------------------------------------------------------------ well-typed terms

@lru_cache(maxsize=None)
def _choose(options: tuple) -> st.SearchStrategy:
    return st.sampled_from(options)


@lru_cache(maxsize=None)
def _one_of(options: tuple) -> st.SearchStrategy:
    return st.one_of(*options)


@lru_cache(maxsize=None)
def _small_real() -> st.SearchStrategy:
    return st.builds(Real, small_reals())


@lru_cache(maxsize=1 << 14)
def _paths(ctx: tuple, target: Ty, allow_index0: bool = True) -> tuple[Tm, ...]:
    """Every variable of ``ctx`` followed by projections that has type
    ``target`` (cached: the generators ask it at every node, of the few
    contexts a query has)."""
    out: list[Tm] = []
    for n, t in enumerate(ctx):
        if n == 0 and not allow_index0:
            continue
        stack = [(Var(n), t)]
        while stack:
            tm, u = stack.pop()
            if u == target:
                out.append(tm)
            if isinstance(u, TProd):
                stack += [(Proj(1, tm), u.A), (Proj(2, tm), u.B)]
    return tuple(out)


@lru_cache(maxsize=None)
def _ground_types() -> st.SearchStrategy[Ty]:
    return _choose((R, Rn(2), Rn(3), TProd(R, Rn(2))))


@st.composite
def _typed_s(draw, ctx: tuple, ty: Ty, budget: int):
    """A term of type ``ty`` in ``ctx`` (``ctx[0]`` the type of index 0)."""
    paths = _paths(ctx, ty)
    small = budget <= 1 or draw(_stop(5))
    b = max(budget - 1, 1)
    if ty == R:
        if small:
            options = [_small_real(), st.just(Zero())] + ([_choose(tuple(paths))] if paths else [])
            return draw(_one_of(tuple(options)))
        kind = draw(_choose(("fun1", "fun2", "plus", "let", "jac", "beta")))
        if kind == "fun1":
            return Fun(draw(_choose(tuple(UNARY))), draw(_typed(ctx, R, b)))
        if kind == "fun2":
            return Fun(draw(_choose(tuple(BINARY))), draw(_typed(ctx, Rn(2), b)))
        if kind == "plus":
            return Plus(draw(_typed(ctx, R, b // 2)), draw(_typed(ctx, R, b // 2)))
        if kind == "let":
            a = draw(_ground_types())
            return Let(draw(_typed(ctx, a, b // 2)), draw(_typed((a,) + ctx, R, b // 2)))
        if kind == "jac":
            f = draw(_choose(tuple(sorted(FUNCTIONS))))
            d = Rn(FUNCTIONS[f].dom)
            return App(Jac(f, draw(_typed(ctx, d, b // 2))), draw(_typed(ctx, d, b // 2)))
        # a λ-abstraction applied
        a = draw(_ground_types())
        return App(Lam(a, draw(_typed((a,) + ctx, R, b // 2))), draw(_typed(ctx, a, b // 2)))
    if isinstance(ty, TProd):
        if small and paths:
            return draw(_choose(tuple(paths)))
        if is_ground(ty) and small:
            return num_tm(draw(nums(ty, dense=True, small=True)))
        kind = draw(_choose(("pair", "pair", "plus", "zero") if is_ground(ty) else ("pair", "zero")))
        if kind == "pair":
            return Pair(draw(_typed(ctx, ty.A, b // 2)), draw(_typed(ctx, ty.B, b // 2)))
        if kind == "plus":
            return Plus(draw(_typed(ctx, ty, b // 2)), draw(_typed(ctx, ty, b // 2)))
        return Zero()
    if isinstance(ty, TArr):
        if ty.B == TDual(ty.A) and is_ground(ty.A) and not small:
            # a 1-form: a pullback along a function into a small ground type
            tau = draw(_ground_types())
            body = draw(_typed((ty.A,) + ctx, tau, b // 2))
            return Pb(ty.A, body, draw(_typed(ctx, TOmega(tau), b // 2)))
        if small and paths:
            return draw(_choose(tuple(paths)))
        return Lam(ty.A, draw(_typed((ty.A,) + ctx, ty.B, b)))
    if isinstance(ty, TDual):
        if not is_ground(ty.A):
            return draw(_one_of((st.just(Zero()), *([_choose(tuple(paths))] if paths else []))))
        if small:
            return NDual(draw(nums(ty.A, small=True)))
        kind = draw(_choose(("dual", "dual", "query", "plus")))
        if kind == "dual":
            tau = draw(_ground_types())
            body = draw(_linear((ty.A,) + ctx, tau, b // 2))
            return Dual(ty.A, body, draw(_typed(ctx, TDual(tau), b // 2)))
        if kind == "query":
            tau = draw(_ground_types())
            body = draw(_typed((ty.A,) + ctx, tau, b // 3))
            return App(Pb(ty.A, body, draw(_typed(ctx, TOmega(tau), b // 3))), draw(_typed(ctx, ty.A, b // 3)))
        return Plus(draw(_typed(ctx, ty, b // 2)), draw(_typed(ctx, ty, b // 2)))
    raise AssertionError(ty)


@lru_cache(maxsize=None)
def _typed(ctx: tuple, ty: Ty, budget: int):
    """The strategy, built once per argument (building strategies is what costs)."""
    return _typed_s(ctx, ty, budget)


@st.composite
def _linear_s(draw, ctx: tuple, ty: Ty, budget: int):
    """A term of type ``ty`` in ``ctx``, linear in index 0 (``lin {0}``):
    paths of the variable, ``0``, sums, pairs and Jacobian applications
    ``(J f · S) P`` with ``P`` free of index 0."""
    paths = _paths(ctx[:1], ty)
    b = max(budget - 1, 1)
    if budget <= 1 or draw(_stop(4)):
        return draw(_choose(tuple(paths))) if paths else Zero()
    options = ["plus"] + (["pair"] if isinstance(ty, TProd) else []) + (["jac"] if ty == R else [])
    kind = draw(_choose(tuple(options)))
    if kind == "plus":
        return Plus(draw(_linear(ctx, ty, b // 2)), draw(_linear(ctx, ty, b // 2)))
    if kind == "pair":
        return Pair(draw(_linear(ctx, ty.A, b // 2)), draw(_linear(ctx, ty.B, b // 2)))
    f = draw(_choose(tuple(sorted(FUNCTIONS))))
    d = Rn(FUNCTIONS[f].dom)
    point = shift(draw(_typed(ctx[1:], d, b // 2)))
    return App(Jac(f, draw(_linear(ctx, d, b // 2))), point)


@lru_cache(maxsize=None)
def _linear(ctx: tuple, ty: Ty, budget: int):
    """The strategy, built once per argument (building strategies is what costs)."""
    return _linear_s(ctx, ty, budget)


def typed_terms(ty: Ty | None = None, budget: int = 12) -> st.SearchStrategy[Tm]:
    """Closed well-typed terms of type ``ty`` (a random small type if
    ``None``)."""
    if ty is not None:
        return _typed((), ty, budget)
    return _choose((R, Rn(2), TDual(R), TDual(Rn(2)), TOmega(R), TArr(R, R), TProd(TArr(R, R), R),
                            TDual(TArr(R, R)))).flatmap(lambda t: _typed((), t, budget))


# ------------------------------------------------------------ queries

@dataclass(frozen=True)
class GenQuery:
    """A generated query ``((Ω λy:R^n. P) · ω) V``, with what it is made of."""
    term: Tm
    body: Tm            # P, in the context (R^n,)
    n: int
    m: int
    point: tuple        # V, as floats
    form: Tm            # ω
    cotangent: tuple    # the constant 1-form's c (or () for the differential of g)
    g: str | None       # ω = λx. (λv. (J g · v) x)* · [1]* when not None
    higher_order: bool


@st.composite
def _body_s(draw, ctx: tuple, ty: Ty, budget: int, higher: bool):
    """A term of the ground type ``ty`` in ``ctx`` built from the
    first-order constructs and, with ``higher``, λ-abstractions applied,
    pairs of functions and Church-list folds."""
    paths = _paths(ctx, ty)
    b = max(budget - 1, 1)
    if ty != R:
        if budget <= 1:
            return draw(_choose(tuple(paths))) if paths else Pair(draw(_body(ctx, ty.A, 0, higher)),
                                                                   draw(_body(ctx, ty.B, 0, higher)))
        kind = draw(_choose(("pair", "pair", "plus", "let") + (("path",) if paths else ())))
        if kind == "path":
            return draw(_choose(tuple(paths)))
        if kind == "pair":
            return Pair(draw(_body(ctx, ty.A, b // 2, higher)), draw(_body(ctx, ty.B, b // 2, higher)))
        if kind == "plus":
            return Plus(draw(_body(ctx, ty, b // 2, higher)), draw(_body(ctx, ty, b // 2, higher)))
        e, body = draw(_body(ctx, R, b // 2, higher)), draw(_body((R,) + ctx, ty, b // 2, higher))
        return Let(e, body) if draw(_stop(4)) else App(Lam(R, body), e)
    if budget <= 1 or draw(_stop(5)):
        leaves = ([_choose(tuple(paths))] * 3 if paths else []) + [_small_real()]
        leaf = draw(_one_of(tuple(leaves)))
        return Zero() if draw(_stop(20)) else leaf
    kinds = ["fun1", "fun1", "fun2", "fun2", "plus", "let", "jac", "rule"]
    if higher:
        kinds += ["beta", "beta", "pairfun", "church"]
    kind = draw(_choose(tuple(kinds)))
    if kind == "fun1":
        return Fun(draw(_choose(tuple(UNARY))), draw(_body(ctx, R, b, higher)))
    if kind == "fun2":
        return Fun(draw(_choose(tuple(BINARY))), draw(_body(ctx, Rn(2), b, higher)))
    if kind == "plus":
        return Plus(draw(_body(ctx, R, b // 2, higher)), draw(_body(ctx, R, b // 2, higher)))
    if kind == "let":
        a = draw(_choose((R, Rn(2))))
        e, body = draw(_body(ctx, a, b // 2, higher)), draw(_body((a,) + ctx, R, b // 2, higher))
        # inside a pullback's body a let is a let series or nothing (pb_wf):
        # mostly the paper's sugar (λz.L) E instead
        return Let(e, body) if draw(_stop(4)) else App(Lam(a, body), e)
    if kind == "jac":
        f = draw(_choose(tuple(sorted(FUNCTIONS))))
        d = Rn(FUNCTIONS[f].dom)
        return App(Jac(f, draw(_body(ctx, d, b // 2, higher))), draw(_body(ctx, d, b // 2, higher)))
    if kind == "rule":
        return draw(_directed(ctx, b, higher))
    if kind == "beta":
        a = draw(_choose((R, Rn(2))))
        return App(Lam(a, draw(_body((a,) + ctx, R, b // 2, higher))), draw(_body(ctx, a, b // 2, higher)))
    if kind == "pairfun":
        # let fg = ⟨λx:R. e1, λx:R. e2⟩ in π1(fg) (π2(fg) e3)
        e1 = draw(_body((R,) + ctx, R, b // 3, higher))
        e2 = draw(_body((R,) + ctx, R, b // 3, higher))
        e3 = shift(draw(_body(ctx, R, b // 3, higher)))
        inner = App(Proj(2, Var(0)), e3)
        outer = App(Proj(1, Var(0)), inner) if draw(st.booleans()) else Plus(App(Proj(1, Var(0)), e3), inner)
        return Let(Pair(Lam(R, e1), Lam(R, e2)), outer)
    # church: (λl:List. l (λa:R. λb:R. a OP b) init) (λf:R⇒R⇒R. λd:R. f e_k (… (f e_1 d)))
    k = draw(st.integers(1, 3))
    elems = [shift(draw(_body(ctx, R, max(b // (k + 1), 1), higher)), 2) for _ in range(k)]
    return church_fold(draw(_choose(("add", "mul", "plus"))), elems, draw(small_reals()))


@st.composite
def _directed_s(draw, ctx: tuple, budget: int, higher: bool):
    """A term of type ``R`` in ``ctx`` shaped so that the rules that fire
    only on open terms (in the premises of 18 and 19b: 10a, 13a, 13b, 19a)
    or on a body that does not end in a real (14, 16a) fire: a function
    (a λ-abstraction whose body is a let series over its variable ``x`` and
    a path ``p`` of the context), a Jacobian or a dual map, computed and
    passed to a closed λ that ignores it: ``(λ_. c) thing + rest``.
    (Applying such a λ, or passing it to a λ whose body mentions the
    pullback's variable, would be stuck: the rules substitute the point into
    the let series of the λ's body, whose bound terms are then not
    elementary, docs/decisions-pullback.md.)"""
    paths = _paths(ctx, R)
    b = max(budget - 1, 1)
    rest = draw(_body(ctx, R, b // 2, higher))
    c = Real(draw(small_reals()))
    kinds = ("16a", "19a") + (("10a", "10a-mirror", "13a", "13b", "14") if paths else ())
    kind = draw(_choose(kinds))
    p = shift(draw(_choose(tuple(paths)))) if paths else None     # under x
    x = Var(0)
    if kind in ("10a", "10a-mirror", "13a", "13b"):
        e = {"10a": Plus(x, p), "10a-mirror": Plus(p, x)}.get(kind)
        series = (Let(e, Var(0)) if e is not None
                  else Let(Pair(p, x) if kind == "13a" else Pair(x, p), Let(Fun("mul", Var(0)), Var(0))))
        return Plus(App(Lam(TArr(R, R), c), Lam(R, series)), rest)
    if kind == "19a":
        # (λg:R⇒R. λx:R. let z = g x in z) (λa:R. e): in the premise of 19b,
        # g is the variable of the pullback and x is free
        fn = App(Lam(TArr(R, R), Lam(R, Let(App(Var(1), Var(0)), Var(0)))),
                 Lam(R, draw(_body((R,) + ctx, R, b // 2, higher))))
        return Plus(App(Lam(TArr(R, R), c), fn), rest)
    if kind == "14":
        f = draw(_choose(UNARY))
        return Plus(App(Lam(TArr(R, R), c), Jac(f, shift(p, -1))), rest)
    # 16a: (λd:R*. (λu:R*. c) ((λv:R. v + v)* · d)) c′*
    dual = Dual(R, Plus(Var(0), Var(0)), Var(0))
    return Plus(App(Lam(TDual(R), App(Lam(TDual(R), c), dual)), NDual(NR(draw(small_reals())))), rest)


@lru_cache(maxsize=None)
def _directed(ctx: tuple, budget: int, higher: bool):
    return _directed_s(ctx, budget, higher)


@lru_cache(maxsize=None)
def _body(ctx: tuple, ty: Ty, budget: int, higher: bool):
    """The strategy, built once per argument (building strategies is what costs)."""
    return _body_s(ctx, ty, budget, higher)


#: the element type R of a Church list and its fold's result D = R
LIST_R = TArr(TArr(R, TArr(R, R)), TArr(R, R))


def church_list(elems: list[Tm]) -> Tm:
    """``[e1, …, ek] = λf d. f ek (… (f e1 d))``; the elements are given
    already under the two binders ``f`` (index 1) and ``d`` (index 0)."""
    acc: Tm = Var(0)
    for e in elems:
        acc = App(App(Var(1), e), acc)
    return Lam(TArr(R, TArr(R, R)), Lam(R, acc))


def church_fold(op: str, elems: list[Tm], init: float) -> Tm:
    """``(λl. l (λa b. a OP b) init) [e1, …, ek]``: ``sum`` of spec §10 for
    ``plus``; ``elems`` under two binders as for :func:`church_list`."""
    a, b = Var(1), Var(0)
    combine = Plus(a, b) if op == "plus" else Fun(op, Pair(a, b))
    fold = Lam(LIST_R, App(App(Var(0), Lam(R, Lam(R, combine))), Real(init)))
    return App(fold, church_list(elems))


@st.composite
def queries(draw, higher: bool = False, budget: int = 10, max_in: int = 3, max_out: int = 2):
    """A closed query ``((Ω λy:R^n. P) · ω) V`` (:class:`GenQuery`)."""
    n = draw(st.integers(1, max_in))
    m = draw(st.integers(1, max_out))
    body = draw(_body((Rn(n),), Rn(m), budget, higher))
    point = tuple(draw(st.lists(small_reals(), min_size=n, max_size=n)))
    g = draw(_choose((None, None, *UNARY))) if m == 1 else None
    if g is None:
        cot = tuple(draw(st.lists(_choose((1.0, -1.0, 2.0, 0.5, -3.0, 0.0)), min_size=m, max_size=m)))
        form = Lam(Rn(m), NDual(vec(*cot)))
        if draw(_stop(4)):
            # the same constant 1-form, by way of a Jacobian applied to numbers (rule 4):
            # λx. (λ_:R. c*) ((J f · r) r′)
            f = draw(_choose(UNARY))
            jac = App(Jac(f, Real(draw(small_reals()))), Real(draw(small_reals())))
            form = Lam(Rn(m), App(Lam(R, NDual(vec(*cot))), jac))
    else:
        cot = ()
        form = Lam(R, Dual(R, App(Jac(g, Var(0)), Var(1)), NDual(NR(1.0))))
    term = App(Pb(Rn(n), body, form), num_tm(vec(*point)))
    return GenQuery(term, body, n, m, point, form, cot, g, higher)


@st.composite
def form_queries(draw, budget: int = 6):
    """A query whose point is a 1-form: ``((Ω λy:Ω R. (Ω λx:R. P) · y) ·
    (λk:Ω R. 0)) (λu:R. c*)`` with ``P : R`` a first-order body in ``x``:
    its body is a pullback along a pullback, so that rule 17 fires (at the
    top: its reduct is not a dual map, so it is never the one step of
    20a's premise)."""
    body = draw(_body((R,), R, budget, False))
    c = draw(small_reals())
    omega_r = TArr(R, TDual(R))
    # body mentions only x (index 0 under the inner binder); Var(0) outside it is y
    return App(Pb(omega_r, Pb(R, body, Var(0)), Lam(omega_r, Zero())), Lam(R, NDual(NR(c))))


#: the bilinear dual maps of rules 16b and 16c: ``(λx. L)* · z`` with ``L``
#: linear in ``x`` and mentioning the pullback's variable, whose premise
#: ends in a dual map (through 19c); ``A``, ``C``: numbers
_BILINEAR = {
    "16c": "((Ω λy:R × R*. let d = (λx:R. let f = λw:R. (let b = x in b) in let q = f π1(y) in q)* · π2(y)"
           " in d) · (λk:R*. zero)) ⟨A, [C]*⟩",
    "16b": "((Ω λy:R. λz:R*. let d = (λx:R. let f = λw:R. (let b = x in b) in let q = f y in q)* · z in d)"
           " · (λk:R* ⇒ R*. zero)) A",
}


@st.composite
def bilinear_queries(draw):
    """A query whose body is a dual map along a function bilinear in its
    variable and the pullback's (:data:`_BILINEAR`), so that 16b or 16c
    fires, with random numbers."""
    kind = draw(_choose(tuple(sorted(_BILINEAR))))
    a, c = draw(small_reals()), draw(small_reals())
    query = _bilinear_query(kind)           # parsed once: only its point changes
    return App(query.s, _bilinear_point(kind, a, c))


def _bilinear_point(kind: str, a: float, c: float) -> Tm:
    """The point of :data:`_BILINEAR`'s query ``kind`` with ``A``, ``C`` the numbers ``a``, ``c``."""
    return Pair(Real(a), NDual(NR(c))) if kind == "16c" else Real(a)


@lru_cache(maxsize=None)
def _bilinear_query(kind: str) -> App:
    query = parse(_BILINEAR[kind].replace("A", "0.25").replace("C", "0.5"))
    assert isinstance(query, App) and query.p == _bilinear_point(kind, 0.25, 0.5), query
    return query
