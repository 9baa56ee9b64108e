"""How the verified evaluator's time grows with the size of a program, and
how it compares with the numpy reference on the same programs.

    python3 bench/scaling.py [--quick]          (or: make bench)

For each family of programs and each size n it runs the program on the
verified evaluator (``rh-eval``, one request per run, the median of a few
runs) and on the reference semantics, and prints

* ``verified/reference``: the evaluator's time over the reference's (the
  baseline measured in the same run);
* ``growth``: the evaluator's time at n over its time at the previous size
  n/2, and the exponent it implies (1 linear, 2 quadratic, ...).

Nothing is asserted: the numbers depend on the machine.  The families:
a tuple of n primitive applications (each step evaluates the next
component), a chain of n command lets, a ``rev handle`` whose body performs
an operation n times in a chain (the RH rewriting, then n forward and n
backward clauses), and the paper's MLP step from ``examples/``."""

from __future__ import annotations

import argparse
import math
import statistics
import sys
import time
from pathlib import Path

import revhandlers as rh
from revhandlers.rh import nesting as rh_nesting, sexp as rh_sexp
from revhandlers.rh.engine import VerifiedEvaluator
from revhandlers.rh.families import let_chain, op_chain, wide_tuple
from revhandlers.rh.reference import run_reference

ROOT = Path(__file__).resolve().parents[1]


def mlp_step(_n):
    return rh.load(ROOT / "examples" / "sexp" / "mlp_step.sexp")


FAMILIES = {
    "wide tuple": (wide_tuple, [250, 500, 1000, 2000]),
    "let chain": (let_chain, [250, 500, 1000, 1900]),
    "operation chain": (op_chain, [25, 50, 100, 200]),
    "MLP step": (mlp_step, [1]),
}


def timed(fn, repeats):
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="the two smallest sizes of each family, one run each")
    args = ap.parse_args()
    repeats = 1 if args.quick else 3
    ev = VerifiedEvaluator()
    print(f"{'family':16s} {'n':>5s} {'verified s':>11s} {'reference s':>12s} {'verified/reference':>19s} "
          f"{'growth':>7s} {'exponent':>8s}")
    try:
        for name, (make, sizes) in FAMILIES.items():
            prev = None
            for n in sizes[:2] if args.quick else sizes:
                prog = make(n)
                sexp_line = f"(run {rh_sexp.program_sexp(prog)})"
                ev.request(sexp_line)                                   # warm up the process
                t_v = timed(lambda: ev.request(sexp_line), repeats)
                with rh_nesting.room():
                    t_r = timed(lambda: run_reference(prog), repeats)
                growth = exponent = ""
                if prev is not None:
                    g = t_v / prev[1]
                    growth, exponent = f"{g:7.2f}", f"{math.log(g, n / prev[0]):8.2f}"
                print(f"{name:16s} {n:5d} {t_v:11.4f} {t_r:12.4f} {t_v / t_r:19.2f} {growth:>7s} {exponent:>8s}",
                      flush=True)
                prev = (n, t_v)
    finally:
        ev.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
