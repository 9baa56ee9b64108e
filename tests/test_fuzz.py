"""Differential testing: the generator, the cross-checker on a bounded
campaign with rule coverage, the corpus, and divergence detection."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings

import revhandlers as rh
from revhandlers.rh import sexp as rh_sexp
from revhandlers.rh import campaign as fuzz
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.gen import chains, programs
from revhandlers.rh.typecheck import check_program

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
    from revhandlers.rh import autodiff as ad

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
    assert len(rh_sexp.program_sexp(prog)) < 2000     # shrunk to something small


def test_a_wrong_order_of_backward_clauses_is_found(monkeypatch):
    """With the backward clauses run in program order in the reference (the
    cotangent of a layer is then read before the next layer's backward clause
    has produced it), a campaign finds a divergence: the generator's chains
    of operations carry cotangents from clause to clause."""
    from revhandlers.rh import reference
    monkeypatch.setattr(reference, "reversed", lambda records: list(records), raising=False)
    report = fuzz.campaign(300, seed=7, max_size=8)
    assert report.divergence is not None


@settings(max_examples=100, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(chains(6))
def test_chains_carry_cotangents_through_every_link(verified, prog):
    """Each link's argument is a term of the previous link's result, so the
    program's gradient depends on every backward clause."""
    from revhandlers.rh.syntax import CLet, Op, RevHandle
    assert isinstance(prog.main, RevHandle)
    body, prev, links = prog.main.body, "x0", 0
    while isinstance(body, CLet):
        assert isinstance(body.bound, Op) and prev in _free_names(body.bound.arg)
        prev, body, links = body.var, body.body, links + 1
    assert 2 <= links <= 4 and prev in _free_names(body.term)
    assert check_program(prog) == verified.check(prog)


def _free_names(m) -> set[str]:
    from revhandlers.rh.syntax import Var
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
    from revhandlers.rh.families import op_chain
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
    """Five programs cannot fire every rule: no divergence, and with
    ``--holes-fail-from 5`` exit code 3 (not 1, which means a divergence)."""
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "5", "--seed", "3",
                           "--holes-fail-from", "5", "--corpus", str(tmp_path)],
                          cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 3, proc.stdout + proc.stderr
    assert "divergences: 0" in proc.stdout and "COVERAGE HOLES:" in proc.stdout


def test_fuzz_holes_of_a_small_campaign_are_a_warning(tmp_path):
    """A newcomer's first campaign: below the size from which every rule is
    expected to fire (1000 programs), a hole is a warning that says from
    which size it fails, and the exit code is 0."""
    proc = subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", "5", "--seed", "3",
                           "--corpus", str(tmp_path)], cwd=ROOT, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "COVERAGE HOLES:" not in proc.stdout
    assert re.search(r"^coverage holes \(a warning below 1000 programs\): .* never fired in 5 programs; "
                     r"a campaign of 1000 programs or more, .* fails on a hole with exit code 3", proc.stdout, re.M), \
        proc.stdout


# ------------------------------------------------ the fast campaign's parts

def test_seeded_programs_are_reproducible_and_replayable():
    """Program i of seed s is the same whenever it is drawn; its recorded
    choices replay to it; programs of other seeds or indices differ."""
    from revhandlers.rh import gen
    a = [rh_sexp.program_sexp(gen.seeded_program(11, i)) for i in range(50)]
    assert a == [rh_sexp.program_sexp(gen.seeded_program(11, i)) for i in range(50)]
    assert len(set(a)) > 45
    assert a[:10] != [rh_sexp.program_sexp(gen.seeded_program(12, i)) for i in range(10)]
    for i in range(50):
        prog, choices = gen.recorded_program(11, i)
        assert rh_sexp.program_sexp(prog) == a[i]
        assert gen.replayed_program(choices) == prog


#: sha256 of the texts of programs 0-1999 of seed 5 (and 0-299 of seed
#: 20261201 at size 6), one a line, as the generator and the printer wrote
#: them before they were made faster (docs/decisions.md, "The campaign's
#: rate, generation and printing"): a campaign of a given seed checks the
#: same programs as before
SEEDED_DIGESTS = {(5, 2000, 10): "d3623ece8eec0dd29d6032693719fa7bca15b29598fb6945bcce6a2425224f7f",
                  (20261201, 300, 6): "08c406c562a02aaee9fd200544f70f062391dd7abc03ac7ec72703c78c9a5d41"}


@pytest.mark.parametrize("seed,n,size", sorted(SEEDED_DIGESTS))
def test_seeded_programs_are_the_programs_of_before(seed, n, size):
    import hashlib

    from revhandlers.rh import gen
    h = hashlib.sha256()
    for i in range(n):
        h.update(rh_sexp.program_sexp(gen.seeded_program(seed, i, size)).encode() + b"\n")
    assert h.hexdigest() == SEEDED_DIGESTS[seed, n, size]


def _edge_programs():
    """Programs the generator does not write: quoted names, numbers that
    are not finite, integers for numbers, a signed zero."""
    from revhandlers.rh.syntax import (CCons, Const, Handler, LocDecl, Op, OpDecl, OpPut, OpUser, Program, Ret,
                                       RevHandle, TBase, Tuple, Var)
    real1 = TBase(1)
    clause = CCons(OpUser("my op"), real1, "x y", Ret(Tuple((Var("x y"), Var("x y")))), "y", 'z"', Ret(Var("y")))
    body = Op(OpUser("my op"), Var("a\tb"))
    main = RevHandle(Tuple((Const((float("nan"), float("inf"), -0.0, 3)),)), ("a\tb",), body,
                     Handler("r", Ret(Var("r")), (clause,)))
    yield Program(main, (OpDecl("my op", real1, real1),), (LocDecl("l 0", (2, 3)),),
                  (("l 0", (1, -2.5, float("-inf"), 0, 1e300, -1e-300)),), fuel=7)
    yield Program(Ret(Const((1, 2.0))), (), (LocDecl("l", (4,)),), (), fuel=None)
    yield Program(Op(OpPut("l"), Const(())), (), (LocDecl("l", (0,)),), (("l", ()),))
    yield Program(Ret(Tuple((Const((0.1,)), Const((-0.0,))))), (), (), (), fuel=3)


def test_the_one_pass_printer_writes_what_the_general_printer_writes():
    """program_sexp (one pass, one join) against the printer it replaces in
    the campaign (_program with the spelling as given, the printer
    coq_program_sexp shares), on the campaign's programs and on edge cases."""
    from revhandlers.rh import gen
    progs = [gen.seeded_program(s, i) for s in (1, 5) for i in range(600)] + list(_edge_programs())
    for p in progs:
        assert rh_sexp.program_sexp(p) == rh_sexp._program(p, rh_sexp._AS_GIVEN)


@settings(max_examples=60, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(programs())
def test_the_one_pass_printer_on_drawn_programs(prog):
    assert rh_sexp.program_sexp(prog) == rh_sexp._program(prog, rh_sexp._AS_GIVEN)


def test_any_choice_sequence_gives_a_well_typed_program(verified):
    """The shrinker replays arbitrary sequences: cut, zeroed or shuffled
    choices still make well-typed programs (or run out: Overrun)."""
    import random
    from revhandlers.rh import gen
    rng = random.Random(3)
    made = 0
    for i in range(200):
        _, choices = gen.recorded_program(5, i)
        cut = [c for c in choices if rng.random() < 0.7]
        cut = [0 if rng.random() < 0.2 else c for c in cut] + [0] * 200
        try:
            prog = gen.replayed_program(cut)
        except gen.Overrun:
            continue
        made += 1
        assert check_program(prog) == verified.check(prog)
    assert made > 100


def test_shrinking_choices_reaches_a_small_program():
    """Shrinking toward 'the program has an rd term whose body uses swish'
    ends with a program that still has one and is much smaller."""
    from revhandlers.rh import gen
    from revhandlers.rh.syntax import Rd

    def has(m, pred):
        if pred(m):
            return True
        for f in getattr(m, "__dataclass_fields__", {}):
            v = getattr(m, f)
            for c in (v if isinstance(v, tuple) else (v,)):
                if hasattr(c, "__dataclass_fields__") and has(c, pred):
                    return True
        return False

    def wanted(p):
        return has(p.main, lambda m: isinstance(m, Rd) and fuzz._uses(m.body, ("swish",)))

    i = next(i for i in range(1000) if wanted(gen.seeded_program(2, i))
             and len(rh_sexp.program_sexp(gen.seeded_program(2, i))) > 600)
    prog, choices = gen.recorded_program(2, i)
    best = gen.shrink_choices(choices, lambda ch: wanted(gen.replayed_program(ch)))
    small = gen.replayed_program(best)
    assert wanted(small)
    assert len(best) < len(choices) and len(rh_sexp.program_sexp(small)) < len(rh_sexp.program_sexp(prog)) / 2


def test_a_pipe_answers_a_batch_in_order_and_survives_a_hang():
    """Requests of a batch are answered in order; one that gets no answer
    in time (here rh-eval's own limit is off, so the wrapper's acts: the
    process is stopped) is a timeout, and the requests after it are sent
    again to a new process and answered."""
    from revhandlers.rh.families import op_chain
    slow = rh_sexp.program_sexp(op_chain(400))
    small = rh_sexp.program_sexp(rh.load(ROOT / "examples" / "one_layer.rh"))
    pipe = fuzz.Pipe(fuzz.MODEL_FLAGS, timeout=0.5)
    pipe.args = pipe.args[:-2] + ["--timeout", "0"]
    try:
        pipe.send([f"(check {small})", f"(run {slow})", f"(run {small})", f"(check {small})"])
        answers = pipe.receive()
        assert len(answers) == 4
        assert answers[0].startswith("(ok (type") and answers[3] == answers[0]
        assert answers[1] == fuzz.TIMEOUT_ANSWER
        assert answers[2].startswith("(result (value")
    finally:
        pipe.close()


def test_the_campaign_catches_a_fast_evaluator_off_by_one_bit(monkeypatch):
    """The bounded campaign fails when the fast evaluator's answers differ
    from the model's in the last digit of a number (a stand-in for a bug in
    extracted/vec.ml): answers are compared exactly, text or bits."""
    real = fuzz.Pipe.receive

    def receive(self, count=None):
        answers = real(self, count)
        if "--small-step" in self.args:
            return answers
        return [a.replace("1)) (heap", "2)) (heap", 1) for a in answers]

    monkeypatch.setattr(fuzz.Pipe, "receive", receive)
    report = fuzz.campaign(500, seed=20261201, max_size=10, timeout=2.0)
    assert report.divergence is not None and "fast evaluator" in report.divergence, report.divergence


def test_a_program_near_overflow_agrees_within_its_vectors_scale(model, verified):
    """Values near 1e284 (a chain of operations feeding its own growth): the
    reference, which differentiates another way, overflows in a matrix
    product on the way back, and a component 13 orders below the largest
    comes out 0 where the evaluators give -4.99e178; compared to the
    largest magnitude of the vector, that is within the tolerance."""
    prog = rh.load(ROOT / "tests" / "corpus" / "overflow" / "chain-overflow.sexp")
    a = model.run(prog).value[0]
    assert abs(a[0]) > 1e284 and np.isfinite(a).all() and a[1] != 0
    assert fuzz.crosscheck(prog, model, fast=verified).kind == "agree"


def test_values_agree_within_the_largest_magnitude_of_each_vector():
    agree = fuzz._values_agree
    big = 1.157e31
    assert agree(np.array([-4.288e6, -big]), np.array([-4.2897e6, -big]))       # 1.7e3 off, 1e-28 of the largest
    assert not agree(np.array([1.0, 2.0]), np.array([1.0, 2.001]))
    assert not agree(np.array([1.0, 1e6]), np.array([1.0 + 1e-6 * 1e6, 1e6]))
    assert agree(np.array([1.0, 1e6]), np.array([1.0 + 1e-8 * 1e6, 1e6]))
    assert not agree(np.array([5.0, 1.0]), np.array([np.inf, 1.0]))
    assert not agree(np.array([np.inf, 1.0]), np.array([1e300, 1.0]))
    assert not agree(np.array([-np.inf]), np.array([np.inf]))
    assert agree(np.array([np.inf, np.nan]), np.array([np.inf, np.nan]))
    assert not agree(np.array([np.nan, 1.0]), np.array([2.0, 1.0]))
    assert not agree((np.array([1.0]),), (np.array([1.0]), np.array([2.0])))


def test_a_campaign_leaves_its_programs_to_reference_counting_and_the_collector_as_it_was():
    """The programs of a campaign, and the batches around them, are freed by
    their reference counts, not by the cyclic collector: an error answer
    (out of fuel) kept with its traceback was a cycle through the frames
    that hold the batch (docs/decisions.md, "The campaign's rate: the
    remainder outside the phases").  The collector's settings are restored."""
    import gc

    from revhandlers.rh.syntax import Program
    before = gc.get_threshold(), gc.get_freeze_count()
    gc.collect()
    gc.disable()
    try:
        report = fuzz.campaign(1000, seed=5, max_size=10)
        gc.set_debug(gc.DEBUG_SAVEALL)
        gc.collect()
        left = sum(isinstance(o, Program) for o in gc.garbage)
    finally:
        gc.set_debug(0)
        gc.garbage.clear()
        gc.enable()
    assert report.divergence is None and report.outcomes["skipped (out-of-fuel)"] > 0, report.outcomes
    assert left == 0
    assert (gc.get_threshold(), gc.get_freeze_count()) == before
