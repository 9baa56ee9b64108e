"""The typed premise of progress, ``ztyped`` (``theories/pullback/ztyped.v``:
``0`` and sums only at dual types, outside the bodies of dual maps), as the
tools use it: pullback-eval's extracted ``zcheck`` (``ztyped_infer.v``,
complete on the annotated fragment by ``ztyped_complete.v``), the Python
twin that names the offending ``0`` or sum
(:func:`revhandlers.pullback.typecheck.outside_ztyped`), ``revhandlers
pullback check --ztyped`` and the campaign's classification of stuck runs.

Every expected verdict is read off the rules of ``ztyped`` by hand (where
each ``0`` and sum stands, and at which type), never computed by the code
under test."""

from __future__ import annotations

import subprocess

import pytest

from revhandlers.errors import BadInput, RuntimeFailure
from revhandlers.harness import Divergence
from revhandlers.pullback import campaign as C
from revhandlers.pullback.engine import PullbackEvaluator, pullback_eval_path
from revhandlers.pullback.sexp import from_sexp, to_sexp
from revhandlers.pullback.syntax import TR, Plus, TDual, TProd, Zero
from revhandlers.pullback.typecheck import outside_ztyped

from .test_premise import EXAMPLES, X, Y, query, run


# (term, the rule of ztyped it fails and the subterm at fault, or None; does
# pullback-eval's checker (infer.v) type it?)
CASES = [
    # progress_typed.v's stuck_fun_sum, f(r + r): the sum stands at R
    ("(fun sin (+ 1.0 1.0))", ("zt_plus", "(+ 1.0 1.0)"), True),
    # a 0 as the argument of sin: at R
    ("(fun sin zero)", ("zt_zero", "zero"), True),
    # a sum in the body of a pullback, at R
    (query(f"(fun sin (+ {X} {Y}))"), ("zt_plus", f"(+ {X} {Y})"), True),
    # a sum under a λ, at R
    ("(lam R (+ (var 0) 1.0))", ("zt_plus", "(+ (var 0) 1.0)"), True),
    # a sum of two numeric duals: at R*, allowed
    ("(+ (ndual 1.0) (ndual 2.0))", None, True),
    # a sum at R in the body of a dual map: the body is only typed
    ("(dual-map R (+ (var 0) (var 0)) (ndual 1.0))", None, True),
    # a 0 given the dual type R* by the abstraction it is applied to
    ("(app (lam (dual R) (var 0)) zero)", None, True),
    # the running example's query: no 0, no sum
    (query(f"(fun sq (fun mul (pair {X} {Y})))"), None, True),
    # ⟨0, r⟩: the 0 may be R* (pair_const_ztyped); infer.v infers no type
    # for a pair with a 0 (it has none of its own)
    ("(pair zero 1.0)", None, False),
    # progress_typed.v's stuck_remark36: π1(y) is applied, so the 0 of the
    # point has an arrow type
    ("(app (pullback (* (-> R R) R) (app (proj 1 (var 0)) (proj 2 (var 0))) (lam R (ndual 2.0))) "
     "(pair zero 2.0))", ("zt_zero", "zero"), False),
]


@pytest.fixture(scope="module")
def ev():
    with PullbackEvaluator(timeout=30, fuel=C.FUEL) as ev:
        yield ev


@pytest.mark.parametrize("text,fault,_", CASES)
def test_the_twin_names_the_fault(text, fault, _):
    where = outside_ztyped(from_sexp(text))
    if fault is None:
        assert where is None
    else:
        rule, u, _ty = where
        assert (rule, to_sexp(u)) == fault


def test_the_type_of_the_fault():
    _, u, ty = outside_ztyped(from_sexp("(fun sin (+ 1.0 1.0))"))
    assert isinstance(u, Plus) and ty == "R"
    _, u, ty = outside_ztyped(from_sexp("(app (lam (-> R R) zero) zero)"))
    assert isinstance(u, Zero) and ty == "R ⇒ R"


@pytest.mark.parametrize("text,fault,typed", [c for c in CASES if c[2]])
def test_zcheck_in_pullback_eval(ev, text, fault, typed):
    """The extracted checker: the type where ztyped holds, the bad input
    ``ill-formed`` with the rule ``ztyped`` where it does not; ``check``
    (``typed``) accepts all of them."""
    t = from_sexp(text)
    ty = ev.check(t)
    if fault is None:
        assert ev.zcheck(t) == ty
    else:
        with pytest.raises(BadInput) as e:
            ev.zcheck(t)
        assert (e.value.kind, e.value.rule) == ("ill-formed", "ztyped")


def test_zcheck_types(ev):
    assert ev.zcheck(from_sexp("(+ (ndual 1.0) (ndual 2.0))")) == TDual(TR())
    assert ev.zcheck(from_sexp(query(f"(fun sq (fun mul (pair {X} {Y})))"))) == TDual(TProd(TR(), TR()))


@pytest.mark.parametrize("text,rule,shown", [
    ("(fun sin (+ 1.0 1.0))", "zt_plus", "the sum `1 + 1` stands at type R"),
    ("(fun sin zero)", "zt_zero", "the zero term `zero` stands at type R"),
    (query(f"(fun sin (+ {X} {Y}))"), "zt_plus", "the sum `pi1(v0) + pi2(v0)` stands at type R"),
])
def test_check_ztyped_names_the_fault(text, rule, shown, tmp_path, capsys):
    f = tmp_path / "q.sexp"
    f.write_text(text)
    code, out, err = run(["check", "--ztyped", str(f)], capsys)
    assert code == 2 and out == ""
    assert err.startswith(f"error (ill-formed) [{rule}]: outside the typed premise ztyped"), err
    assert shown in err and "Traceback" not in err
    # without the flag the term is well typed
    code, out, err = run(["check", str(f)], capsys)
    assert code == 0, err


def test_check_ztyped_passes(capsys):
    code, out, err = run(["check", "--ztyped", str(EXAMPLES / "paper_f.pb")], capsys)
    assert code == 0, err
    assert "premises of ztyped hold" in out


def test_pullback_eval_switch():
    """``pullback-eval --ztyped --check``: exit code 2, rule ``ztyped``;
    without the switch the same term checks."""
    exe = str(pullback_eval_path())
    text = "(fun sin (+ 1.0 1.0))"
    z = subprocess.run([exe, "--ztyped", "--check"], input=text, capture_output=True, text=True, timeout=60)
    assert z.returncode == 2 and "(kind ill-formed) (rule ztyped)" in z.stdout + z.stderr
    plain = subprocess.run([exe, "--check"], input=text, capture_output=True, text=True, timeout=60)
    assert plain.returncode == 0 and "(ok (type R))" in plain.stdout


class _Stuck(PullbackEvaluator):
    """A run that ends stuck (simulated) on every query: the campaign must
    tell queries in ztyped (a divergence) from those outside it."""

    def result_line(self, term):
        raise RuntimeFailure("stuck", "no rule applies after 0 steps, and the term is not a value (simulated)")


def test_campaign_classifies_stuck_runs():
    with _Stuck(timeout=30, fuel=C.FUEL) as stuck:
        # a 0 in the point stands at R: outside ztyped (zt_zero)
        outside = from_sexp(query(f"(fun sin {X})", "(pair zero 1.0)"))
        assert C.check(outside, stuck, machine=False) == "outside ztyped (first-order, stuck, zt_zero)"
        # a query in ztyped that ends stuck contradicts progress: a divergence
        inside = from_sexp(query(f"(fun sq (fun mul (pair {X} {Y})))"))
        with pytest.raises(Divergence, match=r"a well-typed query ends stuck \(.*in the typed premise ztyped"):
            C.check(inside, stuck, machine=False)


def test_campaign_counts_queries_outside_ztyped(ev):
    from collections import Counter
    steps: Counter = Counter()
    C.check(from_sexp(query(f"(fun sin (+ {X} {Y}))")), ev, steps=steps, machine=False)
    C.check(from_sexp(query(f"(fun sq (fun mul (pair {X} {Y})))")), ev, steps=steps, machine=False)
    assert steps["outside ztyped: zt_plus"] == 1
    assert C.ztyped_line(steps) == "outside ztyped (well-formed queries): 1 (zt_plus 1)"


def test_the_campaign_counts_without_the_twin_where_zcheck_accepts(ev, monkeypatch):
    """The campaign takes the verdict of the extracted ``zcheck`` and asks
    the Python twin only to name the rule of a query it refuses: on a query
    in ``ztyped`` the twin is not called, on one outside it once.  The
    verdicts are read off the rules of ``ztyped`` by hand: the running
    example has no 0 and no sum; ``sin(x + y)`` puts a sum at ``R``."""
    from collections import Counter
    calls: list = []

    def twin(t, ctx=()):
        calls.append(t)
        return outside_ztyped(t, ctx)

    monkeypatch.setattr(C, "outside_ztyped", twin)
    inside = from_sexp(query(f"(fun sq (fun mul (pair {X} {Y})))"))
    outside = from_sexp(query(f"(fun sin (+ {X} {Y}))"))
    steps: Counter = Counter()
    for t in (inside, outside):
        answers = tuple(ev.request(f"({kind} {to_sexp(t)})") for kind in C.KINDS) + (None,)
        C.check(t, ev, steps=steps, machine=False, answers=answers)
    assert calls == [outside]
    assert C.counted_rule(inside, ev) is None and C.counted_rule(outside, ev) == "zt_plus"
    assert calls == [outside, outside]
    assert C.ztyped_line(steps) == "outside ztyped (well-formed queries): 1 (zt_plus 1)"
    # a refusal for another reason (an error answer) is named by the twin too
    assert C.counted_rule(outside, ev, "(error (kind timeout) (rule none) (message \"late\"))") == "zt_plus"


def test_counted_rule_counts_as_the_twin_alone():
    """Counting by ``zcheck``'s verdict first counts what the twin alone
    counted (the campaign's counts do not change): on 600 generated
    well-formed queries, ``zcheck`` accepts no query the twin blames, and a
    query it refuses is counted by the twin's rule.  The twin (a most
    general typing, then each 0 and sum unified with a dual type) and the
    extracted checker (``ztc``, with its guesses) are computed
    independently."""
    from revhandlers.pipe import Pipe
    from revhandlers.pullback.direct import draw_case
    from revhandlers.pullback.typecheck import ill_formed
    strategy = C.direct_cases()
    terms = [t for t in (C.term_of(draw_case(strategy, 29, i)) for i in range(900)) if ill_formed(t) is None][:600]
    texts = [to_sexp(t) for t in terms]
    pipe = Pipe(("--fuel", str(C.FUEL)), 30, path=pullback_eval_path())
    try:
        pipe.send([f"(zcheck {x})" for x in texts])
        lines = pipe.receive(len(texts))
    finally:
        pipe.close()
    counts: dict = {"accepted": 0, "blamed": 0}
    for t, line in zip(terms, lines):
        where = outside_ztyped(t)
        if line.startswith("(ok "):
            counts["accepted"] += 1
            assert where is None, to_sexp(t)
        counts["blamed"] += where is not None
        assert C.counted_rule(t, None, line) == (None if where is None else where[0])
    assert len(terms) == 600 and counts["accepted"] >= 100 and counts["blamed"] >= 100, counts
