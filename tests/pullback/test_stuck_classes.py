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


def test_20a_through_18_abstraction_applied_inside():
    # ((Ω λy:R×R. (λa. (λb. y) a) (-0.25)) · (λu. [1, 2]*)) ⟨-1.5, 2⟩ (stuck
    # in 20a's premise on 18 before): the body is y, the gradient [1, 2].
    # The answer is a dual map whose body keeps 0 applied ((5⁺) needs a
    # numeric body); its meaning, by the reference's semantics, is [1, 2].
    from revhandlers.pullback import campaign as C
    from revhandlers.pullback.engine import PullbackEvaluator
    from revhandlers.pullback.sexp import from_sexp
    q = ("(app (pullback (* R R) (app (lam R (app (lam R (var 2)) (var 0))) -0.25) "
         "(lam (* R R) (ndual (1.0 2.0)))) (pair -1.5 2.0))")
    with PullbackEvaluator(timeout=30, fuel=C.FUEL) as ev:
        r, _ = ev.result_line(from_sexp(q))
    got = C.meaning(r.value, r.type)
    assert got is not None and list(got) == [1.0, 2.0], r.value


def _zero_functional(q: str):
    value, ty, _ = result(q)
    assert ty == ["dual", ["->", "R", ["dual", "R"]]]
    # (λv. S)* · 0: the 1-form λw. 0 gives the cotangent 0, whose pullback
    # along any map is the zero functional
    assert value[0] == "dual-map" and value[-1] == "zero", value


def test_17_premise_on_a_substituted_point():
    # ((Ω λω0:R⇒R*. (Ω λx. (λp. (λb. π2 p) (-1.5)) ⟨-0.25, x⟩) · ω0) · (λw. 0)) (λr. [-0.5]*):
    # stuck in 17's premise before (a pair substituted into a let series)
    _zero_functional("(app (pullback (-> R (dual R)) (pullback R (app (lam (* R R) (app (lam R (proj 2 (var 1))) "
                     "-1.5)) (pair -0.25 (var 0))) (var 0)) (lam (-> R (dual R)) zero)) (lam R (ndual -0.5)))")


def test_point_substituted_into_a_let_series():
    # the point substituted by 18 into λx. let z = x + y in z, then stuck at the top before
    _zero_functional("(app (pullback (-> R (dual R)) (pullback R (+ (app (lam (-> R R) 0.5) (lam R (let (+ (var 0) "
                     "(var 1)) (var 0)))) 1.25) (var 0)) (lam (-> R (dual R)) zero)) (lam R (ndual 1.0)))")


# ------------------------------------------- stuck classes excluded by the judgment (wf.v)

#: fo2.v's jac_point at sin: ((Ω λy. π1 y π2 y) · λu.0) ⟨J sin · 0.5, 0.5⟩, a
#: body applying a path of its variable whose value at the point is a
#: Jacobian (Remark 3.6, value 2): refused by pb_point_ok
_JAC_POINT = ("(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) "
              "(lam R zero)) (pair (jac sin 0.5) 0.5))")


def test_jac_point_refused(tmp_path, capsys):
    from revhandlers.cli import main
    import io
    f = tmp_path / "jac_point.sexp"
    f.write_text(_JAC_POINT)
    code = main(["pullback", "check", str(f)], out=io.StringIO())
    err = capsys.readouterr().err
    assert code == 2 and "pb_point_ok" in err and "Traceback" not in err, err


def test_point_rule_cases():
    """The condition read off wf.v's pb_point_ok: it needs both an applied
    path in the body and a Jacobian or a pullback in the point."""
    from revhandlers.pullback.sexp import from_sexp
    from revhandlers.pullback.typecheck import ill_formed
    assert ill_formed(from_sexp(_JAC_POINT)) == "pb_point_ok"
    # the body only projects: the Jacobian is data
    assert ill_formed(from_sexp("(app (pullback (* (-> R R) R) (proj 2 (var 0)) (lam R zero)) "
                                "(pair (jac sin 0.5) 0.5))")) is None
    # an abstraction at the applied path (19b): accepted
    assert ill_formed(from_sexp("(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) "
                                "(lam R zero)) (pair (lam R (fun sin (var 0))) 0.5))")) is None
    # a pullback (a 1-form) at the applied path: refused too
    assert ill_formed(from_sexp("(app (pullback (* (-> R (dual R)) R) (app (proj 1 (var 0)) (proj 2 (var 0))) "
                                "(lam (dual R) zero)) "
                                "(pair (pullback R (var 0) (lam R (ndual 1.0))) 0.5))")) == "pb_point_ok"


# ------------------------------------------- rule 18 with its premise ending in a dual map along 0

def test_18_premise_along_zero_reaches_the_zero_functional():
    # fo2.v's lam_query at sin: ((Ω λy:R. λx:R. let a = sin(y) in let b = 3 in b) · λg.0) 2,
    # stuck before (18's premise ends in (λv.⟨v, (J sin · v) 2⟩)* · 0).  By hand:
    # λy. λx. 3 does not depend on y, so its Jacobian is λv. λx. 0, and the
    # 1-form λg.0 gives the cotangent 0: (λv. λx. 0)* · 0, in 2 steps
    # (18 with its zero variant, then β on λg.0).
    value, ty, steps = result("(app (pullback R (lam R (let (fun sin (var 1)) (let 3.0 (var 0)))) "
                              "(lam (-> R R) zero)) 2.0)")
    assert ty == ["dual", "R"]
    assert value[0] == "dual-map" and value[-1] == "zero", value
    body = value[-2]
    assert body[0] == "lam" and body[-1] == "zero", value
    assert steps == 2


def test_19b_premise_along_zero():
    # ((Ω λy:(R⇒R)×R. π1 y π2 y) · λu.[1]*) ⟨λz. let a = sin(z) in let b = 3 in b, 2⟩:
    # 19b's premise on the abstraction ends in (λv′.S′)* · 0 (stuck before).  By
    # hand (D-eval): the derivative of y ↦ (π1 y)(π2 y) at ⟨g, 2⟩ along v is
    # (π1 v)(2) + g′(2)·(π2 v), and g = λz.3 is constant, so the answer is the
    # functional v ↦ (π1 v) 2 against the cotangent [1]: (λv. π1(v) 2)* · [1]*.
    value, ty, _ = result("(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) "
                          "(lam R (ndual 1.0))) (pair (lam R (let (fun sin (var 0)) (let 3.0 (var 0)))) 2.0))")
    assert ty == ["dual", ["*", ["->", "R", "R"], "R"]]
    assert value[0] == "dual-map" and value[-1] == ["ndual", "1.0"], value
    assert value[-2] == ["app", ["proj", "1", ["var", "0"]], "2.0"], value
