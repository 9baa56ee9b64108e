"""How the size of the program grows with the nesting of reverse derivatives.

    python3 bench/nested_rd.py [--max-depth D] [--seconds S] [--memory MB]

Two families, for each depth d:

* ``rd``: ``rd`` nested d levels deep around ``swish(swish(y1))`` (the
  issue's reproducer is d = 5, 182 bytes):
  ``(rd (const 1.0) y_d (... (rd (const 1.0) y1 (app (swish 1) (app (swish 1) y1)) y2) ...) (const 0.3))``;
* ``revhandle``: d nested ``rev handle``s whose inner handlers have only a
  return clause (the default clause performs the operation again outside),
  around two operations; the outermost has the clause.

Each program runs under ``rh-eval --trace --max-rd-depth 1000 --max-rd-size
2^60`` (one line per configuration, ``--memory`` and ``--timeout`` as given;
by default rh-eval refuses, before the run, programs whose estimated
rewriting size ``cmd_rd_weight`` exceeds 2^45: the ``estimate`` column, read
from rh-eval's refusal under ``--max-rd-size 0``; ``*`` marks the programs
the default refuses).  The size of a configuration is
the number of nodes of its command: the opening brackets of its printed
form (one per term or command constructor; variables are not counted).
The table gives the size of the program, the largest configuration, the
step at which it appeared, the number of steps, and how the run ended
(``budget``: the bench stopped reading, the size or time budget spent).
The ``rd`` rewriting happens at step 1 for the ``rd`` family (its output is
the largest configuration); for the ``revhandle`` family the RH rewriting
produces ``rd`` terms that are rewritten later.  Nothing is asserted."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "pytools"))

from revhandlers.paths import rh_eval_path  # noqa: E402
from revhandlers.rh.families import nested_rd_sexp, nested_revhandle_sexp  # noqa: E402

FAMILIES = {"rd": nested_rd_sexp, "revhandle": nested_revhandle_sexp}
CAP = 2 ** 60          # rd_size.v's rd_weight_cap: the estimate saturates there
MAX_RD_SIZE = 2 ** 45  # rd_size.v's max_rd_weight, rh-eval's default --max-rd-size


def estimate(program: str) -> int:
    """rh-eval's estimate of the program's rewriting size (its refusal under
    --max-rd-size 0 names it)."""
    out = subprocess.run([str(rh_eval_path()), "--max-rd-size", "0", "--max-rd-depth", "1000"], input=program,
                         capture_output=True, text=True, timeout=60).stdout
    shown = out.split("rewritings is ", 1)[1].split(";", 1)[0]
    return CAP if shown.startswith("at least") else int(shown)


def measure(program: str, seconds: float, memory: int, max_line: int):
    """(size of the program, largest size, its step, steps, ending, seconds)."""
    start = time.monotonic()
    proc = subprocess.Popen([str(rh_eval_path()), "--trace", "--timeout", str(seconds), "--memory", str(memory),
                             "--max-rd-depth", "1000", "--max-rd-size", str(CAP)],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    proc.stdin.write(program)
    proc.stdin.close()
    first = best = best_step = steps = 0
    ending = "budget"
    while True:
        line = proc.stdout.readline(max_line)
        if not line:
            ending = "?"
            break
        if line.startswith("(step "):
            n = int(line.split(" ", 2)[1])
            if not line.endswith("\n"):
                best, best_step, steps = max(best, line.count("(")), n, n
                ending = "budget"
                break
            cmd = line[line.index("(cmd "):]
            size = cmd.count("(") - 1
            if n == 0:
                first = size
            if size > best:
                best, best_step = size, n
            steps = n
        else:
            ending = line.split("(kind ", 1)[1].split(")", 1)[0] if "(kind " in line else "result"
            break
        if time.monotonic() - start > seconds:
            break
    proc.kill()
    proc.wait()
    return first, best, best_step, steps, ending, time.monotonic() - start


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--max-depth", type=int, default=6)
    ap.add_argument("--seconds", type=float, default=60.0, help="time budget of one run (default 60)")
    ap.add_argument("--memory", type=int, default=4096, help="rh-eval --memory (default 4096)")
    ap.add_argument("--max-line", type=int, default=1 << 28, help="the longest trace line read (default 2^28)")
    args = ap.parse_args()
    print(f"{'family':10s} {'depth':>5s} {'bytes':>6s} {'size':>6s} {'largest':>12s} {'at step':>8s} "
          f"{'growth':>8s} {'steps':>8s} {'seconds':>8s} {'estimate':>10s}  ending")
    for name, make in FAMILIES.items():
        prev = None
        for d in range(1, args.max_depth + 1):
            prog = make(d)
            first, best, at, steps, ending, secs = measure(prog, args.seconds, args.memory, args.max_line)
            growth = f"{best / prev:8.1f}" if prev else ""
            more = ">" if ending in ("budget", "timeout", "out-of-memory") else " "
            w = estimate(prog)
            shown = f"{'*' if w > MAX_RD_SIZE else ' '}{w:9.2e}"
            print(f"{name:10s} {d:5d} {len(prog) + 1:6d} {first:6d} {more}{best:11d} {at:8d} {growth:>8s} "
                  f"{more}{steps:7d} {secs:8.1f} {shown:>10s}  {ending}", flush=True)
            prev = best
    return 0


if __name__ == "__main__":
    sys.exit(main())
