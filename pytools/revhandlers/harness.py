"""The campaign harness every differential campaign shares (``revhandlers
fuzz`` for the reverse-handler calculus, ``revhandlers dbr fuzz`` for the
define-by-run library): Hypothesis draws the cases from a fixed seed, a
check compares the engines on each, a divergence is shrunk by Hypothesis to
a smallest case and written to a corpus directory (replayed by the test
suite), and ``--jobs`` runs seeds ``seed, seed+1, …`` in parallel
processes with one progress bar.  Exit codes, like Csmith's comparison
driver: 0 no divergence, 1 divergence, 2 could not run.  (``revhandlers
fuzz`` draws from a seeded generator and shrinks by itself, in
:mod:`revhandlers.rh.campaign`; it shares the jobs, the summary and the corpus
files.)"""

from __future__ import annotations

import argparse
import hashlib
import multiprocessing as mp
import os
import signal
import sys
import time
from collections import Counter
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import Any, TextIO

from . import interrupt
from .cluster import run_on_cluster
from .errors import BadInput, RevHandlersError
from .journal import Journal
from .progress import Progress
from .report import Divergence, Report  # noqa: F401  (Divergence: re-exported for the campaigns)


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


#: cases per line of a campaign's journal (:mod:`revhandlers.journal`)
JOURNAL_BATCH = 50


#: a job of :func:`run_jobs`: ``(k, seed, *args)`` to the report of its ``k`` cases
Job = Callable[[tuple[Any, ...]], Report]


def run_campaign(strategy: Any, check: Callable[[Any], str], n: int, seed: int,
                 save: Callable[[Any, str], object] | None = None, progress: Callable[[Report], None] | None = None,
                 coverage: Callable[[], Mapping[str, int]] | None = None) -> Report:
    """Draw ``n`` cases from ``strategy`` reproducibly from ``seed`` and call
    ``check(case)`` on each: it returns the outcome's name (``"skipped…"``
    counts as skipped) or raises :class:`Divergence`.  The first divergence
    is shrunk; ``save(case, message)`` then returns the corpus file written.
    The caller adds its own counters to the report's ``outcomes`` and
    ``coverage`` after the run; ``coverage()``, when given, returns them
    as they stand (in the report's names), for the journal.

    With a journal (:func:`journal_for`), every :data:`JOURNAL_BATCH`
    cases' verdicts and what they added to ``coverage()`` are written to
    it (and the cases reached when interrupted); the cases the journal
    already holds are drawn again (Hypothesis draws case ``k`` after the
    ``k`` before it) but not checked, and the report starts from the
    journal's counts.  ``programs`` counts the cases drawn, not the
    shrinker's attempts."""
    from hypothesis import HealthCheck, Phase, given, seed as hseed, settings  # optional: the test extra

    ledger = Ledger(seed, coverage)
    if ledger.finished(n):
        return ledger.report                        # finished before
    report = ledger.report
    last: dict[str, Any] = {}
    drawn = [0]

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, derandomize=False, report_multiple_bugs=False,
              suppress_health_check=list(HealthCheck), phases=[Phase.generate, Phase.shrink])
    @given(strategy)
    def one(case: Any) -> None:
        shrinking = "case" in last
        if not shrinking:
            drawn[0] += 1
            if drawn[0] <= ledger.skip:
                return                              # in the journal already
        try:
            outcome = check(case)
        except Divergence as e:
            if not shrinking:
                ledger.flush()                      # the cases before it, journaled before the shrinking
            last["case"], last["msg"] = case, str(e)
            raise
        except Exception as e:      # a crash of the check or of an engine: shrunk and reported like a divergence
            if not shrinking:
                ledger.flush()
            last["case"], last["msg"] = case, f"crash: {type(e).__name__}: {e}"[:2000]
            raise Divergence(last["msg"]) from e
        if shrinking:
            return
        ledger.count(outcome)
        if len(ledger.pending) >= JOURNAL_BATCH:
            ledger.flush()
        if progress:
            progress(report)

    try:
        one()
    except Divergence:
        message: str = last.get("msg", "divergence")
        report.divergence = message
        ledger.diverged(message, str(save(last["case"], message)) if save is not None and "case" in last else None)
    finally:
        if "case" not in last:
            ledger.flush()                          # the cases reached (also when interrupted)
    return ledger.close()


class Ledger:
    """The bookkeeping of one job of a campaign (one seed), for its
    journal (:func:`journal_for`): the report, which starts from the
    journal's counts when the job is resumed (``skip`` cases are in the
    journal already); the verdicts not yet written (``pending``); and
    what ``coverage()`` held when they were last written, so that each
    batch of the journal carries what it added."""

    def __init__(self, seed: int, coverage: Callable[[], Mapping[str, int]] | None = None) -> None:
        self.seed = seed
        self.coverage = coverage
        self.journal = journal_for(seed)
        self.job = self.journal.job(seed) if self.journal is not None else None
        self.report = self.job.report() if self.job is not None else Report()
        self.prior = self.job.seconds if self.job is not None else 0.0
        self.skip = self.job.done if self.job is not None else 0
        self.pending: list[str] = []
        self._covered = self._coverage_now()
        self._since = self.start = time.time()

    def _coverage_now(self) -> Counter[str]:
        return Counter(self.coverage()) if self.coverage else Counter()

    def finished(self, n: int) -> bool:
        """Whether the journal holds the whole job (``n`` cases, or a divergence)."""
        return self.job is not None and (self.job.divergence is not None or self.job.done >= n)

    def count(self, outcome: str) -> None:
        """A case checked, with ``outcome`` (``"skipped…"`` counts as skipped)."""
        self.report.programs += 1
        self.report.outcomes[outcome] += 1
        if outcome.startswith("skipped"):
            self.report.skipped += 1
        self.pending.append(outcome)

    def flush(self) -> None:
        """The pending verdicts, and what ``coverage()`` gained since the
        last flush, to the journal as one batch."""
        if self.journal is None or self.job is None or not self.pending:
            return
        now = self._coverage_now()
        self.journal.add(self.seed, self.job.done, self.pending, coverage=now - self._covered,
                         seconds=time.time() - self._since)
        self.pending.clear()
        self._covered, self._since = now, time.time()

    def diverged(self, message: str, corpus_file: str | None) -> None:
        """The job found a divergence (it ends there)."""
        self.report.divergence, self.report.corpus_file = message, corpus_file
        if self.journal is not None:
            self.journal.diverged(self.seed, message, corpus_file)

    def close(self) -> Report:
        """The report, with the job's time (the journal's, and this run's)."""
        self.report.seconds = self.prior + time.time() - self.start
        return self.report


_DONE: Any = None                 # the cases checked, by every worker of ``--jobs`` (a shared integer)
_JOURNAL: Journal | None = None   # the journal of the campaign run by run_jobs (inherited by its workers)
_BAR: Progress | None = None      # the progress bar, when the campaign runs in this process


def _init_worker(done: Any) -> None:
    """A worker of ``--jobs``: SIGINT is the parent's to handle (a Ctrl-C
    reaches the whole process group); SIGTERM between jobs ends it."""
    global _DONE
    _DONE = done
    interrupt.reset()
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    # between jobs SIGTERM kills at once: an idle worker may be blocked on
    # the pool's queue lock, where a handler in Python could be held back
    signal.signal(signal.SIGTERM, signal.SIG_DFL)


def count_done(_report: object, k: int = 1) -> None:
    """The ``progress`` of a campaign run by :func:`run_jobs` (``k`` cases more)."""
    if _DONE is not None:
        with _DONE.get_lock():
            _DONE.value += k
        if _BAR is not None:
            _BAR.update(_DONE.value)


def journal_for(seed: int) -> Journal | None:
    """The journal (:class:`revhandlers.journal.Journal`) the campaign of
    job ``seed`` writes to, if :func:`run_jobs` was given one."""
    return _JOURNAL


def _guarded(packed: tuple[Job, tuple[Any, ...]]) -> Report:
    """A job in a worker of ``--jobs``: SIGTERM (the parent ending the pool
    when it is interrupted) ends it after its journal is written, with no
    traceback."""

    job, args = packed
    signal.signal(signal.SIGTERM, interrupt.handler)
    try:
        return job(args)
    except interrupt.Interrupted:
        interrupt.end_children()
        os._exit(143)
    finally:
        interrupt.reset()
        signal.signal(signal.SIGTERM, signal.SIG_DFL)


def run_jobs(job: Job, n: int, seed: int, jobs: int, args: tuple[Any, ...], label: str, journal: Journal | None = None,
             scheduler: str | None = None, batch_job: Job | None = None,
             shrink: Callable[[int, int, str], tuple[str, str | None]] | None = None,
             unit: str = "programs") -> list[Report]:
    """``job((k, seed_i, *args))`` for ``jobs`` processes sharing ``n``
    cases (seeds ``seed, seed+1, …``), with one progress bar; ``job`` is a
    module-level function that passes :func:`count_done` as its campaign's
    progress.  One job runs in this process.

    With ``journal``, the campaigns write their batches to it
    (:func:`journal_for`), and an interrupt (:class:`~revhandlers.interrupt.Interrupted`)
    ends the workers and is raised again carrying, as ``reports``, the
    jobs' reports read back from the journal.

    With ``scheduler`` (``--scheduler``), the same jobs run on a Dask
    cluster, cut into batches by ``batch_job`` when given
    (:func:`revhandlers.cluster.run_on_cluster`); a campaign on a cluster
    keeps no journal, so it cannot resume one."""
    global _DONE, _BAR, _JOURNAL
    if scheduler:
        if journal is not None and any(j.done for j in journal.jobs.values()):
            raise BadInput("syntax", "--resume does not combine with --scheduler: a campaign on a cluster keeps "
                           "no journal; resume it without --scheduler")
        return run_on_cluster(job, n, seed, jobs, args, label, scheduler, batch_job=batch_job, shrink=shrink,
                              unit=unit)
    jobs = max(1, jobs)
    bar = Progress(n, label, unit="programs")
    done = mp.Value("q", 0)
    per = [n // jobs + (1 if i < n % jobs else 0) for i in range(jobs)]
    if journal is not None:
        done.value = sum(journal.job(seed + i).done for i in range(jobs))
        interrupt.keep(f"the verdicts are in the journal {journal.path} (continue with --resume {journal.path})")
    _JOURNAL = journal
    try:
        if jobs == 1:
            _DONE, _BAR = done, bar
            return [job((n, seed, *args))]
        with mp.Pool(jobs, initializer=_init_worker, initargs=(done,)) as pool:
            try:
                pending = pool.map_async(_guarded, [(job, (k, seed + i, *args)) for i, k in enumerate(per)])
                while not pending.ready():
                    pending.wait(0.5)
                    bar.update(done.value)
                reports = pending.get()
                pool.close()          # the workers end on their own, no signal (terminate is for interrupts)
                pool.join()
                return reports
            except interrupt.Interrupted:
                pool.terminate()
                raise
    except interrupt.Interrupted as e:
        if journal is not None:
            e.reports = journal.reports([seed + i for i in range(jobs)])
        raise
    finally:
        _DONE, _BAR, _JOURNAL = None, None, None


def summarize(reports: list[Report], seed: int, jobs: int, out: TextIO, reproduce: str, unit: str = "programs") -> int:
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


def holes_verdict(holes: list[str], n: int, allow: bool, fail_from: int, out: TextIO, unit: str = "programs") -> int:
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


def add_run_options(parser: argparse.ArgumentParser, unit: str = "programs") -> None:
    """``--n``, ``--seed`` and ``--jobs``, which every campaign's command
    line takes."""
    parser.add_argument("--n", type=int, default=1000, help=f"number of {unit} (default 1000)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--jobs", type=int, default=None,
                        help="parallel processes (seeds seed, seed+1, …; default 1, or N with --scheduler local:N)")


def add_holes_option(parser: argparse.ArgumentParser, default: int, unit: str = "programs") -> None:
    """``--holes-fail-from N`` of a campaign's command line."""
    parser.add_argument("--holes-fail-from", type=int, default=default, metavar="N",
                        help=f"from N {unit} on, a rule that never fired fails the campaign (exit code 3); "
                             f"below, it is a warning (default {default}, where every rule is expected to fire)")


def could_not_run(command: str, e: RevHandlersError) -> int:
    print(f"{command}: could not run: {e}", file=sys.stderr)
    return 2
