"""Differential testing: the generator, the cross-checker on a bounded
campaign with rule coverage, the corpus, and divergence detection."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import revhandlers as rh
from revhandlers import fuzz
from revhandlers.evaluator import VerifiedEvaluator
from revhandlers.gen import chains, programs
from revhandlers.typecheck import check_program

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.sexp"))


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


@pytest.fixture(scope="module")
def model():
    """rh-eval extracted from Coq throughout: small-step, list model of vectors."""
    ev = VerifiedEvaluator(flags=fuzz.MODEL_FLAGS)
    yield ev
    ev.close()


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_generated_programs_are_accepted_by_both_checkers(verified, prog):
    assert check_program(prog) == verified.check(prog)


def test_bounded_campaign_agrees_and_covers_every_rule():
    """A fixed-seed campaign: no divergence, every rule and rewriting case
    fires (the rd-depth bound is never spent), and few programs are skipped
    for fuel or time (a campaign that skips its programs proves nothing)."""
    report = fuzz.campaign(3000, seed=20261201, max_size=10, timeout=2.0)
    assert report.divergence is None, report.divergence
    assert report.programs == 3000
    assert report.skipped < 0.05 * report.programs, report.outcomes
    assert fuzz.coverage_holes(report.coverage) == [], fuzz.coverage_table(report.coverage)
    assert report.outcomes["rd terms checked against finite differences"] > 500
    # the fast evaluator was compared bit for bit with the model on (almost) every program
    assert report.outcomes["fast evaluator identical to the model"] > 0.9 * report.programs


def test_the_fast_evaluator_is_compared_bit_for_bit(model, monkeypatch):
    """A fast evaluator whose answer differs from the model's in the last
    bit of one number is a divergence (no tolerance between those two)."""
    prog = rh.load(ROOT / "examples" / "sexp" / "one_layer.sexp")

    class OffByOneUlp:
        def run(self, p):
            res = model.run(p)
            loc = next(iter(res.heap))
            res.heap[loc] = np.nextafter(res.heap[loc], np.inf)
            return res

    with pytest.raises(fuzz.Divergence, match="differs from the model"):
        fuzz.crosscheck(prog, model, fast=OffByOneUlp())


def test_corpus_is_not_empty():
    assert len(CORPUS) >= 2


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_replays_without_divergence(model, verified, path):
    prog = rh.load(path)
    assert fuzz.crosscheck(prog, model, fast=verified).kind == "agree"


def test_nested_default_clauses_in_the_corpus_compute_the_right_gradient(verified):
    """An independent check of the corpus program with nested handlers.  The
    inner handler has no clause for Op0: its default clause performs Op0
    outside (the outer clause reads l0) and passes back a zero cotangent, so
    the inner rev handle's result is 0 and l0 gets no gradient.  The outer
    result is then d/dx0 (0 + x0) times the return clause's 3·r at r = x0 = 2."""
    res = verified.run(rh.load(ROOT / "tests" / "corpus" / "nested-default-clauses.sexp"))
    np.testing.assert_allclose(res.value[0], [3.0 * 2.0], rtol=0, atol=0)
    np.testing.assert_allclose(res.heap["l0"], [0.5], rtol=0, atol=0)


def test_a_divergence_is_found_shrunk_and_written(tmp_path, monkeypatch):
    """With a wrong reverse derivative in the reference (the sign of the
    second argument of sub), the campaign finds a divergence, shrinks it,
    writes it to the corpus, and the written program reproduces it."""
    from revhandlers import autodiff as ad

    def bad_sub(a, b):
        return ad._op(a.value - b.value, (a, lambda g: g), (b, lambda g: g))

    monkeypatch.setattr(ad, "sub", bad_sub)
    report = fuzz.campaign(2000, seed=5, max_size=8, corpus=tmp_path)
    assert report.divergence is not None
    written = Path(report.corpus_file)
    assert written.parent == tmp_path and "seed 5" in written.read_text()
    prog = rh.load(written)
    ev = VerifiedEvaluator()
    try:
        with pytest.raises(fuzz.Divergence):
            fuzz.crosscheck(prog, ev)
    finally:
        ev.close()
    assert len(rh.sexp.program_sexp(prog)) < 2000     # shrunk to something small


def test_a_wrong_order_of_backward_clauses_is_found(monkeypatch):
    """With the backward clauses run in program order in the reference (the
    cotangent of a layer is then read before the next layer's backward clause
    has produced it), a campaign finds a divergence: the generator's chains
    of operations carry cotangents from clause to clause."""
    from revhandlers import reference
    monkeypatch.setattr(reference, "reversed", lambda records: list(records), raising=False)
    report = fuzz.campaign(300, seed=7, max_size=8)
    assert report.divergence is not None


@settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(chains(6))
def test_chains_carry_cotangents_through_every_link(verified, prog):
    """Each link's argument is a term of the previous link's result, so the
    program's gradient depends on every backward clause."""
    from revhandlers.ast import CLet, Op, RevHandle
    assert isinstance(prog.main, RevHandle)
    body, prev, links = prog.main.body, "x0", 0
    while isinstance(body, CLet):
        assert isinstance(body.bound, Op) and prev in _free_names(body.bound.arg)
        prev, body, links = body.var, body.body, links + 1
    assert 2 <= links <= 4 and prev in _free_names(body.term)
    assert check_program(prog) == verified.check(prog)


def _free_names(m) -> set[str]:
    from revhandlers.ast import Var
    if isinstance(m, Var):
        return {m.name}
    out = set()
    for f in getattr(m, "__dataclass_fields__", {}):
        v = getattr(m, f)
        for c in (v if isinstance(v, tuple) else (v,)):
            if hasattr(c, "__dataclass_fields__"):
                out |= _free_names(c)
    return out


def test_a_program_over_time_is_skipped_and_the_evaluator_recovers():
    """A request that gets no answer within the timeout fails with kind
    ``timeout``: rh-eval stops it itself (its --timeout, a little under the
    wrapper's, and the process survives), or the wrapper kills the process
    and the next request starts a new one; a campaign counts such a program
    as skipped."""
    from revhandlers.errors import RuntimeFailure
    from revhandlers.families import op_chain
    # a rev handle around a chain of 400 operations: on the small-step
    # evaluator its run takes seconds (docs/decisions.md, "Cost of the
    # evaluator"; the campaign's model engine is the small-step one)
    slow = op_chain(400)
    small = rh.load(ROOT / "examples" / "one_layer.rh")
    ev = VerifiedEvaluator(timeout=0.3, flags=fuzz.MODEL_FLAGS)
    try:
        with pytest.raises(RuntimeFailure) as err:
            ev.run(slow)
        assert err.value.kind == "timeout"
        assert ev._proc is None or ev._proc.poll() is None
        assert ev.run(small).value is not None
        assert fuzz.crosscheck(slow, ev).kind == "skipped"
    finally:
        ev.close()


def test_fuzz_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "150", "--seed", "3",
                           "--corpus", str(tmp_path), "--allow-holes"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "programs: 150" in proc.stdout and "divergences: 0" in proc.stdout
    assert "rule coverage:" in proc.stdout and "rh_op" in proc.stdout


def test_fuzz_command_line_with_jobs_reports_progress(tmp_path):
    """With --jobs, the workers' programs add up in one progress bar (a line
    per tenth in a log) and in the summary."""
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "60", "--seed", "4", "--jobs", "2",
                           "--corpus", str(tmp_path), "--allow-holes"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "programs: 60 in" in proc.stdout and "2 job(s)" in proc.stdout and "divergences: 0" in proc.stdout
    bars = [line for line in proc.stderr.splitlines() if line.startswith("fuzz [")]
    assert bars and bars[-1].split()[2] == "60/60" and "programs/s" in bars[-1]


def test_fuzz_exit_code_3_for_a_rule_that_never_fired(tmp_path):
    """Five programs cannot fire every rule: no divergence, exit code 3 (not
    1, which means a divergence)."""
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "5", "--seed", "3",
                           "--corpus", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "divergences: 0" in proc.stdout and "COVERAGE HOLES:" in proc.stdout
