"""Campaigns on a Dask cluster: ``--scheduler ADDRESS`` of ``revhandlers
fuzz``, ``revhandlers pullback fuzz`` and ``revhandlers dbr fuzz``.

The campaign is cut as with ``--jobs J`` (job ``j`` checks its share of the
``n`` cases with seed ``seed + j``), so a campaign on a cluster checks the
same cases as one with ``--jobs J`` and prints the same summary.  Without
``--jobs``, ``--scheduler local:N`` takes ``J = N`` and an address
``J = 1``.  The unit of work sent to the cluster:

* ``revhandlers fuzz``: a batch of program indices ``[b0, b1)`` of one
  job's seed (program ``i`` of seed ``s`` is drawn from ``(s, i)`` alone,
  :func:`revhandlers.rh.gen.seeded_program`), aligned on the batches a job
  runs, so thousands of tasks spread over any number of workers;
* the sibling campaigns draw their cases with Hypothesis, where case ``i``
  depends on the cases before it: their unit of work is a whole job
  (``--jobs J`` tasks).

Workers generate, run and compare (each needs the package and its drivers,
e.g. the platform wheel); the client gathers the reports as they arrive
(progress on stderr), merges each job's batches in index order up to its
first divergence (later batches of that job are cancelled: a job of
``--jobs`` stops there too), and shrinks a divergence locally and writes
it to the corpus, as ``--jobs`` does.  A worker lost mid-campaign is
handled by Dask: the scheduler runs its batches again on another worker.
Ctrl-C cancels every task, closes the client (and the local cluster) and
exits with code 130.

``dask.distributed`` is the optional extra ``revhandlers[cluster]``;
without it ``--scheduler`` is bad input (exit code 2) saying how to
install it."""

from __future__ import annotations

import argparse
import logging
import re
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from .errors import BadInput
from .progress import Progress
from .report import Report

INSTALL = "pip install 'revhandlers[cluster]'"

# campaigns keep module-level counters (rule coverage): one task at a time
# in a worker process, whatever its number of threads
_LOCK = threading.Lock()


def add_options(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--scheduler", metavar="ADDRESS",
                        help="run the campaign on a Dask cluster: the scheduler's address (tcp://HOST:PORT), "
                             f"or local:N for a local cluster of N workers (needs {INSTALL})")


def parse_scheduler(text: str) -> tuple[str, int | str]:
    """``("local", N)`` for ``local:N``, else ``("address", text)``."""
    m = re.fullmatch(r"local:(\d+)", text.strip())
    if m:
        n = int(m.group(1))
        if n < 1:
            raise BadInput("syntax", f"--scheduler local:N needs N at least 1, not {n}")
        return "local", n
    if text.startswith("local"):
        raise BadInput("syntax", f"--scheduler takes local:N (N workers) or a scheduler's address, not {text!r}")
    if not text.strip():
        raise BadInput("syntax", "--scheduler needs an address (tcp://HOST:PORT) or local:N")
    return "address", text.strip()


def jobs_for(args: argparse.Namespace) -> int:
    """The number of jobs the cases are cut into: ``--jobs`` if given, else
    N for ``--scheduler local:N``, else 1."""
    if getattr(args, "jobs", None) is not None:
        return int(args.jobs)
    scheduler = getattr(args, "scheduler", None)
    if scheduler:
        kind, value = parse_scheduler(scheduler)
        if kind == "local":
            return int(value)
    return 1


def require_dask(command: str) -> None:
    """Bad input (exit code 2, one line) when ``dask.distributed`` cannot
    be imported."""
    try:
        import distributed  # noqa: F401
    except ImportError:
        raise BadInput("io", f"{command} --scheduler needs dask.distributed, which is not installed: "
                             f"{INSTALL}") from None


@contextmanager
def client_for(scheduler: str) -> Iterator[Any]:
    """A ``distributed.Client``: of a new ``LocalCluster`` (loopback only,
    one thread per worker process, no dashboard) for ``local:N``, else
    connected to the scheduler at the address."""
    import dask  # optional: the cluster extra (require_dask says so first)
    from distributed import Client, LocalCluster
    kind, value = parse_scheduler(scheduler)
    cluster = None
    try:
        if kind == "local":
            # the workers' statistical profiler samples the task's stack every 10 ms, which
            # slows a campaign (pure Python for the most part); a remote cluster is configured
            # by whoever starts it (DASK_DISTRIBUTED__WORKER__PROFILE__ENABLED=False)
            dask.config.set({"distributed.worker.profile.enabled": False})
            cluster = LocalCluster(n_workers=int(value), threads_per_worker=1, processes=True, host="127.0.0.1",
                                   dashboard_address=None, silence_logs=logging.CRITICAL)
            client = Client(cluster)
        else:
            try:
                client = Client(str(value), timeout=20)
            except (OSError, TimeoutError, ValueError) as e:
                raise BadInput("io", f"cannot reach the Dask scheduler {value}: {e}") from None
        try:
            yield client
        finally:
            client.close()
    finally:
        if cluster is not None:
            cluster.close()


def _run_task(fn: Callable[[tuple[Any, ...]], Report], payload: tuple[Any, ...]) -> Report:
    """What a worker runs: one batch or job at a time per process."""
    with _LOCK:
        return fn(payload)


def run_on_cluster(job: Callable[[tuple[Any, ...]], Report], n: int, seed: int, jobs: int, args: tuple[Any, ...],
                   label: str, scheduler: str, batch_job: Callable[[tuple[Any, ...]], Report] | None = None,
                   batch: int = 1000, shrink: Callable[[int, int, str], tuple[str, str | None]] | None = None,
                   unit: str = "programs") -> list[Report]:
    """The reports :func:`revhandlers.harness.run_jobs` would return for
    ``jobs`` jobs, computed on the cluster.  With ``batch_job``, the tasks
    are ``batch_job((seed_j, b0, b1, *args))`` over batches of ``batch``
    indices (a report whose divergence, ``"program I: MESSAGE"``, is not
    shrunk); ``shrink(seed_j, I, MESSAGE)`` shrinks it here and returns the
    divergence and the corpus file.  Without, the tasks are ``job((k,
    seed_j, *args))``, one per job."""
    from distributed import as_completed  # optional: the cluster extra

    jobs = max(1, jobs)
    per = [n // jobs + (1 if i < n % jobs else 0) for i in range(jobs)]
    if batch_job is not None:
        tasks = [(j, b0, min(k, b0 + batch)) for j, k in enumerate(per) for b0 in range(0, k, batch)]
        fn, payloads = batch_job, [(seed + j, b0, b1, *args) for j, b0, b1 in tasks]
    else:
        tasks = [(j, 0, k) for j, k in enumerate(per)]
        fn, payloads = job, [(k, seed + j, *args) for j, _, k in tasks]
    bar = Progress(n, f"{label} (dask)", unit=unit)
    results: dict[tuple[int, int], Report] = {}
    began = time.time()
    with client_for(scheduler) as client:
        workers = len(client.scheduler_info().get("workers", {}))
        print(f"{label}: {workers} Dask worker(s) at {client.scheduler.address}, ready in {time.time() - began:.1f} s; "
              f"{len(tasks)} tasks", file=sys.stderr)
        start = time.time()       # the campaign's time, not the cluster's start
        futures = {client.submit(_run_task, fn, p, pure=False): t for p, t in zip(payloads, tasks)}
        stopped: dict[int, int] = {}          # job -> the first batch with a divergence
        done = 0
        try:
            for fut in as_completed(list(futures)):
                if fut.cancelled():
                    continue
                j, b0, _ = futures[fut]
                report = fut.result()
                results[(j, b0)] = report
                done += report.programs + (1 if report.divergence else 0)
                bar.update(min(done, n))
                if report.divergence and (j not in stopped or b0 < stopped[j]):
                    stopped[j] = b0
                    later = [f for f, (jj, bb, _) in futures.items() if jj == j and bb > b0 and not f.done()]
                    if later:
                        client.cancel(later)
        except KeyboardInterrupt:
            client.cancel(list(futures))
            print(f"\n{label}: interrupted; the cluster's tasks were cancelled ({done} {unit} checked)",
                  file=sys.stderr)
            raise SystemExit(130) from None
    seconds = time.time() - start
    reports = []
    for j in range(jobs):
        merged = Report()
        for b0 in sorted(b for jj, b in results if jj == j):
            r = results[(j, b0)]
            merged.programs += r.programs
            merged.skipped += r.skipped
            merged.outcomes.update(r.outcomes)
            merged.coverage.update(r.coverage)
            if r.divergence:
                merged.divergence, merged.corpus_file = r.divergence, r.corpus_file
                if batch_job is not None and shrink is not None:
                    m = re.match(r"program (\d+): (.*)", r.divergence, re.S)
                    if m:
                        merged.divergence, merged.corpus_file = shrink(seed + j, int(m.group(1)), m.group(2))
                break
        merged.seconds = seconds
        reports.append(merged)
    return reports

