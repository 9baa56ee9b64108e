"""Corollary 5.2 on the first-order fragment (``theories/pullback/fo.v``,
``norm_fo.v``: ``fq_norm``): every query of the fragment ``fq`` reduces to
a value, so ``pullback-eval`` never ends one stuck.  The fragment is
decided by ``premise.py``'s ``fq``, the mirror of ``fo.v``'s (``flat``,
``fob``, ``fo_body``, ``dflat``, ``form``, ``fq``); the expected outcome, a value, is the theorem's, not
``pullback-eval``'s.  The generated queries outside the fragment do end
stuck, so the check can fail."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest
from revhandlers.errors import RevHandlersError
from revhandlers.pullback import campaign as C
from revhandlers.pullback.direct import draw_case
from revhandlers.pullback.engine import PullbackEvaluator
from revhandlers.pullback.premise import fq
from revhandlers.pullback.sexp import to_sexp
from revhandlers.pullback.syntax import (
    Tm,
)

ROOT = Path(__file__).resolve().parents[2]
CORPUS = ROOT / "tests" / "corpus" / "pullback"


@pytest.fixture(scope="module")
def ev():
    with PullbackEvaluator(timeout=30, fuel=C.FUEL) as ev:
        yield ev


def outcome(ev: PullbackEvaluator, t: Tm) -> str:
    try:
        ev.run(t)
        return "value"
    except RevHandlersError as e:
        return e.kind


@pytest.mark.parametrize("seed", [26, 7])
def test_fragment_queries_end_in_a_value(ev, seed):
    """400 queries drawn as the campaign draws them: those in the fragment
    (about a quarter) all end in a value; some first-order ones outside it
    are in the two excluded classes, which the checker now refuses
    (`ill-formed`, wf.v) where the evaluator would leave them stuck."""
    strategy = C.direct_cases()
    counts: Counter = Counter()
    for i in range(400):
        t = C.term_of(draw_case(strategy, seed, i))
        inside = fq(t)
        got = outcome(ev, t)
        counts[("fq" if inside else C.order_of(t), got)] += 1
        assert not inside or got == "value", f"query {i} of seed {seed} is in fq and ends {got}: {t}"
    assert counts[("fq", "value")] >= 50, counts
    assert counts[("first-order", "ill-formed")] + counts[("first-order", "stuck")] >= 1, counts


def test_corpus_classified():
    """The paper's query and Example 3.3 (its constants bound by lets of
    their own) are in the fragment; a let pairing a constant (not a let
    series) and a higher-order body are not."""
    def case(name: str) -> Tm:
        return C.read_case((CORPUS / name).read_text())
    assert fq(case("paper-f.sexp"))
    assert fq(case("example-3-3.sexp"))
    assert not fq(case("let-not-a-series.sexp"))
    assert not fq(case("higher-order.sexp"))
    assert not fq(case("sum-gradient.sexp"))


def test_fragment_corpus_queries_end_in_a_value(ev):
    for name in ("paper-f.sexp", "example-3-3.sexp"):
        assert outcome(ev, C.read_case((CORPUS / name).read_text())) == "value", name


@pytest.fixture(scope="module")
def starved():
    """A pullback-eval with one step of fuel: only the fuel-free run
    (``fo_run.v``, ``fo_run_opt``) brings a query of several steps to a
    value with it."""
    with PullbackEvaluator(timeout=30, fuel=1) as ev:
        yield ev


@pytest.mark.parametrize("seed", [26, 7])
def test_fuel_free_run_agrees_with_the_fuelled_one(ev, starved, seed):
    """``(run Q)`` takes the fuel-free path on the fragment and
    ``(run-fuel Q)`` always the fuelled normaliser: on 300 queries drawn
    as the campaign draws them, both give the same answer, line for line
    (value and number of steps: ``fo_run_opt_normalize``), with the
    campaign's fuel; with one step of fuel, ``(run Q)`` still gives it on
    every query of the fragment (the Python mirror :func:`fq` says which)
    while ``(run-fuel Q)`` runs out of fuel, and outside the fragment the
    two requests are the same fuelled run."""
    strategy = C.direct_cases()
    counts: Counter = Counter()
    for i in range(300):
        t = C.term_of(draw_case(strategy, seed, i))
        fuelled = ev.request(f"(run-fuel {to_sexp(t)})")
        assert ev.request(f"(run {to_sexp(t)})") == fuelled, f"query {i} of seed {seed}: {t}"
        short = starved.request(f"(run {to_sexp(t)})")
        short_fuelled = starved.request(f"(run-fuel {to_sexp(t)})")
        if fq(t):
            assert short == fuelled, f"query {i} of seed {seed} is in fq: {short[:200]}"
            steps = C.result_of(fuelled).steps
            assert steps <= 1 or short_fuelled.startswith("(error (kind out-of-fuel)"), short_fuelled[:200]
            counts["fq"] += 1
            counts["fq, more than one step"] += steps > 1
        else:
            assert short == short_fuelled, f"query {i} of seed {seed}: {short[:200]}"
            counts["outside"] += 1
    assert counts["fq, more than one step"] >= 30 and counts["outside"] >= 30, counts
