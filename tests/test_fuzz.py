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
from revhandlers.gen import programs
from revhandlers.typecheck import check_program

ROOT = Path(__file__).resolve().parents[1]
CORPUS = sorted((ROOT / "tests" / "corpus").glob("*.sexp"))


@pytest.fixture(scope="module")
def verified():
    ev = VerifiedEvaluator()
    yield ev
    ev.close()


@settings(max_examples=300, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_generated_programs_are_accepted_by_both_checkers(verified, prog):
    assert check_program(prog) == verified.check(prog)


def test_bounded_campaign_agrees_and_covers_every_rule():
    """A fixed-seed campaign: no divergence, and every rule and rewriting
    case fires (the rd-depth bound is never spent)."""
    report = fuzz.campaign(1200, seed=20261201, max_size=10)
    assert report.divergence is None, report.divergence
    assert report.programs == 1200
    assert fuzz.coverage_holes(report.coverage) == [], fuzz.coverage_table(report.coverage)
    assert report.outcomes["rd terms checked against finite differences"] > 50


def test_corpus_is_not_empty():
    assert len(CORPUS) >= 2


@pytest.mark.parametrize("path", CORPUS, ids=lambda p: p.name)
def test_corpus_replays_without_divergence(verified, path):
    prog = rh.load(path)
    assert fuzz.crosscheck(prog, verified).kind == "agree"


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


def test_fuzz_command_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "150", "--seed", "3",
                           "--corpus", str(tmp_path), "--allow-holes"],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "programs: 150" in proc.stdout and "divergences: 0" in proc.stdout
    assert "rule coverage:" in proc.stdout and "rh_op" in proc.stdout
