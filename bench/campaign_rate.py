"""How fast ``revhandlers fuzz`` cross-checks programs, against the
evaluators alone on the same programs, measured in the same run.

    python3 bench/campaign_rate.py [--n 20000] [--seed 0] [--jobs 2] [--old 200]

Rows (programs/s, wall; and CPU milliseconds per program, this process and
its rh-eval children):

* ``evaluators only``: the baseline.  Programs ``0 … n-1`` of the seed,
  generated and printed beforehand (not timed); their ``(check P)`` and
  ``(coverage P)`` requests to the model (``rh-eval --serve --small-step
  --list-vectors``) and ``(run P)`` to the fast evaluator (``rh-eval
  --serve``), in batches as the campaign sends them, answers read and not
  parsed.  A campaign cannot be faster than this on one core.
* ``campaign, 1 job``: ``fuzz.campaign(n, seed)``, everything included:
  generation, both checkers, the three engines, finite differences,
  comparisons, rule coverage.
* ``campaign, J jobs``: ``revhandlers fuzz --n n --jobs J`` in a
  subprocess (J processes, seeds seed … seed+J-1), wall time of the whole
  command (start-up included).
* ``one program at a time``: the former loop, for comparison: programs
  drawn by the Hypothesis strategy ``gen.programs()`` and checked by
  ``fuzz.crosscheck`` one request per round trip (``--old`` programs; 0
  skips it).

With ``--phases N`` it prints, instead, where a campaign's CPU goes, in
milliseconds per program over programs ``0 … N-1`` of the seed (best of
three passes of each phase): generating the programs, printing them, the
Python checker, each kind of request in ``rh-eval`` (the children's CPU),
the comparison with the reference and its finite differences; then a
one-job campaign over the same programs with its CPU and the time it
waits for the evaluators' answers, each Python phase timed again where
the campaign runs it (the main thread's CPU), and the remainder outside
every phase (the campaign's own code).  CPU times hold on a loaded machine;
the projected rate of two jobs on two idle cores is two over the CPU per
program of all processes.

``x eval`` is each rate over the baseline's.  On a machine other jobs load,
wall rates fall with the share of the CPUs this run gets; the CPU times do
not (``uptime`` is printed first).
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pytools"))

from revhandlers.rh import campaign as fuzz, gen  # noqa: E402
from revhandlers.rh.sexp import program_sexp  # noqa: E402
from cputime import timed  # noqa: E402  (bench/cputime.py)


def evaluators_only(texts: list[str], batch: int = fuzz.BATCH) -> tuple[float, float, float]:
    """Wall seconds, and CPU seconds of this process and of the children."""
    def requests() -> None:
        model = fuzz.Pipe(fuzz.MODEL_FLAGS, fuzz.TIMEOUT)
        fast = fuzz.Pipe((), fuzz.TIMEOUT)
        try:
            for b in range(0, len(texts), batch):
                chunk = texts[b:b + batch]
                model.send([f"({req} {t})" for t in chunk for req in ("check", "coverage")])
                fast.send([f"(run {t})" for t in chunk])
                model.receive()
                fast.receive()
        finally:
            model.close()
            fast.close()

    _, wall, c, k = timed(requests)
    return wall, c, k


def campaign_one_job(n: int, seed: int) -> tuple[float, float, float, object]:
    report, wall, c, k = timed(lambda: fuzz.campaign(n, seed))
    return wall, c, k, report


def campaign_jobs(n: int, seed: int, jobs: int) -> tuple[float, float, str]:
    import tempfile

    def command() -> subprocess.CompletedProcess:
        with tempfile.TemporaryDirectory() as corpus:
            return subprocess.run([sys.executable, "-m", "revhandlers.cli", "fuzz", "--n", str(n), "--seed",
                                   str(seed), "--jobs", str(jobs), "--corpus", corpus, "--allow-holes"],
                                  cwd=ROOT, capture_output=True, text=True,
                                  env={**os.environ, "PYTHONPATH": str(ROOT / "pytools")})

    proc, wall, _, k = timed(command)
    if proc.returncode != 0:
        raise SystemExit(f"revhandlers fuzz failed ({proc.returncode}):\n{proc.stdout}{proc.stderr[-2000:]}")
    return wall, k, proc.stdout.splitlines()[0]


def one_at_a_time(n: int, seed: int) -> tuple[float, float, float]:
    from hypothesis import HealthCheck, given, seed as hseed, settings

    from revhandlers.rh.engine import VerifiedEvaluator

    model = VerifiedEvaluator(timeout=fuzz.TIMEOUT, flags=fuzz.MODEL_FLAGS)
    fast = VerifiedEvaluator(timeout=fuzz.TIMEOUT)

    @hseed(seed)
    @settings(max_examples=n, deadline=None, database=None, suppress_health_check=list(HealthCheck),
              phases=[__import__("hypothesis").Phase.generate])
    @given(gen.programs())
    def one(prog):
        fuzz.crosscheck(prog, model, fast=fast)

    def all_programs() -> None:
        try:
            one()
        finally:
            model.close()
            fast.close()

    _, wall, c, k = timed(all_programs)
    return wall, c, k


class _Attribution:
    """The main thread's CPU seconds spent in each phase of a one-job
    campaign (``time.thread_time`` around the functions the campaign
    module calls: the writer threads of the pipes are not in it), and in
    the cyclic garbage collector."""

    def __init__(self) -> None:
        import gc
        import time

        from revhandlers import pipe

        self.clock = time.thread_time
        self.seconds: dict[str, float] = {}
        self.gc = 0.0
        self.waited = 0.0
        self._inside = False
        self._gc_start = 0.0
        self._saved: list[tuple[object, str, object]] = []
        for owner, name, label in ((fuzz, "seeded_program", "generation"), (fuzz, "program_sexp", "printing"),
                                   (fuzz, "check_program", "Python checker"),
                                   (fuzz, "compare", "comparison: reference, finite differences"),
                                   (pipe.Pipe, "send", "pipes: sending"), (pipe.Pipe, "receive", "pipes: receiving")):
            self._wrap(owner, name, label)
        self._gc_callback = self._on_gc
        gc.callbacks.append(self._gc_callback)

    def _wrap(self, owner, name: str, label: str) -> None:
        import time

        inner = getattr(owner, name)
        self._saved.append((owner, name, inner))
        self.seconds[label] = 0.0

        def timed_call(*args, **kwargs):
            if self._inside:                    # a phase inside another counts in the outer one
                return inner(*args, **kwargs)
            self._inside = True
            t, w = self.clock(), time.perf_counter()
            try:
                return inner(*args, **kwargs)
            finally:
                self.seconds[label] += self.clock() - t
                if name == "receive":
                    self.waited += time.perf_counter() - w
                self._inside = False

        setattr(owner, name, timed_call)

    def _on_gc(self, phase: str, _info: dict) -> None:
        if phase == "start":
            self._gc_start = self.clock()
        else:
            self.gc += self.clock() - self._gc_start

    def close(self) -> None:
        import gc

        for owner, name, inner in reversed(self._saved):
            setattr(owner, name, inner)
        gc.callbacks.remove(self._gc_callback)


def phases(n: int, seed: int) -> None:
    """The phase profile (``--phases``)."""
    import gc
    import time

    from revhandlers.rh.typecheck import check_program

    clock = time.process_time
    best: dict[str, float] = {}
    first: dict[str, float] = {}

    def keep(name: str, seconds: float) -> None:
        first.setdefault(name, seconds)
        best[name] = min(best.get(name, float("inf")), seconds)

    for _ in range(3):
        t = clock()
        progs = [gen.seeded_program(seed, i) for i in range(n)]
        keep("generation", clock() - t)
        t = clock()
        texts = [program_sexp(p) for p in progs]
        keep("printing", clock() - t)
        t = clock()
        tys = [check_program(p) for p in progs]
        keep("Python checker", clock() - t)
    answers: dict[str, list[str]] = {}
    for flags, req in ((fuzz.MODEL_FLAGS, "check"), (fuzz.MODEL_FLAGS, "coverage"), ((), "run")):
        for _ in range(3):
            got: list[str] = []

            def requests(flags=flags, req=req, got=got) -> None:
                p = fuzz.Pipe(flags, fuzz.TIMEOUT)
                try:
                    for b in range(0, n, fuzz.BATCH):
                        p.send([f"({req} {t})" for t in texts[b:b + fuzz.BATCH]])
                        got += p.receive()
                finally:
                    p.close()

            _, _, _, k = timed(requests)
            keep(f"rh-eval {'model' if flags else 'fast'} ({req} P)", k)
        answers[req] = got
    for _ in range(3):
        fuzz.RD_CHECKS.clear()
        fuzz.COVERAGE.clear()
        t = clock()
        for j, p in enumerate(progs):
            fuzz.compare(p, tys[j], answers["check"][j], answers["coverage"][j], answers["run"][j], checked=True)
        keep("comparison: reference, finite differences", clock() - t)
    total = sum(best.values())
    gc.collect()

    # the same programs in a one-job campaign, each phase timed where the
    # campaign runs it (the main thread's CPU)
    attribution = _Attribution()
    try:
        report, wall, c, k = timed(lambda: fuzz.campaign(n, seed))
    finally:
        attribution.close()
    inside = attribution.seconds
    print(f"  {'ms/program (CPU)':44s} {'alone, best of 3':>17s} {'alone, 1st pass':>16s} {'in the campaign':>16s}")
    for name, seconds in best.items():
        there = f"{inside[name] * 1e3 / n:16.3f}" if name in inside else f"{'(rh-eval)':>16s}"
        print(f"  {name:44s} {seconds * 1e3 / n:17.3f} {first[name] * 1e3 / n:16.3f} {there}")
    for name in ("pipes: sending", "pipes: receiving"):
        print(f"  {name:44s} {'':17s} {'':16s} {inside[name] * 1e3 / n:16.3f}")
    python_alone = sum(v for name, v in best.items() if not name.startswith("rh-eval"))
    phases_inside = sum(inside.values())
    outside = c - phases_inside
    print(f"  {'sum of the phases':44s} {total * 1e3 / n:17.3f}; two jobs on two idle cores: at most "
          f"{2 * n / total:,.0f} programs/s")
    print(f"  campaign, 1 job: {(c + k) * 1e3 / n:.3f} ms/program of CPU ({c * 1e3 / n:.3f} Python + "
          f"{k * 1e3 / n:.3f} rh-eval), {wall * 1e3 / n:.3f} ms/program wall, of which "
          f"{attribution.waited * 1e3 / n:.3f} waiting for answers; two jobs on two idle cores: at most "
          f"{2 * n / (c + k):,.0f} programs/s")
    print(f"  its Python over the phases alone (best of 3): {(c - python_alone) * 1e3 / n:+.3f} ms/program: the "
          f"phases cost {(phases_inside - python_alone) * 1e3 / n:+.3f} more in the campaign (the pipes "
          f"included), {outside * 1e3 / n:.3f} is outside every phase (the campaign's own code and the pipes' "
          f"writer threads); the cyclic collector, inside these, {attribution.gc * 1e3 / n:.3f}")
    if report.divergence:
        raise SystemExit(f"divergence: {report.divergence}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=20000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--old", type=int, default=200, help="programs for the one-at-a-time row (0: none)")
    ap.add_argument("--phases", type=int, default=0, metavar="N",
                    help="print where the CPU goes over N programs instead (phase profile)")
    args = ap.parse_args()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    if args.phases:
        phases(args.phases, args.seed)
        return 0
    print(f"{os.cpu_count()} CPUs; n = {args.n}, seed {args.seed}")
    texts = [program_sexp(gen.seeded_program(args.seed, i)) for i in range(args.n)]

    rows = []
    w, c, k = evaluators_only(texts)
    base = args.n / w
    rows.append(("evaluators only (baseline)", args.n, w, c, k))
    w, c, k, report = campaign_one_job(args.n, args.seed)
    if report.divergence:
        raise SystemExit(f"divergence: {report.divergence}")
    rows.append(("campaign, 1 job", args.n, w, c, k))
    if args.jobs > 1:
        w, k, line = campaign_jobs(args.n, args.seed, args.jobs)
        rows.append((f"campaign, {args.jobs} jobs (whole command)", args.n, w, None, k))
    if args.old:
        w, c, k = one_at_a_time(args.old, args.seed)
        rows.append(("one program at a time (former loop)", args.old, w, c, k))

    print(f"{'':42s} {'programs':>9s} {'wall s':>8s} {'programs/s':>11s} {'x eval':>7s} "
          f"{'CPU ms/program (py + rh-eval)':>30s}")
    for name, n, w, c, k in rows:
        cpu = (f"{(c or 0) * 1e3 / n:.3f} + {k * 1e3 / n:.3f}" if c is not None
               else f"{k * 1e3 / n:.3f} (all processes)")
        print(f"{name:42s} {n:9d} {w:8.2f} {n / w:11.1f} {n / w / base:7.3f} {cpu:>30s}")
    print("skipped in the campaign:", report.skipped, "; coverage holes:", fuzz.coverage_holes(report.coverage) or "none")
    return 0


if __name__ == "__main__":
    sys.exit(main())
