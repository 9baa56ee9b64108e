"""Queries of the stuck classes that A-contexts entering a ``let`` lift
(docs/decisions-pullback.md, "A-contexts that enter a let").  Before, each
ended stuck: a value substituted into a let series left a ``let`` that is
not a let series (``let w = ⟨-1, 0.5⟩ in w``), which no A-context
entered.  The expected gradients are computed by hand, not by the
evaluator."""
from __future__ import annotations

import math

from .test_pullback_eval import built, close, ndual, result  # noqa: F401  (built: the fixture)


def test_19b_abstraction_of_the_point_applied():
    # ((Ω λy:R×R. (λx. y) (-2)) · (λu. [2, 0.5]*)) ⟨-1, 0.5⟩: the body is y,
    # so the gradient is the covector itself, [2, 0.5].
    q = "(app (pullback (* R R) (app (lam R (var 1)) -2.0) (lam (* R R) (ndual (2.0 0.5)))) (pair -1.0 0.5))"
    value, ty, _ = result(q)
    assert ty == ["dual", ["*", "R", "R"]]
    got = ndual(value)
    assert len(got) == 2 and close(got[0], 2.0) and close(got[1], 0.5), value


def test_19b_through_a_function_symbol():
    # ((Ω λy:R×R. (λz. π1 y) (sq(y2 + y2))) · ω) ⟨1.75, 1.25⟩ with
    # ω = λu. (λv. (J cos · v) u)* · [1]*: the body is y1, the covector at
    # u = 1.75 is cos'(1.75) = -sin(1.75), so the gradient is [-sin 1.75, 0].
    q = ("(app (pullback (* R R) (app (lam R (proj 1 (var 1))) (fun sq (fun add (pair (proj 2 (var 0)) "
         "(proj 2 (var 0)))))) (lam R (dual-map R (app (jac cos (var 0)) (var 1)) (ndual 1.0)))) (pair 1.75 1.25))")
    value, ty, _ = result(q)
    assert ty == ["dual", ["*", "R", "R"]]
    got = ndual(value)
    assert len(got) == 2 and close(got[0], -math.sin(1.75)) and got[1] == 0.0, value
