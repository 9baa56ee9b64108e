"""How fast ``revhandlers pullback fuzz`` cross-checks queries, against
the drawing of the queries alone and the extracted evaluators alone on the
same queries, measured in the same run.

    python3 bench/pullback_campaign_rate.py [--n 1000] [--seed 0]

Rows (queries/s, wall; and CPU milliseconds per query, this process and
its pullback-eval children):

* ``evaluators only``: the baseline.  The campaign's queries of the seed,
  drawn and printed beforehand (not timed); their ``(run Q)`` and
  ``(cps Q)`` requests to one ``pullback-eval --serve``, one round trip
  each, answers not read.  A campaign that sends these requests one at a
  time cannot be faster on one core.
* ``evaluators only, batched, direct``: the queries the campaign draws
  by default (:mod:`.direct`, smaller than Hypothesis's), their requests
  through the campaign's :class:`revhandlers.pipe.Pipe` in batches of
  ``campaign.BATCH`` queries, answers received (not read): pullback-eval's
  own CPU time per query in ``revhandlers pullback fuzz``, without the
  round trips.
* ``drawing only``: the same ``n`` queries drawn by the campaign's
  Hypothesis strategy (``campaign.cases``) through the campaign's loop
  (``harness.run_campaign``), each only printed: what the generation
  costs.
* ``drawing only, direct``: the same through :mod:`.direct` (gen.py's
  strategies drawn from ``random.Random``, ``campaign.direct_cases``).
* ``campaign, 1 job``: ``campaign.campaign(n, seed, allow_stuck=True)``,
  everything included: drawing (through Hypothesis, which shrinks a
  divergence), both checkers, the normaliser, the machine, the
  classification of stuck runs (``(last Q)``), the reference and the
  comparisons.
* ``campaign, 1 job, direct``: the same with ``direct=True``, as
  ``revhandlers pullback fuzz`` runs by default.
* ``campaign, 2 jobs, direct``: ``revhandlers pullback fuzz --jobs 2
  --allow-stuck`` without its command line (``harness.run_jobs`` with the
  command's job, seeds ``seed`` and ``seed+1``, ``n/2`` queries each), its
  rate the command's (queries over the slower job's seconds); its CPU
  times are the workers' and their pullback-eval processes' (children).

``x eval`` is each rate over the baseline's.

With ``--phases``, instead: where the Python side's CPU time goes in
``campaign.campaign(n, seed, direct=True)`` (one job), by wrapping the
functions of each phase with a CPU clock (``time.process_time``; a phase
called inside another is counted in both: the meaning of a normal form
calls the reference's ``reify``), and pullback-eval's CPU time on the
same queries sent in one batch.  On a machine other jobs load,
wall rates fall with the share of the CPUs this run gets; the CPU times do
not (``uptime`` is printed first)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pytools"))

from revhandlers.harness import run_campaign  # noqa: E402
from revhandlers.pullback import campaign as C  # noqa: E402
from revhandlers.pullback.engine import PullbackEvaluator  # noqa: E402
from revhandlers.pullback.sexp import to_sexp  # noqa: E402
from cputime import timed  # noqa: E402  (bench/cputime.py)


def drawing(n: int, seed: int) -> list[str]:
    texts: list[str] = []

    def keep(case) -> str:
        texts.append(to_sexp(C.term_of(case)))
        return "drawn"

    run_campaign(C.cases(), keep, n, seed)
    return texts


def drawing_direct(n: int, seed: int) -> list[str]:
    from revhandlers.pullback.direct import draw_case
    strategy = C.direct_cases()
    return [to_sexp(C.term_of(draw_case(strategy, seed, i))) for i in range(n)]


def evaluators_only(texts: list[str]) -> None:
    ev = PullbackEvaluator(timeout=C.TIMEOUT, fuel=C.FUEL)
    try:
        for t in texts:
            ev._ask("run", t)
            ev._ask("cps", t)
    finally:
        ev.close()          # its CPU time is counted once it has ended


def evaluators_batched(texts: list[str]) -> None:
    from revhandlers.pipe import Pipe
    from revhandlers.pullback.engine import pullback_eval_path
    pipe = Pipe(("--fuel", str(C.FUEL)), C.TIMEOUT, path=pullback_eval_path())
    try:
        for b0 in range(0, len(texts), C.BATCH):
            batch = texts[b0:b0 + C.BATCH]
            pipe.send([f"({kind} {t})" for t in batch for kind in ("run", "cps")])
            pipe.receive(2 * len(batch))
    finally:
        pipe.close()        # its CPU time is counted once it has ended


#: the phases of a query's check (``--phases``): (module, function, label)
PHASES = (
    ("campaign", "draw_case", "drawing the query (direct.draw_case)"),
    ("campaign", "to_sexp", "printing the query (sexp.to_sexp)"),
    ("campaign", "type_of", "Python checker (typecheck.type_of)"),
    ("campaign", "ill_formed", "Python well-formedness (typecheck.ill_formed)"),
    ("campaign", "result_of", "reading pullback-eval's answers (engine.result_of)"),
    ("campaign", "same_run", "machine against normaliser (engine.same_run)"),
    ("campaign", "types_agree", "the two checkers' types (types_agree)"),
    ("reference", "evaluate", "reference: evaluate (reference.evaluate)"),
    ("reference", "reify", "reference: the numbers of a value (reference.reify)"),
    ("campaign", "meaning", "meaning of a normal form (campaign.meaning)"),
    ("campaign", "numbers", "numbers of a value (campaign.numbers)"),
    ("campaign", "agree", "comparison (campaign.agree)"),
    ("campaign", "stuck_class", "stuck runs' classification (campaign.stuck_class)"),
    ("pipe", "receive", "waiting for pullback-eval (Pipe.receive)"),
    ("pipe", "send", "sending (Pipe.send)"),
    ("harness", "count_done", "progress (harness.count_done)"),
)


def phases(n: int, seed: int) -> None:
    import functools
    import time
    from collections import Counter

    from revhandlers import harness, pipe
    from revhandlers.pullback import reference
    modules = {"campaign": C, "reference": reference, "pipe": pipe.Pipe, "harness": harness}
    spent: Counter = Counter()
    calls: Counter = Counter()
    saved = []

    def clocked(fn, label):
        @functools.wraps(fn)
        def go(*a, **k):
            t0 = time.process_time()
            try:
                return fn(*a, **k)
            finally:
                spent[label] += time.process_time() - t0
                calls[label] += 1
        return go

    for mod, name, label in PHASES:
        owner = modules[mod]
        saved.append((owner, name, getattr(owner, name)))
        setattr(owner, name, clocked(getattr(owner, name), label))
    try:
        t0 = time.process_time()
        report = C.campaign(n, seed, allow_stuck=True, direct=True, progress=harness.count_done,
                            reference_run=reference.run)
        total = time.process_time() - t0
    finally:
        for owner, name, fn in saved:
            setattr(owner, name, fn)
    if report.divergence:
        raise SystemExit(f"divergence: {report.divergence}")
    print(f"Python side, one job: {total * 1e3 / n:.3f} ms of CPU per query")
    for label, s in spent.most_common():
        print(f"  {label:55s} {s * 1e3 / n:7.3f} ms/query {100 * s / total:5.1f}%  ({calls[label]} calls)")
    texts = drawing_direct(n, seed)
    _, w, c, k = timed(lambda: evaluators_batched(texts))
    print(f"pullback-eval alone on the same queries, batched: {k * 1e3 / n:.3f} ms of CPU per query "
          f"((run Q) and (cps Q); the Python side {c * 1e3 / n:.3f} ms)")


def campaign_one_job(n: int, seed: int, direct: bool = False):
    return C.campaign(n, seed, allow_stuck=True, direct=direct)


def campaign_two_jobs(n: int, seed: int):
    """The reports of ``revhandlers pullback fuzz --n N --seed S --jobs 2
    --allow-stuck`` (no journal, no corpus) and its rate."""
    from revhandlers.harness import run_jobs
    args = (C.BUDGET, "", C.TIMEOUT, C.FUEL, False, True, True, True)
    reports = run_jobs(C._job, n, seed, 2, args, "pullback fuzz", unit="queries")
    return reports, sum(r.programs for r in reports) / max(r.seconds for r in reports)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--n", type=int, default=1000)
    ap.add_argument("--seed", type=int, default=0)
    ap.add_argument("--phases", action="store_true", help="where the Python side's time goes, by phase")
    args = ap.parse_args()
    print("load:", subprocess.run(["uptime"], capture_output=True, text=True).stdout.strip())
    print(f"{os.cpu_count()} CPUs; n = {args.n}, seed {args.seed}")
    if args.phases:
        phases(args.n, args.seed)
        return 0
    rows = []
    texts, w, c, k = timed(lambda: drawing(args.n, args.seed))
    draw_row = ("drawing only (Hypothesis)", w, c, k)
    _, w, c, k = timed(lambda: evaluators_only(texts))
    base = args.n / w
    rows.append(("evaluators only (baseline)", w, c, k))
    direct_texts = drawing_direct(args.n, args.seed)
    _, w, c, k = timed(lambda: evaluators_batched(direct_texts))
    rows.append(("evaluators only, batched, direct", w, c, k))
    rows.append(draw_row)
    _, w, c, k = timed(lambda: drawing_direct(args.n, args.seed))
    rows.append(("drawing only, direct", w, c, k))
    for direct in (False, True):
        report, w, c, k = timed(lambda: campaign_one_job(args.n, args.seed, direct))
        if report.divergence:
            raise SystemExit(f"divergence: {report.divergence}")
        rows.append(("campaign, 1 job" + (", direct" if direct else ""), w, c, k))
    (reports, rate), w, c, k = timed(lambda: campaign_two_jobs(args.n, args.seed))
    if any(r.divergence for r in reports):
        raise SystemExit(f"divergence: {[r.divergence for r in reports if r.divergence]}")
    rows.append(("campaign, 2 jobs, direct", w, c, k))
    print(f"{'':33s} {'queries':>8s} {'wall s':>8s} {'queries/s':>10s} {'x eval':>7s} "
          f"{'CPU ms/query (py + pullback-eval)':>34s}")
    for name, w, c, k in rows:
        print(f"{name:33s} {args.n:8d} {w:8.2f} {args.n / w:10.1f} {args.n / w / base:7.3f} "
              f"{c * 1e3 / args.n:15.3f} + {k * 1e3 / args.n:.3f}")
    stuck = sum(v for o, v in report.outcomes.items() if o.startswith(("stuck", "excluded")))
    print(f"campaign: {report.programs} queries, {stuck} stuck (excluded or not)")
    print(f"campaign, 2 jobs: {rate:.1f} queries/s as the command reports it (queries over the slower job's "
          f"seconds, without starting the workers)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
