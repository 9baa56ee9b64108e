"""The campaign harness every differential campaign shares (``revhandlers
fuzz`` for the reverse-handler calculus, ``revhandlers dbr fuzz`` for the
define-by-run library): Hypothesis draws the cases from a fixed seed, a
check compares the engines on each, a divergence is shrunk by Hypothesis to
a smallest case and written to a corpus directory (replayed by the test
suite), and ``--jobs`` runs seeds ``seed, seed+1, …`` in parallel
processes with one progress bar.  Exit codes, like Csmith's comparison
driver: 0 no divergence, 1 divergence, 2 could not run.  (``revhandlers
fuzz`` draws from a seeded generator and shrinks by itself, in
:mod:`revhandlers.fuzz`; it shares the jobs, the summary and the corpus
files.)"""

from __future__ import annotations

import hashlib
import multiprocessing as mp
import sys
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

from .errors import RevHandlersError


class Divergence(AssertionError):
    """Two engines disagree on a case."""


@dataclass
class Report:
    programs: int = 0
    skipped: int = 0
    seconds: float = 0.0
    divergence: str | None = None
    corpus_file: str | None = None
    outcomes: Counter = field(default_factory=Counter)
    coverage: Counter = field(default_factory=Counter)


def write_corpus(text: str, corpus: Path, seed: int, message: str, command: str, suffix: str = ".sexp",
                 shrunk_by: str = "Hypothesis") -> Path:
    """A shrunk divergence as a corpus file: ``text`` (one S-expression)
    under a header naming the seed, the command, the shrinker and the message."""
    corpus.mkdir(parents=True, exist_ok=True)
    digest = hashlib.sha256(text.encode()).hexdigest()[:12]
    path = corpus / f"divergence-{seed}-{digest}{suffix}"
    header = (f"; found by `{command} --seed {seed}`, shrunk by {shrunk_by}\n"
              + "".join(f"; {line}\n" for line in message.splitlines()[:5]))
    path.write_text(header + text + "\n")
    return path


def run_campaign(strategy, check: Callable, n: int, seed: int, save: Callable | None = None,
                 progress: Callable | None = None) -> Report:
    """Draw ``n`` cases from ``strategy`` reproducibly from ``seed`` and call
    ``check(case)`` on each: it returns the outcome's name (``"skipped…"``
    counts as skipped) or raises :class:`Divergence`.  The first divergence
    is shrunk; ``save(case, message)`` then returns the corpus file written.
    The caller adds its own counters to the report's ``outcomes`` and
    ``coverage`` after the run."""
    from hypothesis import HealthCheck, Phase, given, settings
    from hypothesis import seed as hseed

    report = Report()
    last: dict = {}
    start = time.time()

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, derandomize=False, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    @given(strategy)
    def one(case):
        try:
            outcome = check(case)
        except Divergence as e:
            last["case"], last["msg"] = case, str(e)
            raise
        except Exception as e:      # a crash of the check or of an engine: shrunk and reported like a divergence
            last["case"], last["msg"] = case, f"crash: {type(e).__name__}: {e}"[:2000]
            raise Divergence(last["msg"]) from e
        report.programs += 1
        report.outcomes[outcome] += 1
        if outcome.startswith("skipped"):
            report.skipped += 1
        if progress:
            progress(report)

    try:
        one()
    except Divergence:
        report.divergence = last.get("msg")
        if save is not None and "case" in last:
            report.corpus_file = str(save(last["case"], report.divergence))
    finally:
        report.seconds = time.time() - start
    return report


_DONE = None      # the cases checked, by every worker of ``--jobs``
_BAR = None       # the progress bar, when the campaign runs in this process


def _init_worker(done) -> None:
    global _DONE
    _DONE = done


def count_done(_report, k: int = 1) -> None:
    """The ``progress`` of a campaign run by :func:`run_jobs` (``k`` cases more)."""
    if _DONE is not None:
        with _DONE.get_lock():
            _DONE.value += k
        if _BAR is not None:
            _BAR.update(_DONE.value)


def run_jobs(job: Callable, n: int, seed: int, jobs: int, args: tuple, label: str, scheduler: str | None = None,
             batch_job: Callable | None = None, shrink: Callable | None = None, unit: str = "programs") -> list[Report]:
    """``job((k, seed_i, *args))`` for ``jobs`` processes sharing ``n``
    cases (seeds ``seed, seed+1, …``), with one progress bar; ``job`` is a
    module-level function that passes :func:`count_done` as its campaign's
    progress.  One job runs in this process.  With ``scheduler`` (``--scheduler``),
    the same jobs run on a Dask cluster, cut into batches by ``batch_job``
    when given (:func:`revhandlers.cluster.run_on_cluster`)."""
    global _DONE, _BAR
    from .train import Progress
    if scheduler:
        from .cluster import run_on_cluster
        return run_on_cluster(job, n, seed, jobs, args, label, scheduler, batch_job=batch_job, shrink=shrink,
                              unit=unit)
    jobs = max(1, jobs)
    bar = Progress(n, label, unit="programs")
    done = mp.Value("q", 0)
    if jobs == 1:
        _DONE, _BAR = done, bar
        try:
            return [job((n, seed, *args))]
        finally:
            _DONE, _BAR = None, None
    per = [n // jobs + (1 if i < n % jobs else 0) for i in range(jobs)]
    with mp.Pool(jobs, initializer=_init_worker, initargs=(done,)) as pool:
        pending = pool.map_async(job, [(k, seed + i, *args) for i, k in enumerate(per)])
        while not pending.ready():
            pending.wait(0.5)
            bar.update(done.value)
        return pending.get()


def summarize(reports: list[Report], seed: int, jobs: int, out, reproduce: str, unit: str = "programs") -> int:
    """Print the reports' totals and divergences; 1 if there is one, else 0."""
    total = sum(r.programs for r in reports)
    seconds = max(r.seconds for r in reports)
    outcomes = sum((r.outcomes for r in reports), Counter())
    print(f"{unit}: {total} in {seconds:.1f} s ({total / max(seconds, 1e-9):.1f} {unit}/s, {max(1, jobs)} job(s))",
          file=out)
    for k, v in sorted(outcomes.items()):
        print(f"  {k}: {v}", file=out)
    bad = [(i, r) for i, r in enumerate(reports) if r.divergence]
    for i, r in bad:
        print(f"DIVERGENCE (seed {seed + i}): {r.divergence}", file=out)
        if r.corpus_file:
            print(f"  smallest case: {r.corpus_file}", file=out)
        print(f"  reproduce: {reproduce} --seed {seed + i}", file=out)
    if bad:
        return 1
    print("divergences: 0", file=out)
    return 0


def holes_verdict(holes: list[str], n: int, allow: bool, fail_from: int, out, unit: str = "programs") -> int:
    """The exit code for the rules that never fired (``holes``) in a
    campaign of ``n`` cases: 3 with a ``COVERAGE HOLES`` line when ``n`` is
    at least ``fail_from``, the size from which every rule is expected to
    fire (docs/decisions.md, "Coverage holes of a small campaign"); below
    it a warning that says from which size a hole is an error, and 0.
    ``allow`` (``--allow-holes``) accepts holes at every size."""
    if not holes or allow:
        return 0
    if n < fail_from:
        print(f"coverage holes (a warning below {fail_from} {unit}): {', '.join(holes)} never fired in {n} "
              f"{unit}; a campaign of {fail_from} {unit} or more, where every rule is expected to fire, "
              f"fails on a hole with exit code 3 (--holes-fail-from N sets that size)", file=out)
        return 0
    print("COVERAGE HOLES: " + ", ".join(holes), file=out)
    return 3


def add_holes_option(parser, default: int, unit: str = "programs") -> None:
    """``--holes-fail-from N`` of a campaign's command line."""
    parser.add_argument("--holes-fail-from", type=int, default=default, metavar="N",
                        help=f"from N {unit} on, a rule that never fired fails the campaign (exit code 3); "
                             f"below, it is a warning (default {default}, where every rule is expected to fire)")


def could_not_run(command: str, e: RevHandlersError) -> int:
    print(f"{command}: could not run: {e}", file=sys.stderr)
    return 2
