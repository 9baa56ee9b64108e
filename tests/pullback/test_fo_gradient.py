"""What a first-order gradient query ends in (theories/pullback/fo_grad.v).

``fo_query_ndual``: a query ``((Ω λy.P)·(λx.e*)) r0`` whose body has no
``0`` or sum and does not end in a scalar reduces to ``r*``;
``fo_query_result``: a body that ends in a scalar ends in a ``0`` on the
spine of dual maps.  The gradients below are worked out by hand from the
body, not read off the evaluator; the last two queries show the two
classes the theorem's premises exclude (``docs/decisions-pullback.md``,
"Progress on the first-order fragment")."""

from __future__ import annotations

import math

from .test_pullback_eval import built, ndual, result  # noqa: F401  (built: the fixture)


def query(body: str, point: str) -> str:
    return f"(run (app (pullback (* R R) {body} (lam R (ndual 1.0))) {point}))"


X, Y = "(proj 1 (var 0))", "(proj 2 (var 0))"


def test_body_not_ending_in_a_scalar_ends_in_a_numeric_dual():
    # f(x, y) = sin(x·y) + 3: ∇f = cos(xy)·(y, x); at (0.5, -2): cos(-1)·(-2, 0.5)
    body = f"(fun add (pair (fun sin (fun mul (pair {X} {Y}))) 3.0))"
    value, typ, _ = result(query(body, "(pair 0.5 -2.0)"))
    c = math.cos(-1.0)
    assert typ == ["dual", ["*", "R", "R"]]
    got = ndual(value)
    assert len(got) == 2 and all(math.isclose(a, b, rel_tol=1e-12) for a, b in zip(got, [-2.0 * c, 0.5 * c]))


def test_let_series_ending_in_a_variable_ends_in_a_numeric_dual():
    # let p = ⟨x, y⟩ in let a = mul(p) in let b = sq(a) in b: ∇(x²y²) = (2xy², 2x²y);
    # at (1.5, 2): (12, 9)
    body = f"(let (pair {X} {Y}) (let (fun mul (var 0)) (let (fun sq (var 0)) (var 0))))"
    value, _, _ = result(query(body, "(pair 1.5 2.0)"))
    assert ndual(value) == [12.0, 9.0]


def test_body_ending_in_a_scalar_ends_in_zero_on_the_spine():
    # the last let binds a constant: rule 9 gives 0 under the dual map of the
    # let before it (fo_query_result's second case), not r*
    body = f"(let (fun sin {X}) (let 3.0 (var 0)))"
    value, _, _ = result(query(body, "(pair 2.0 1.0)"))
    assert value[0] == "dual-map" and value[-1] == "zero", value


def test_sum_in_the_body_is_outside_the_theorem():
    # a sum of numerals in a point: (5+) has no numeral for J sin, the dual
    # map stays (the premise nzp excludes the sum)
    body = f"(fun sin (+ {X} {Y}))"
    value, _, _ = result(query(body, "(pair 2.0 1.0)"))
    assert value[0] == "dual-map" and value[-1][0] == "ndual", value
