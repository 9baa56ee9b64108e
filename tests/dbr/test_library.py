"""The define-by-run AD library (revhandlers.dbr): the paper's examples with
every implementation and every kind of number, nesting, the multivariate
gradient, one-shot deep handlers, the cost of the handler-based reverse
mode, and a cross-check of the three implementations against sympy and
finite differences on random polynomial expressions.

Expected values are the paper's numbers, closed forms computed here
(k·x^(k−1), …), sympy's derivatives, or finite differences."""

from __future__ import annotations

import itertools
import math
from fractions import Fraction

import pytest
import sympy
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from revhandlers.dbr import (FLOATS, FRACTIONS, INTS, ContinuationError, Dictionary, Effect, Num, Unhandled,
                             diff, diff_n, forward, grad, handle, handlers, natural, operators, perform, tape)
from revhandlers.dbr.clients import (cube_plus_one, cube_plus_one_sugar, monomial, subst, x_cube,
                                     x_plus_y_squared_cubed)
from revhandlers.dbr.dictionary import counting

IMPLS = ["handlers", "tape", "forward"]
NUMBERS = [pytest.param(INTS, int, id="int"), pytest.param(FRACTIONS, Fraction, id="Fraction"),
           pytest.param(FLOATS, float, id="float")]


# ---------------------------------------------------------------- the paper's examples

@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("d, num", NUMBERS)
@pytest.mark.parametrize("f", [cube_plus_one, cube_plus_one_sugar], ids=["dict", "operators"])
def test_cube_plus_one_at_4(impl, d, num, f):
    """Figure 2: (x+1)³ at 4 is 125, f′ 75, f″ 30, f‴ 6 (and f⁗ 0)."""
    got = [diff_n(f, n, impl)(d, num(4)) for n in range(5)]
    assert got == [125, 75, 30, 6, 0]
    assert all(type(v) is num for v in got)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("d, num", NUMBERS)
def test_cube_plus_one_at_2(impl, d, num):
    """The artifact's tests: 27, 27, 18 at 2."""
    assert [diff_n(cube_plus_one, n, impl)(d, num(2)) for n in range(3)] == [27, 27, 18]


@pytest.mark.parametrize("impls", list(itertools.product(IMPLS, repeat=3)), ids="-".join)
def test_mixed_nesting(impls):
    """diff³ with the implementations mixed in every way still gives 6 at 4,
    and the second derivative 30."""
    f = cube_plus_one
    for impl in impls:
        f = diff(f, impl)
    assert f(INTS, 4) == 6
    assert diff(diff(cube_plus_one, impls[0]), impls[1])(FRACTIONS, Fraction(4)) == 30


@pytest.mark.parametrize("impl", IMPLS)
def test_diff_monomial_exact_on_ints(impl):
    """diff (monomial k) = k·x^(k−1), k = 0…64, exactly on Python ints."""
    for x in (2, 3, -5):
        for k in range(65):
            expected = k * x ** (k - 1) if k else 0
            assert diff(monomial(k), impl)(INTS, x) == expected, (k, x)
            assert monomial(k)(INTS, x) == x ** k


@pytest.mark.parametrize("impl", IMPLS)
def test_diff_monomial_floats(impl):
    for k in range(65):
        expected = k * 1.5 ** (k - 1) if k else 0.0
        assert diff(monomial(k), impl)(FLOATS, 1.5) == pytest.approx(expected, rel=1e-12)


@pytest.mark.parametrize("impl", IMPLS)
def test_iterated_diff_monomial(impl):
    """diff^j (monomial k) = k!/(k−j)!·x^(k−j)."""
    x = Fraction(3, 2)
    for k in range(8):
        for j in range(4):
            expected = Fraction(math.factorial(k), math.factorial(k - j)) * x ** (k - j) if j <= k else 0
            assert diff_n(monomial(k), j, impl)(FRACTIONS, x) == expected, (k, j)


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("d, num", NUMBERS)
def test_monomial_examples(impl, d, num):
    """monomial 8 at 2 is 256, pow 2 (pow 4 var) at 2 is 256, d/dx x⁴ at 2 is 32."""
    assert monomial(8)(d, num(2)) == 256
    assert subst(monomial(4), monomial(2))(d, num(2)) == 256
    assert diff(monomial(4), impl)(d, num(2)) == 32


@pytest.mark.parametrize("impl", IMPLS)
def test_x_cube(impl):
    """The artifact's client x·(x·x): diff at n is 3·n·n, diff² is 6·n."""
    for n in range(-4, 9):
        assert diff(x_cube, impl)(INTS, n) == 3 * n * n
        assert diff_n(x_cube, 2, impl)(INTS, n) == 6 * n


@pytest.mark.parametrize("impl", IMPLS)
@pytest.mark.parametrize("d, num", NUMBERS)
def test_gradient(impl, d, num):
    """∇(x + y²)³ = (3(x+y²)², 6y(x+y²)²): (27, 54) at (2, 1), (363, 2178) at (2, 3)."""
    g = grad(x_plus_y_squared_cubed, impl)
    assert g(d, [num(2), num(1)]) == [27, 54]
    assert g(d, [num(2), num(3)]) == [363, 2178]


@pytest.mark.parametrize("outer", IMPLS)
@pytest.mark.parametrize("inner", IMPLS)
def test_diff_of_a_gradient_component(outer, inner):
    """∂²/∂x∂y (x + y²)³ = 12·y·(x + y²): 36 at (2, 1), 396 at (2, 3)."""
    for y, expected in [(1, 36), (3, 396)]:
        def dfdy(d, x):
            return grad(x_plus_y_squared_cubed, inner)(d, [x, natural(d, y)])[1]
        assert diff(dfdy, outer)(INTS, 2) == expected


@pytest.mark.parametrize("impl", IMPLS)
def test_gradient_edge_cases(impl):
    assert grad(lambda d, xs: d.one, impl)(INTS, [5, 7]) == [0, 0]
    assert grad(lambda d, xs: xs[1], impl)(INTS, [5, 7]) == [0, 1]
    assert grad(lambda d, xs: d.mul(xs[0], xs[0]), impl)(INTS, [5]) == [10]
    assert grad(lambda d, xs: d.zero, impl)(INTS, []) == []


@pytest.mark.parametrize("impl", IMPLS)
def test_constant_and_identity(impl):
    assert diff(lambda d, x: d.zero, impl)(INTS, 3) == 0
    assert diff(lambda d, x: d.one, impl)(INTS, 3) == 0
    assert diff(lambda d, x: x, impl)(INTS, 3) == 1
    assert diff_n(lambda d, x: x, 2, impl)(INTS, 3) == 0


@pytest.mark.parametrize("impl", IMPLS)
def test_a_foreign_result_is_an_error(impl):
    with pytest.raises(TypeError):
        diff(lambda d, x: 3, impl)(INTS, 1)


# ---------------------------------------------------------------- operators

def test_operators():
    @operators
    def f(d, x):
        return 2 * x ** 3 + x * 3 + 1 + 0 * x

    assert f(INTS, 2) == 23
    assert [diff_n(f, n)(INTS, 2) for n in range(4)] == [23, 27, 24, 12]
    d, counts = counting(INTS)
    assert f(d, 2) == 23 and counts["add"] > 0 and counts["mul"] > 0


def test_operators_refuse_what_a_semiring_lacks():
    x = Num(INTS, 2)
    for bad in (lambda: x - 1, lambda: x * -1, lambda: x + 0.5, lambda: x ** -1, lambda: bool(x),
                lambda: x + Num(FRACTIONS, Fraction(1))):
        with pytest.raises(TypeError):
            bad()
    assert natural(FRACTIONS, 13) == 13 and natural(INTS, 0) == 0


# ---------------------------------------------------------------- nesting

def ops(f, x=3) -> int:
    """The number of add and mul requests a client makes (counted on a
    counting dictionary of plain ints)."""
    d, counts = counting(INTS)
    f(d, x)
    return counts["add"] + counts["mul"]


def test_inner_handler_never_captures_the_outer_requests():
    """In diff(diff f), the inner handler answers exactly the client's
    requests, and the outer one exactly those of the inner run on its
    dictionary: neither sees the other's."""
    inner_stats, outer_stats = handlers.Stats(), handlers.Stats()
    inner = handlers.diff(cube_plus_one, stats=inner_stats)
    outer = handlers.diff(inner, stats=outer_stats)
    assert outer(INTS, 4) == 30
    assert inner_stats.forward == ops(cube_plus_one)
    assert outer_stats.forward == ops(handlers.diff(cube_plus_one))
    assert outer_stats.forward != inner_stats.forward


def test_an_effectful_dictionary_reaches_its_own_handler():
    """diff on a dictionary whose operations are requests of an outer
    handler: every one passes through diff's handler to the outer one."""
    Op = Effect("Op")
    seen = []

    def on_op(payload, k):
        op, a, b = payload
        seen.append(op)
        return k(a + b if op == "add" else a * b)

    d = Dictionary(0, 1, lambda a, b: perform(Op, ("add", a, b)), lambda a, b: perform(Op, ("mul", a, b)))
    for impl in IMPLS:
        seen.clear()
        assert handle(lambda: diff_n(cube_plus_one, 2, impl)(d, 4), lambda v: v, {Op: on_op}) == 30
        assert len(seen) == ops(diff_n(cube_plus_one, 2, impl), 4)


def test_other_effects_pass_through_diff():
    """A client may perform effects of its own: diff's handler forwards
    them to the handler around it, and still differentiates."""
    Log = Effect("Log")
    log = []

    def f(d, x):
        perform(Log, "start")
        y = d.mul(x, x)
        perform(Log, "squared")
        return d.mul(y, x)

    result = handle(lambda: diff(diff(f))(INTS, 5), lambda v: v, {Log: lambda p, k: (log.append(p), k(None))[1]})
    assert result == 30
    assert log.count("start") >= 1 and log.count("start") == log.count("squared")


# ---------------------------------------------------------------- effect handlers

def test_deep_handler_order_and_answers():
    E = Effect("E")
    trace = []

    def body():
        return perform(E, 1) + perform(E, 2) + perform(E, 3)

    def clause(p, k):
        trace.append(("before", p))
        r = k(10 * p)
        trace.append(("after", p, r))
        return r + 1

    assert handle(body, lambda v: v * 2, {E: clause}) == 2 * 60 + 3
    assert trace == [("before", 1), ("before", 2), ("before", 3),
                     ("after", 3, 120), ("after", 2, 121), ("after", 1, 122)]


def test_a_clause_may_abort():
    E = Effect("E")
    after = []

    def body():
        perform(E, 1)
        after.append("resumed")
        return "end"

    assert handle(body, lambda v: v, {E: lambda p, k: "aborted"}) == "aborted"
    assert after == []


def test_generative_effects_and_forwarding():
    E1, E2 = Effect("E"), Effect("E")
    inner = lambda: handle(lambda: perform(E1, 1) + perform(E2, 2), lambda v: v, {E2: lambda p, k: k(p * 100)})
    assert handle(inner, lambda v: v, {E1: lambda p, k: k(p * 10)}) == 210
    with pytest.raises(Unhandled):
        handle(lambda: perform(E1, 1), lambda v: v, {E2: lambda p, k: k(p)})


def test_a_clause_runs_outside_its_handler():
    """What a clause performs goes to the handlers around, even its own
    effect."""
    E = Effect("E")
    inner = lambda: handle(lambda: perform(E, 1), lambda v: v, {E: lambda p, k: k(perform(E, p + 1))})
    assert handle(inner, lambda v: v, {E: lambda p, k: k(p * 7)}) == 14


def test_continuations_are_one_shot():
    E = Effect("E")
    with pytest.raises(ContinuationError):
        handle(lambda: perform(E), lambda v: v, {E: lambda p, k: (k(1), k(2))})
    saved = []
    handle(lambda: perform(E), lambda v: v, {E: lambda p, k: saved.append(k)})
    with pytest.raises(ContinuationError):
        saved[0](1)


def test_exceptions_unwind_through_the_clauses():
    E = Effect("E")

    def body():
        perform(E, 1)
        raise ZeroDivisionError

    def catching(p, k):
        try:
            return k(p)
        except ZeroDivisionError:
            return "caught"

    assert handle(body, lambda v: v, {E: catching}) == "caught"
    with pytest.raises(ZeroDivisionError):
        handle(body, lambda v: v, {E: lambda p, k: k(p)})
    with pytest.raises(KeyError):
        handle(lambda: perform(E, 1), lambda v: v, {E: lambda p, k: {}[p]})


def test_a_greenlet_of_the_client_performs_to_the_handlers_around_it():
    from greenlet import greenlet
    E = Effect("E")
    body = lambda: greenlet(lambda: perform(E, 2) + 1).switch()
    assert handle(body, lambda v: v * 10, {E: lambda p, k: k(p * 3)}) == 70


def test_no_recursion_limit_on_the_number_of_requests():
    def chain(d, x):
        y = x
        for _ in range(20_000):
            y = d.add(y, x)
        return y

    assert handlers.diff(chain)(INTS, 1) == 20_001


# ---------------------------------------------------------------- cost

@pytest.mark.parametrize("f", [cube_plus_one, x_cube, monomial(37), monomial(64), x_plus_y_squared_cubed])
def test_one_backward_update_per_forward_operation(f):
    """The handler-based reverse mode answers one request per operation of
    the client, does one backward update per request after its
    continuation has returned, and has them all suspended at once (the
    tape is the stack of suspended clauses); it calls the base dictionary
    exactly as often as the tape version does."""
    multi = f is x_plus_y_squared_cubed
    x = [2, 1] if multi else 3
    n = ops(f, x)
    stats = handlers.Stats()
    run = (handlers.grad if multi else handlers.diff)(f, stats=stats)
    d, counts = counting(INTS)
    run(d, x)
    assert stats.forward == n and stats.backward == n and stats.most_suspended == n and stats.suspended == 0
    d2, counts_tape = counting(INTS)
    (tape.grad if multi else tape.diff)(f)(d2, x)
    assert counts == counts_tape


# ---------------------------------------------------------------- random expressions

# A tree: ("zero",) ("one",) ("x",) ("var", i) ("add", a, b) ("mul", a, b)
# ("let", bound, body) (body sees the value as var 0)
# ("pow", e, k) (x^k by the binary loop of monomial)
# ("loop", k, init, step) (acc := init; k times acc := step, which sees acc as var 0)

def trees(depth: int, nvars: int):
    # x is the likeliest leaf, so that most trees are not constants
    leaves = [st.sampled_from([("x",), ("x",), ("x",), ("one",), ("zero",)])]
    if nvars:
        leaves.append(st.integers(0, nvars - 1).map(lambda i: ("var", i)))
    leaf = st.one_of(leaves)
    if depth == 0:
        return leaf
    sub = trees(depth - 1, nvars)
    inner = trees(depth - 1, nvars + 1)
    return st.one_of(
        leaf,
        st.tuples(st.just("add"), sub, sub),
        st.tuples(st.just("mul"), sub, sub),
        st.tuples(st.just("let"), sub, inner),
        st.tuples(st.just("pow"), sub, st.integers(0, 5)),
        st.tuples(st.just("loop"), st.integers(0, 3), sub, inner),
    )


def to_client(tree):
    """The tree as a client: its operations on the dictionary."""

    def ev(t, d, x, env):
        tag = t[0]
        if tag == "zero":
            return d.zero
        if tag == "one":
            return d.one
        if tag == "x":
            return x
        if tag == "var":
            return env[t[1]]
        if tag == "add":
            return d.add(ev(t[1], d, x, env), ev(t[2], d, x, env))
        if tag == "mul":
            return d.mul(ev(t[1], d, x, env), ev(t[2], d, x, env))
        if tag == "let":
            return ev(t[2], d, x, [ev(t[1], d, x, env)] + env)
        if tag == "pow":
            base, k, result = ev(t[1], d, x, env), t[2], d.one
            while k > 0:
                result = d.mul(result, d.one if k % 2 == 0 else base)
                base = d.mul(base, base)
                k //= 2
            return result
        if tag == "loop":
            acc = ev(t[2], d, x, env)
            for _ in range(t[1]):
                acc = ev(t[3], d, x, [acc] + env)
            return acc
        raise AssertionError(t)

    return lambda d, x: ev(tree, d, x, [])


X = sympy.Symbol("x")


def to_sympy(t, env=()):
    """The same tree as a sympy polynomial in x, by sympy's arithmetic."""
    tag = t[0]
    if tag == "zero":
        return sympy.Integer(0)
    if tag == "one":
        return sympy.Integer(1)
    if tag == "x":
        return X
    if tag == "var":
        return env[t[1]]
    if tag == "add":
        return to_sympy(t[1], env) + to_sympy(t[2], env)
    if tag == "mul":
        return to_sympy(t[1], env) * to_sympy(t[2], env)
    if tag == "let":
        return to_sympy(t[2], (to_sympy(t[1], env),) + env)
    if tag == "pow":
        return to_sympy(t[1], env) ** t[2]
    if tag == "loop":
        acc = to_sympy(t[2], env)
        for _ in range(t[1]):
            acc = sympy.expand(to_sympy(t[3], (acc,) + env))
        return acc
    raise AssertionError(t)


def fraction(r) -> Fraction:
    r = sympy.Rational(r)
    return Fraction(int(r.p), int(r.q))


RANDOM = settings(max_examples=150, deadline=None, derandomize=True, database=None,
                  suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
POINTS = st.fractions(min_value=-3, max_value=3, max_denominator=7)


@RANDOM
@given(tree=trees(6, 0), x=POINTS)
def test_random_expressions_exact(tree, x):
    """The three implementations, alone and nested (diff, diff²) agree
    exactly on Fractions with sympy's derivatives of the same expression."""
    f = to_client(tree)
    assume(ops(f) <= 200)
    poly = sympy.expand(to_sympy(tree))
    assume(sympy.degree(poly, X) <= 40 if poly.free_symbols else True)
    assert f(FRACTIONS, x) == fraction(poly.subs(X, sympy.Rational(x.numerator, x.denominator)))
    for n in (1, 2):
        expected = fraction(sympy.diff(poly, X, n).subs(X, sympy.Rational(x.numerator, x.denominator)))
        for impl in IMPLS:
            assert diff_n(f, n, impl)(FRACTIONS, x) == expected, (impl, n)
    mixed = forward.diff(tape.diff(f))
    assert mixed(FRACTIONS, x) == handlers.diff(handlers.diff(f))(FRACTIONS, x)
    assert diff(f)(INTS, x.numerator) == int(sympy.diff(poly, X).subs(X, x.numerator))


@RANDOM
@given(tree=trees(6, 0), x=st.floats(min_value=-2, max_value=2, allow_nan=False))
def test_random_expressions_floats(tree, x):
    """On floats, the three implementations agree with central finite
    differences of the plain evaluation, within the bound of the
    difference quotient's error (truncation h²/6·|f‴| and rounding, both
    bounded with the all-positive polynomial at |x| + h)."""
    f = to_client(tree)
    assume(ops(f) <= 200)
    poly = sympy.expand(to_sympy(tree))
    assume(sympy.degree(poly, X) <= 30 if poly.free_symbols else True)
    h = 1e-4
    fd = (f(FLOATS, x + h) - f(FLOATS, x - h)) / (2 * h)
    # Every coefficient of poly is a natural number, so p(|x|+h) bounds |p|
    # on [x−h, x+h], and likewise for its derivatives.
    r = sympy.Rational(abs(x)) + sympy.Rational(h)
    bound_f = float(poly.subs(X, r)) + 1
    bound_f1 = float(sympy.diff(poly, X).subs(X, r)) + 1
    bound_f3 = float(sympy.diff(poly, X, 3).subs(X, r))
    eps = 2.0 ** -52
    cost = ops(f) + 1
    tol_fd = h * h / 6 * bound_f3 + 4 * cost * eps * bound_f / h
    tol_ad = 4 * cost * eps * 10 * bound_f1
    assert tol_fd < 1e-2 * (1 + bound_f1) or tol_fd < 1e-3
    exact = float(sympy.diff(poly, X).subs(X, sympy.Rational(x)))
    for impl in IMPLS:
        got = diff(f, impl)(FLOATS, x)
        assert abs(got - exact) <= tol_ad, (impl, got, exact)
        assert abs(got - fd) <= tol_fd + tol_ad, (impl, got, fd)
