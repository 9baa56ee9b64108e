"""The Hypothesis generators of revhandlers.pullback.gen: every generated
well-typed term is accepted by the type checker at its type, queries have
the type (R^n)*, the generators reach every construct they promise (a
construct never generated is a hole in the testing, as PLT Redex's
coverage says), and scoped terms stay scoped."""

from __future__ import annotations

from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings

from revhandlers.pullback import gen
from revhandlers.pullback.reference import run
from revhandlers.pullback.syntax import (App, Dual, Fun, Jac, Lam, Let, NDual, NZ, Pair, Pb, Plus, Proj, R, Real,
                                         Rn, TArr, TDual, TOmega, TProd, Var, Zero, children, free_vars, num_tm, vec)
from revhandlers.pullback.typecheck import has_type, lin, type_of

RANDOM = settings(max_examples=80, deadline=None, derandomize=True, database=None,
                  suppress_health_check=list(HealthCheck))

TARGETS = [R, Rn(2), TDual(R), TDual(Rn(2)), TOmega(R), TOmega(Rn(2)), TArr(R, R), TProd(TArr(R, R), R),
           TDual(TArr(R, R)), TArr(TDual(R), TDual(R))]


@pytest.mark.parametrize("target", TARGETS, ids=str)
def test_typed_terms_have_their_type(target):
    @settings(RANDOM, max_examples=25)
    @given(gen.typed_terms(target, budget=10))
    def check(t):
        assert free_vars(t) == frozenset()
        has_type(t, target)
    check()


def _nodes(t):
    stack = [t]
    while stack:
        u = stack.pop()
        yield u
        stack.extend(children(u))


def test_typed_terms_reach_every_constructor():
    seen: Counter = Counter()

    @settings(RANDOM, max_examples=150)
    @given(gen.typed_terms())
    def collect(t):
        type_of(t)
        for u in _nodes(t):
            seen[type(u).__name__] += 1
            if isinstance(u, NDual) and NZ() in _nums(u.r):
                seen["NZ"] += 1
            if isinstance(u, App) and isinstance(u.s, Pb):
                seen["query"] += 1
            if isinstance(u, Dual) and not isinstance(u.s1, (Var, Zero, Proj)):
                seen["dual-body"] += 1
    collect()
    wanted = {"Var", "Lam", "App", "Proj", "Pair", "Real", "Fun", "Jac", "Dual", "Pb", "NDual", "Zero", "Plus",
              "Let", "NZ", "query", "dual-body"}
    assert wanted <= set(seen), wanted - set(seen)


def _nums(r):
    stack = [r]
    while stack:
        u = stack.pop()
        yield u
        stack.extend([u.a, u.b] if hasattr(u, "a") else [])


@pytest.mark.parametrize("higher", [False, True], ids=["first-order", "higher-order"])
def test_queries(higher):
    """Queries are well typed at (R^n)*, with the body at R^m in the context
    (R^n,), and (first-order) use no λ; the higher-order ones reach
    λ-abstractions applied, pairs of functions and Church lists."""
    seen: Counter = Counter()

    @settings(RANDOM, max_examples=120)
    @given(gen.queries(higher=higher))
    def check(q):
        assert type_of(q.term) == TDual(Rn(q.n))
        has_type(q.body, Rn(q.m), (Rn(q.n),))
        assert q.term == App(Pb(Rn(q.n), q.body, q.form), num_tm(vec(*q.point)))
        seen["g" if q.g else "constant form"] += 1
        seen[f"n={q.n}"] += 1
        for u in _nodes(q.body):
            seen[type(u).__name__] += 1
            if isinstance(u, App) and isinstance(u.s, Lam):
                seen["beta"] += 1
                if u.s.ty == gen.LIST_R:
                    seen["church"] += 1
            if isinstance(u, Let) and isinstance(u.e, Pair) and isinstance(u.e.s1, Lam):
                seen["pair of functions"] += 1
    check()
    assert {"Fun", "Jac", "Let", "Plus", "Pair", "Proj", "Real", "g", "constant form", "n=1", "n=3"} <= set(seen)
    if higher:
        assert {"beta", "church", "pair of functions"} <= set(seen)
    else:
        # first-order bodies hold λ only as the sugar (λz.L) E of a let and in
        # the rule-directed terms (gen._directed), never a Church list or a
        # pair of functions
        assert "church" not in seen and "pair of functions" not in seen


def test_church_lists():
    """[e1, e2] = λf d. f e2 (f e1 d) and sum = λl. l (λa b. a + b) init."""
    elems = [Real(1.0), Real(-2.0)]
    assert gen.church_list(elems) == Lam(TArr(R, TArr(R, R)), Lam(R, App(App(Var(1), Real(-2.0)),
                                                                          App(App(Var(1), Real(1.0)), Var(0)))))
    t = gen.church_fold("plus", elems, 0.5)
    assert type_of(t) == R and run(t).value == Real(-0.5)
    assert run(gen.church_fold("mul", elems, 3.0)).value == Real(-6.0)


@settings(RANDOM, max_examples=40)
@given(gen.typed_terms(TDual(Rn(2)), budget=10))
def test_linear_bodies(t):
    """The dual-map bodies the generator builds are linear in their variable
    (checked here directly with lin)."""
    for u in _nodes(t):
        if isinstance(u, Dual):
            assert lin(frozenset({0}), u.s1)


def test_generated_constructs_are_the_syntax():
    """Every class the generators build is a constructor of the AST."""
    from revhandlers.pullback import syntax
    assert {App, Dual, Fun, Jac, Lam, Let, NDual, Pair, Pb, Plus, Proj, Real, Var, Zero} == set(syntax.TM_CONSTRUCTORS)


def test_direct_drawing_is_well_typed_and_reproducible():
    """The campaign's fast path (``direct.py``): gen.py's strategies drawn
    from ``random.Random``; every query is accepted by the Python checker,
    and query ``i`` of a seed is the same drawn alone or in a run."""
    from revhandlers.pullback import campaign as C
    from revhandlers.pullback.direct import draw_case
    from revhandlers.pullback.typecheck import type_of
    strategy = C.direct_cases()
    drawn = [C.term_of(draw_case(strategy, 5, i)) for i in range(300)]
    for t in drawn:
        type_of(t)
    assert C.term_of(draw_case(C.direct_cases(), 5, 123)) == drawn[123]
    assert len(set(map(repr, drawn))) > 250
    assert {C.order_of(t) for t in drawn} == {"first-order", "higher-order"}
