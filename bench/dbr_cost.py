"""The cost of the define-by-run AD library (``revhandlers.dbr``): how many
operations each implementation of ``diff`` performs per operation of the
client, and how long the three Python implementations, the three extracted
from Coq (``dbr-eval``) and PyTorch autograd take on the same polynomial.

    python3 bench/dbr_cost.py [--quick]          (or: make bench)

The polynomial is a random straight-line program of n = 10^5 operations
(10^4 with ``--quick``; seed 0), at x = 0.499: each step takes the latest
value a and a value b among the 64 latest, and appends either
x·(a·b + 1) (3 operations) or x·(a + b) (2 operations), cut at exactly n
operations; the result is the last value.  Every value is used, and values
and derivatives stay in [0.2, 2] and [1, 100] (x·(v² + 1) = v has an
attracting fixed point near 0.94), so the float results are finite, not
trivial, and every method's rounding stays far below the check's 1e-9.  The
same program is built three times: a client ``f(d, x)`` running the list of
operations through ``d.add``/``d.mul``; a ``let*`` request for ``dbr-eval``
(one binding per operation, and every 32 operations a binding ``(xK xJ)``
that re-binds x and performs no operation: the driver resolves a name by
scanning the names in scope, innermost first, so referring to x itself from
under 10^5 bindings took about 120 s per request instead of 2 s when this
benchmark was written); and float64 scalar tensors for PyTorch.

1. Counts.  Every implementation runs once on :func:`counting` (the Python
   ones) or reports the ``operations`` field (the extracted ones): the
   add/mul calls on the outer dictionary, over the n operations of f.  For
   the Python reverse modes the calls made before the client returned (the
   forward phase: one per operation) are told apart from the rest (the
   backward phase), and the handler-based one also counts, with its
   ``Stats``, the requests it answered and the clauses that finished after
   their continuation returned (its backward updates).  The prediction from
   the program: reverse mode, 1 operation forward per operation, then 2 adds
   for an add, 2 muls and 2 adds for a mul, one add fewer per constant
   operand (the constant 1 gets no adjoint), and one add for the result's
   adjoint; forward mode, 2 per add and 4 per mul.  A Python implementation
   and the extracted one of the same mode should count the same; the output
   says whether they do.
2. Agreement.  Before timing, every method's derivative (and the plain
   evaluations' values) are compared with PyTorch's, relative 1e-9.
3. Times.  The median of 5 runs (3 with ``--quick``), the methods
   interleaved run by run, ``gc.collect()`` between runs (not timed), each
   computing the derivative at x (its run computes the value too):

   * ``plain Python floats``: f on FLOATS, no differentiation: the baseline;
   * ``Python handlers/tape/forward``: ``diff(f, impl)`` on FLOATS;
   * ``dbr-eval M (round trip)``: one request through a resident
     ``dbr-eval --serve`` process, as Python sees it: sending 2.6 MB of
     request text, the driver's parsing and name resolution, its plain
     evaluation of the program (its work bound), the computation, the answer;
   * ``dbr-eval M (in driver)``: the ``seconds`` field of the same runs,
     measured inside the driver around the computation only;
   * ``dbr-eval eval``: the extracted plain evaluation, for reference;
   * ``PyTorch autograd``: the graph built by running the program on float64
     scalar tensors, then ``torch.autograd.grad`` (one thread); its backward
     alone is shown too.

   ``x torch`` and ``x plain`` are each median over PyTorch's and over plain
   Python's, measured in the same run.

The handler-based Python run keeps its n clauses suspended at once, each in
a greenlet: the full run peaked near 0.9 GB of memory when this was written.

Nothing is asserted: the numbers depend on the machine."""

from __future__ import annotations

import argparse
import gc
import platform
import random
import statistics
import sys
import time

try:
    import torch
    torch.set_num_threads(1)
    TORCH_NOTE = f"PyTorch {torch.__version__} CPU, 1 thread"
except ImportError:
    torch = None
    TORCH_NOTE = "PyTorch is not installed: its rows are left out and x torch is not computed"

from revhandlers.dbr import FLOATS, diff, handlers as dbr_handlers
from revhandlers.dbr.dictionary import counting
from revhandlers.dbr.engine import CoqLibrary, dbr_eval_path

X = 0.499
SEED = 0
WINDOW = 64          # b is among the latest WINDOW values
REBIND = 32          # the request re-binds x every REBIND operations
TOLERANCE = 1e-9
MODES = ("handlers", "tape", "forward")


# ------------------------------------------------------------------ the program
# Slot 0 is the constant 1, slot 1 is x, slot k + 2 the result of operation k;
# an operation is (is_mul, a, b) on two slots.

def program(n: int, seed: int = SEED) -> list[tuple[bool, int, int]]:
    rng = random.Random(seed)
    ops: list[tuple[bool, int, int]] = []
    values = [1]                 # the slots a step may read: x, then each step's result
    while len(ops) < n:
        a = values[-1]
        b = values[rng.randrange(max(0, len(values) - WINDOW), len(values))]
        s = len(ops) + 2         # the slot of the next operation's result
        if rng.random() < 0.5:   # x·(a·b + 1)
            ops += [(True, a, b), (False, s, 0), (True, 1, s + 1)]
            values.append(s + 2)
        else:                    # x·(a + b)
            ops += [(False, a, b), (True, 1, s)]
            values.append(s + 1)
    return ops[:n]


def client(ops):
    """The program as a client ``f(d, x)``: exactly len(ops) calls of d."""

    def f(d, x):
        v = [d.one, x]
        add, mul = d.add, d.mul
        for is_mul, a, b in ops:
            v.append(mul(v[a], v[b]) if is_mul else add(v[a], v[b]))
        return v[-1]

    f.__name__ = f"polynomial_{len(ops)}"
    return f


def request_expr(ops) -> str:
    """The program as dbr-eval's ``(let* ((NAME E) ...) NAME)``."""
    binds: list[str] = []
    xname, copies = "x", 0

    def name(i):
        return "1" if i == 0 else xname if i == 1 else f"v{i}"

    for k, (is_mul, a, b) in enumerate(ops):
        if k and k % REBIND == 0:
            copies += 1
            binds.append(f"(x{copies} {xname})")
            xname = f"x{copies}"
        binds.append(f"(v{k + 2} ({'*' if is_mul else '+'} {name(a)} {name(b)}))")
    return f"(let* ({' '.join(binds)}) v{len(ops) + 1})"


def torch_run(ops, x0: float, split: list | None = None):
    """Value and derivative by PyTorch autograd; ``split`` receives the time
    of the backward alone."""
    x = torch.tensor(x0, dtype=torch.float64, requires_grad=True)
    v = [torch.tensor(1.0, dtype=torch.float64), x]
    for is_mul, a, b in ops:
        v.append(v[a] * v[b] if is_mul else v[a] + v[b])
    start = time.perf_counter()
    (g,) = torch.autograd.grad(v[-1], x)
    if split is not None:
        split.append(time.perf_counter() - start)
    return v[-1].item(), g.item()


def predicted(ops) -> dict[str, int]:
    """The outer operations each mode should perform on this program."""
    adds = sum(1 for m, _, _ in ops if not m)
    muls = len(ops) - adds
    var_operands = sum((a != 0) + (b != 0) for _, a, b in ops)
    return {"plain": len(ops),
            "handlers": len(ops) + 2 * muls + var_operands + 1,
            "tape": len(ops) + 2 * muls + var_operands + 1,
            "forward": 2 * adds + 4 * muls}


# ---------------------------------------------------------------------- output

def fmt_ms(t: float | None) -> str:
    if t is None:
        return "-"
    ms = t * 1e3
    return f"{ms:,.0f}" if ms >= 100 else f"{ms:.2f}" if ms < 10 else f"{ms:.1f}"


def rel(a: float, b: float) -> float:
    return abs(a - b) / abs(b) if b else abs(a - b)


# ------------------------------------------------------------------------ main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="n = 10^4 and 3 runs per method")
    args = ap.parse_args()
    n = 10_000 if args.quick else 100_000
    runs = 3 if args.quick else 5

    ops = program(n)
    f = client(ops)
    expr = request_expr(ops)
    pred = predicted(ops)
    have_coq = dbr_eval_path().exists()
    print(f"Python {platform.python_version()}; {TORCH_NOTE}; dbr-eval: "
          f"{dbr_eval_path() if have_coq else 'not built (make build): its rows are left out'}")
    print(f"polynomial: {n} operations ({sum(m for m, _, _ in ops)} mul, {sum(not m for m, _, _ in ops)} add), "
          f"seed {SEED}, at x = {X!r}; dbr-eval request {len(expr) / 1e6:.1f} MB")
    print()

    lib = CoqLibrary() if have_coq else None
    try:
        # ------------------------------------------------------------ 1. counts
        print("== 1. operations on the outer dictionary (add/mul calls), over the n operations of f")
        results: dict[str, float] = {}           # derivative (or value) by method, for section 2
        counts: dict[str, int] = {}
        phases: dict[str, tuple[int, int]] = {}

        d, c = counting(FLOATS)
        results["plain Python floats (value)"] = f(d, X)
        counts["plain Python"] = c["add"] + c["mul"]
        base_ops = counts["plain Python"]
        add_mul = {"plain Python": (c["add"], c["mul"])}

        stats = dbr_handlers.Stats()
        for mode in MODES:
            d, c = counting(FLOATS)
            at_return: dict[str, int] = {}

            def g(dd, x, _c=c, _at=at_return):     # the client, noting the counts when it returns
                r = f(dd, x)
                _at.update(_c)
                return r

            df = dbr_handlers.diff(g, stats=stats) if mode == "handlers" else diff(g, mode)
            results[f"Python {mode}"] = df(d, X)
            counts[f"Python {mode}"] = c["add"] + c["mul"]
            add_mul[f"Python {mode}"] = (c["add"], c["mul"])
            if mode != "forward":
                fwd = at_return["add"] + at_return["mul"]
                phases[f"Python {mode}"] = (fwd, counts[f"Python {mode}"] - fwd)
        if lib is not None:
            results["dbr-eval eval (value)"] = lib.value(expr, ["x"], [X])
            counts["dbr-eval eval"] = lib.operations
            for mode in MODES:
                results[f"dbr-eval {mode}"] = lib.diff(expr, X, mode=mode)
                counts[f"dbr-eval {mode}"] = lib.operations

        print(f"{'implementation':22s} {'add':>9s} {'mul':>9s} {'total':>9s} {'forward':>9s} {'backward':>9s} "
              f"{'per op of f':>12s} {'predicted':>10s}")
        rows = [("plain", "plain Python"), ("plain", "dbr-eval eval")]
        rows += [(mode, f"{impl} {mode}") for mode in MODES for impl in ("Python", "dbr-eval")]
        for mode, key in rows:
            if key not in counts:
                continue
            a, m = add_mul.get(key, ("-", "-"))
            fw, bw = phases.get(key, ("-", "-"))
            print(f"{key:22s} {a:>9} {m:>9} {counts[key]:>9} {fw:>9} {bw:>9} "
                  f"{counts[key] / base_ops:12.5f} {pred[mode]:>10}")
        print("(forward/backward: the outer operations done before the client returned, and after; "
              "dbr-eval reports totals only)")
        print(f"Python handlers, Stats: {stats.forward} requests answered (forward), {stats.backward} clauses "
              f"finished after their continuation (backward updates), at most {stats.most_suspended} suspended "
              f"at once: {stats.backward / base_ops:.5f} backward updates per operation of f")
        for mode in MODES:
            p, e = counts.get(f"Python {mode}"), counts.get(f"dbr-eval {mode}")
            if e is None:
                continue
            same = "the same count" if p == e else f"DIFFERENT counts ({p} against {e})"
            print(f"{mode}: Python and extracted implementations perform {same}"
                  + ("" if p == pred[mode] else f"; the prediction was {pred[mode]}"))
        if lib is not None and counts["dbr-eval eval"] != base_ops:
            print(f"note: dbr-eval eval performs {counts['dbr-eval eval']} operations, f {base_ops}")
        print()

        # --------------------------------------------------------- 2. agreement
        print(f"== 2. agreement with PyTorch autograd (relative {TOLERANCE:g}), checked before timing")
        if torch is not None:
            t_value, t_deriv = torch_run(ops, X)
            print(f"PyTorch: value {t_value!r}, derivative {t_deriv!r}")
            worst = 0.0
            for name, r in results.items():
                want = t_value if "(value)" in name else t_deriv
                e = rel(r, want)
                worst = max(worst, e)
                status = "agrees" if e <= TOLERANCE else "DISAGREES"
                print(f"  {name:30s} {r!r:>22s}  relative difference {e:.1e}  {status}")
            if worst > TOLERANCE:
                print(f"!! some methods disagree with PyTorch beyond {TOLERANCE:g} (largest {worst:.1e})")
            else:
                print(f"every method agrees with PyTorch within {TOLERANCE:g} (largest relative difference "
                      f"{worst:.1e})")
        else:
            ref = results["Python tape"]
            for name, r in results.items():
                if "(value)" not in name:
                    print(f"  {name:30s} {r!r:>22s}  relative difference to Python tape {rel(r, ref):.1e}")
        print(flush=True)

        # ------------------------------------------------------------- 3. times
        methods: dict[str, object] = {"plain Python floats": lambda: f(FLOATS, X)}
        for mode in MODES:
            methods[f"Python {mode}"] = (lambda df: lambda: df(FLOATS, X))(diff(f, mode))
        inside: dict[str, list[float]] = {}
        if lib is not None:
            for mode in MODES:
                inside[mode] = []

                def coq(mode=mode):
                    lib.diff(expr, X, mode=mode)
                    inside[mode].append(lib.seconds)

                methods[f"dbr-eval {mode} (round trip)"] = coq
            inside["eval"] = []

            def coq_eval():
                lib.value(expr, ["x"], [X])
                inside["eval"].append(lib.seconds)

            methods["dbr-eval eval (round trip)"] = coq_eval
        backward: list[float] = []
        if torch is not None:
            methods["PyTorch autograd"] = lambda: torch_run(ops, X, backward)

        times: dict[str, list[float]] = {name: [] for name in methods}
        for _ in range(runs):
            for name, fn in methods.items():
                gc.collect()
                start = time.perf_counter()
                fn()
                times[name].append(time.perf_counter() - start)
        med = {name: statistics.median(ts) for name, ts in times.items()}
        for key, secs in inside.items():
            med[f"dbr-eval {key} (in driver)"] = statistics.median(secs)
        if backward:
            med["PyTorch: backward alone"] = statistics.median(backward)

        plain = med["plain Python floats"]
        tref = med.get("PyTorch autograd")
        print(f"== 3. value and derivative at x, n = {n}: median ms of {runs} interleaved runs; "
              f"x torch = time / PyTorch autograd's, x plain = time / plain Python's")
        print(f"{'method':34s} {'median ms':>10s} {'us per op':>10s} {'x torch':>9s} {'x plain':>9s}")
        order = ["plain Python floats", "Python handlers", "Python tape", "Python forward"]
        for mode in MODES + ("eval",):
            order += [f"dbr-eval {mode} (round trip)", f"dbr-eval {mode} (in driver)"]
        order += ["PyTorch autograd", "PyTorch: backward alone"]
        for name in order:
            if name not in med:
                continue
            t = med[name]
            xt = f"{t / tref:9.2f}" if tref else f"{'-':>9s}"
            print(f"{name:34s} {fmt_ms(t):>10s} {t / n * 1e6:10.2f} {xt} {t / plain:9.1f}")
    finally:
        if lib is not None:
            lib.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
