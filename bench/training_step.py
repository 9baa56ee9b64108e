"""What one training step costs through the verified evaluator, against
numpy and PyTorch doing the same step by hand, and how it grows with depth.

    python3 bench/training_step.py [--quick]          (or: make bench)

A training step is one sample of ``H_train``: forward through the network,
the cotangent lr·(output − target), backward updating every weight
(w := w − y xᵀ), in float64.  Everything runs in this one process (and its
``rh-eval`` children), the methods interleaved (part 1: in turns of ten
consecutive steps each, as a training loop runs them; part 2: run by run),
with numpy/BLAS and torch held to one thread; the numbers are medians.

1. Per-sample step at 4-8-2, 64-32-10, 784-128-10 (``examples/mlp.rh`` with
   parameters) and 784-512-512-10 (``examples/mlp3.rh``), by

   * ``verified session, in process``: the program resident in the
     evaluator linked into this process (:class:`revhandlers.Session`,
     :mod:`revhandlers.rh.inprocess`), per sample ``input``/``target`` set and
     ``output`` read (the run's value left out, as ``revhandlers train``
     does): the whole call as Python sees it;
   * ``verified session, process (pipe)``: the same through ``rh-eval
     --serve`` (``Session(..., in_process=False)``), the round trip;
   * ``verified evaluation alone``: the ``seconds`` field of the same runs,
     measured inside the evaluator (reading the request and printing the
     answer excluded), for each path;
   * ``verified whole program``: the former path, ``rh.run`` with the whole
     program and heap as text per sample (skipped, with a note, when one
     step takes more than 5 s);
   * ``reference engine``: the numpy reference semantics (a session);
   * ``numpy by hand`` and ``PyTorch CPU`` (autograd; the ``torch`` extra).

   ``×numpy`` is the time over numpy by hand's, measured in the same run.
   ``CPU us`` is the median CPU time of the calling thread (what a machine
   busy with other work does not inflate; not shown for the process
   paths, whose work is mostly in the ``rh-eval`` child).
   Before timing, every method takes one step from the same weights and the
   outputs and updated weights are checked to agree.
2. Growth with depth: an MLP-like chain of L layers of width 8, the same
   of width 128 (a ``rev handle`` over L ``FC`` operations, generated here)
   and :func:`revhandlers.rh.families.op_chain`, for L = 2, 4, …, 512; the
   time of each engine, T(2L)/T(L) (2 linear, 4 quadratic, 8 cubic) and,
   for the chains, the verified times over numpy by hand's (``×numpy``),
   medians of 5 to 50 interleaved runs.  An engine whose run exceeds 10 s
   is not measured at larger L.  ``verified session, --machine`` and
   ``evaluation alone, --machine`` are the same through ``rh-eval --serve
   --machine``: machine.v's machine, without the tape of ``rev handle``
   (theories/rh/machine_fast.v) that makes the operation chain linear.
3. ``make demo``'s training run (3 epochs of examples/mlp.rh): timed through
   the session, and the former per-sample path timed on a few hundred
   samples and extrapolated to the same number of runs.

Nothing is asserted: the numbers depend on the machine."""

from __future__ import annotations

import os

# numpy/BLAS on one thread: the variables must be set before numpy is imported
_THREAD_VARS = ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS", "BLIS_NUM_THREADS",
                "VECLIB_MAXIMUM_THREADS", "NUMEXPR_NUM_THREADS")
for _v in _THREAD_VARS:
    os.environ[_v] = "1"

import argparse  # noqa: E402
import math  # noqa: E402
import statistics  # noqa: E402
import sys  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402

try:
    from threadpoolctl import threadpool_limits  # noqa: E402
    _POOL = threadpool_limits(limits=1)
    THREADS = "numpy/BLAS: 1 thread (threadpoolctl)"
except ImportError:
    THREADS = "numpy/BLAS: 1 thread (environment variables set before importing numpy; threadpoolctl not installed)"

try:
    import torch  # noqa: E402
    torch.set_num_threads(1)
    TORCH_NOTE = f"PyTorch {torch.__version__} CPU, 1 thread"
except ImportError:
    torch = None
    TORCH_NOTE = ("PyTorch is not installed: its rows are left out "
                  "(pip install -e '.[torch]' installs the torch extra)")

import revhandlers as rh  # noqa: E402
from revhandlers.rh import nesting as rh_nesting  # noqa: E402
from revhandlers.rh.engine import VerifiedEvaluator  # noqa: E402
from revhandlers.rh.families import mlp_chain_source, op_chain  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
BLOCK = 10                  # part 1: consecutive steps of one method before the next method's turn
OLD_PATH_LIMIT = 5.0        # s: one step of the whole-program path slower than this is not repeated
GROWTH_LIMIT = 10.0         # s: an engine slower than this at some L is not measured at larger L
LR = 1e-3


# ----------------------------------------------------------------- networks

def weight_shapes(prog) -> list[tuple[str, int, int]]:
    """(location, rows, columns) of each weight matrix: ``l :: (a, b)`` is b × a."""
    return [(d.name, d.shape[1], d.shape[0]) for d in prog.locs if len(d.shape) == 2]


def initial_weights(prog, rng) -> dict[str, np.ndarray]:
    return {name: rng.normal(0.0, 1.0 / math.sqrt(cols), (rows, cols)) for name, rows, cols in weight_shapes(prog)}


def chain_program(L: int, width: int = 8):
    """An MLP-like chain of L layers of width ``width``, in the style of
    examples/mlp.rh: FC[l0], swish, FC[l1], …, FC[l(L-1)], handled by H_train."""
    return rh.parse(mlp_chain_source(L, width))


# ------------------------------------------------------------------ methods
# Each method is built from the same initial weights and returns a function
# doing one step on (x, t) and returning the output.

def numpy_method(weights: dict, lr: float):
    Ws = [w.copy() for w in weights.values()]
    last = len(Ws) - 1

    def step(x, t):
        acts, pres, h = [x], [], x
        for i, W in enumerate(Ws):
            u = W @ h
            if i < last:
                pres.append(u)
                h = u / (1.0 + np.exp(-u))
                acts.append(h)
        out = u
        y = lr * (out - t)
        for i in range(last, -1, -1):
            g = Ws[i].T @ y
            Ws[i] -= np.outer(y, acts[i])
            if i > 0:
                s = 1.0 / (1.0 + np.exp(-pres[i - 1]))
                y = g * (s + pres[i - 1] * s * (1.0 - s))
        return out

    step.weights = lambda: [w.reshape(-1) for w in Ws]
    return step


def torch_method(weights: dict, lr: float):
    Ws = [torch.tensor(w, dtype=torch.float64, requires_grad=True) for w in weights.values()]
    last = len(Ws) - 1

    def step(x, t):
        h = torch.from_numpy(x)
        for i, W in enumerate(Ws):
            u = W @ h
            h = torch.nn.functional.silu(u) if i < last else u
        loss = 0.5 * torch.sum((h - torch.from_numpy(t)) ** 2)
        loss.backward()
        with torch.no_grad():
            for W in Ws:
                W -= lr * W.grad
                W.grad = None
        return h.detach().numpy()

    step.weights = lambda: [w.detach().numpy().reshape(-1) for w in Ws]
    return step


def session_method(prog, weights: dict, lr: float, engine: str, ev=None, seconds=None, in_process=None):
    s = rh.Session(prog, engine=engine, evaluator=ev, in_process=in_process)
    s.set_heap({**weights, "lr": [lr]})

    def step(x, t):
        r = s.run(set={"input": x, "target": t}, read=("output",), value=False)   # as train does
        if seconds is not None:
            seconds.append(r.seconds)
        return r.read["output"]

    step.weights = lambda: [v for k, v in s.heap().items() if k in weights]
    step.close = s.close
    return step


def whole_program_method(prog, weights: dict, lr: float):
    """The former path: the whole program, heap included, per sample."""
    state = {k: v.reshape(-1) for k, v in weights.items()}

    def step(x, t):
        res = rh.run(prog, heap={**state, "input": x, "target": t, "lr": [lr]})
        state.update({k: res.heap[k] for k in state})
        return res.heap["output"]

    step.weights = lambda: list(state.values())
    return step


# ------------------------------------------------------------------- timing

def once(fn, *args) -> float:
    start = time.perf_counter()
    fn(*args)
    return time.perf_counter() - start


def once_cpu(fn, *args) -> tuple[float, float]:
    """(wall-clock time, CPU time of this thread): the CPU time is what a
    busy machine does not inflate (the process path's excludes rh-eval's)."""
    start, cpu = time.perf_counter(), time.thread_time()
    fn(*args)
    return time.perf_counter() - start, time.thread_time() - cpu


def samples(n_in: int, n_out: int, count: int, rng) -> list[tuple[np.ndarray, np.ndarray]]:
    return [(rng.random(n_in), np.eye(n_out)[rng.integers(n_out)]) for _ in range(count)]


def fmt_us(t: float | None) -> str:
    if t is None:
        return "-"
    us = t * 1e6
    return f"{us:,.0f}" if us >= 100 else f"{us:.1f}"


CONFIGS = [
    ("4-8-2", "mlp.rh", {"n_in": 4, "hidden": 8, "n_out": 2}),
    ("64-32-10", "mlp.rh", {}),
    ("784-128-10", "mlp.rh", {"n_in": 784, "hidden": 128}),
    ("784-512-512-10", "mlp3.rh", {}),
]


#: issue 28's targets: (what, row, at most this many times numpy by hand's median)
TARGETS = {
    "784-128-10": [("verified session, in process", "verified session, in process", 1.0),
                   ("evaluation alone", "verified evaluation alone (in process)", 0.7)],
    "784-512-512-10": [("verified session, in process", "verified session, in process", 1.0)],
}


def per_sample(quick: bool, ev: VerifiedEvaluator) -> None:
    print("== 1. one training step per sample (float64), median; x numpy = time / numpy by hand's")
    print(f"{'network':16s} {'method':38s} {'median us':>12s} {'x numpy':>9s} {'runs':>5s} "
          f"{'CPU us':>10s} {'CPU x np':>9s}")
    rng = np.random.default_rng(0)
    for label, file, params in CONFIGS:
        prog = rh.load(ROOT / "examples" / file, params=params or None)
        weights = initial_weights(prog, rng)
        n_in = next(d.size for d in prog.locs if d.name == "input")
        n_out = next(d.size for d in prog.locs if d.name == "target")
        pool = samples(n_in, n_out, 16, rng)
        eval_seconds: list[float] = []
        proc_seconds: list[float] = []
        methods = {
            "verified session, in process": session_method(prog, weights, LR, "verified", None, eval_seconds,
                                                           in_process=True),
            "verified session, process (pipe)": session_method(prog, weights, LR, "verified", ev, proc_seconds),
            "verified whole program (rh.run)": whole_program_method(prog, weights, LR),
            "reference engine": session_method(prog, weights, LR, "reference"),
            "numpy by hand": numpy_method(weights, LR),
        }
        if torch is not None:
            methods["PyTorch CPU (autograd)"] = torch_method(weights, LR)
        notes = []
        # one step each from the same weights: they agree, and the first timing decides repeats
        first = {}
        outs = {}
        for name, step in methods.items():
            start = time.perf_counter()
            outs[name] = step(*pool[0])
            first[name] = time.perf_counter() - start
        want, want_w = outs["numpy by hand"], methods["numpy by hand"].weights()
        worst = 0.0
        for name, step in methods.items():
            got_w = step.weights()
            for a, b in [(outs[name], want)] + list(zip(got_w, want_w)):
                worst = max(worst, float(np.max(np.abs(a - b) / (np.abs(b) + 1e-12))))
        if worst > 1e-6:
            print(f"   !! the methods disagree after one step at {label} (largest relative difference {worst:.2e})")
        if first["verified whole program (rh.run)"] > OLD_PATH_LIMIT:
            notes.append(f"verified whole program: one step took {first['verified whole program (rh.run)']:.1f} s "
                         f"(> {OLD_PATH_LIMIT:g} s), not repeated")
            del methods["verified whole program (rh.run)"]
        budget = 3.0 if quick else 20.0
        # the slow paths (whole program, reference) run on every `every`-th
        # repetition only, so that they do not decide how often the others run
        slow = ("verified whole program (rh.run)", "reference engine")
        # warm-up (caches, the evaluator's heap grown to its working size,
        # first-call costs), then the cost of one step decides the repetitions
        for name, step in methods.items():
            if name not in slow:
                for w in range(0 if quick else 3):
                    once(step, *pool[1 + w % (len(pool) - 1)])
                first[name] = once(step, *pool[1])
        cost = sum(first[n] for n in methods if n not in slow)
        reps = 2 if quick else max(5, min(300, int(budget / max(cost, 1e-9))))
        every = {n: max(1, math.ceil(first[n] * reps / (budget / 4))) if n in slow else 1 for n in methods}
        times = {name: [] for name in methods}
        cpus = {name: [] for name in methods}
        eval_seconds.clear()
        proc_seconds.clear()
        # in blocks of BLOCK consecutive steps per method (a training loop's
        # steps follow each other), the methods taking turns block by block
        for r0 in range(0, reps, BLOCK):
            for name, step in methods.items():
                for r in range(r0, min(reps, r0 + BLOCK)):
                    if r % every[name] == 0:
                        x, t = pool[(r + 1) % len(pool)]
                        wall, cpu = once_cpu(step, x, t)
                        times[name].append(wall)
                        cpus[name].append(cpu)
        med = {name: statistics.median(ts) for name, ts in times.items()}
        med_cpu = {name: statistics.median(ts) for name, ts in cpus.items()}
        med["verified evaluation alone (in process)"] = statistics.median(eval_seconds)
        med["verified evaluation alone (process)"] = statistics.median(proc_seconds)
        order = ["verified session, in process", "verified evaluation alone (in process)",
                 "verified session, process (pipe)", "verified evaluation alone (process)",
                 "verified whole program (rh.run)", "reference engine", "numpy by hand", "PyTorch CPU (autograd)"]
        base = med["numpy by hand"]
        for name in order:
            if name in med:
                runs = len(times[name]) if name in times else reps
                cpu = (f"{fmt_us(med_cpu[name]):>10s} {med_cpu[name] / med_cpu['numpy by hand']:9.2f}"
                       if name in med_cpu and not name.startswith(("verified session, process", "verified whole"))
                       else f"{'-':>10s} {'-':>9s}")
                print(f"{label:16s} {name:38s} {fmt_us(med[name]):>12s} {med[name] / base:9.2f} {runs:5d} {cpu}")
        for n in notes:
            print(f"{label:16s} note: {n}")
        for name, key, target in TARGETS.get(label, ()):
            ratio = med[key] / base
            print(f"{label:16s} target: {name} <= {target:.1f}x numpy: {ratio:.2f}x, "
                  f"{'met' if ratio <= target else 'missed'}")
        print(f"{label:16s} (one step from the same weights: the methods agree within {worst:.1e} relative; "
              f"load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs after these runs)", flush=True)
        methods_all = [m for m in methods.values() if hasattr(m, "close")]
        for m in methods_all:
            m.close()
    print()


def growth(quick: bool, ev: VerifiedEvaluator) -> None:
    sizes = [2, 4, 8] if quick else [2, 4, 8, 16, 32, 64, 128, 256, 512]
    rng = np.random.default_rng(1)

    # machine.v's machine (rh-eval --machine), the evaluator before the tape of
    # rev handle (theories/rh/machine_fast.v), for the comparison
    machine_ev = VerifiedEvaluator(flags=("--machine",))

    def mlp_chain_methods(width):
        def make(L):
            prog = chain_program(L, width)
            weights = initial_weights(prog, rng)
            secs: list[float] = []
            secs_m: list[float] = []
            m = {"verified session": session_method(prog, weights, LR, "verified", ev, secs),
                 "verified session, --machine": session_method(prog, weights, LR, "verified", machine_ev, secs_m,
                                                               in_process=False),
                 "verified whole program": whole_program_method(prog, weights, LR),
                 "reference engine": session_method(prog, weights, LR, "reference"),
                 "numpy by hand": numpy_method(weights, LR)}
            if torch is not None:
                m["PyTorch CPU"] = torch_method(weights, LR)
            return m, secs, samples(width, width, 4, rng), secs_m
        return make

    def op_chain_methods(L):
        prog = op_chain(L)
        secs: list[float] = []
        secs_m: list[float] = []
        sv = rh.Session(prog, evaluator=ev)
        sm = rh.Session(prog, evaluator=machine_ev, in_process=False)
        sr = rh.Session(prog, engine="reference")

        def verified(_x, _t):
            secs.append(sv.run().seconds)
        verified.close = sv.close

        def verified_machine(_x, _t):
            secs_m.append(sm.run().seconds)
        verified_machine.close = sm.close

        def reference(_x, _t):
            sr.run()
        reference.close = sr.close
        return ({"verified session": verified, "verified session, --machine": verified_machine,
                 "verified whole program": lambda _x, _t: rh.run(prog),
                 "reference engine": reference}, secs, [(None, None)], secs_m)

    for title, make, note in [
        ("MLP-like chain of L layers of width 8 (one training step)", mlp_chain_methods(8), None),
        ("MLP-like chain of L layers of width 128 (one training step)", mlp_chain_methods(128), None),
        ("operation chain (revhandlers.rh.families.op_chain: L operations in one rev handle)", op_chain_methods,
         "numpy by hand and PyTorch: not applicable (no weights; a chain of scalar swish operations)")]:
        print(f"== 2. growth with depth: {title}; median us and T(2L)/T(L)")
        results: dict[str, dict[int, float]] = {}
        stopped: dict[str, str] = {}
        for L in sizes:
            methods, secs, pool, secs_m = make(L)
            for name in list(methods):
                if name in stopped:
                    del methods[name]
            times = {name: [] for name in methods}
            cost = 0.0
            for name, step in methods.items():           # warm-up, and the 10 s cap
                t = once(step, *pool[0])
                cost += t
                if t > GROWTH_LIMIT:
                    stopped[name] = f"{name}: one run took {t:.1f} s at L = {L}; larger L not measured"
                    times[name] = [t]
            reps = 1 if quick else max(5, min(50, int(3.0 / max(cost, 1e-9))))
            secs.clear()
            secs_m.clear()
            for r in range(reps):
                x, t = pool[r % len(pool)]
                for name, step in methods.items():
                    if name in stopped and len(times[name]) == 1:
                        continue
                    times[name].append(once(step, x, t))
            for name, ts in times.items():
                results.setdefault(name, {})[L] = statistics.median(ts)
            if secs:
                results.setdefault("verified evaluation alone", {})[L] = statistics.median(secs)
            if secs_m:
                results.setdefault("evaluation alone, --machine", {})[L] = statistics.median(secs_m)
            for m in methods.values():
                if hasattr(m, "close"):
                    m.close()
        names = [n for n in ["verified session", "verified evaluation alone", "verified session, --machine",
                             "evaluation alone, --machine", "verified whole program",
                             "reference engine", "numpy by hand", "PyTorch CPU"] if n in results]
        print(f"{'engine':28s}" + "".join(f"{'L=' + str(L):>10s}" for L in sizes))
        for n in names:
            print(f"{n:28s}" + "".join(f"{fmt_us(results[n].get(L)):>10s}" for L in sizes))
        print(f"{'T(2L)/T(L)':28s}" + "".join(f"{str(2 * L) + '/' + str(L):>10s}" for L in sizes[:-1]))
        for n in names:
            cells = []
            for L in sizes[:-1]:
                a, b = results[n].get(L), results[n].get(2 * L)
                cells.append(f"{b / a:10.2f}" if a and b else f"{'-':>10s}")
            print(f"{n:28s}" + "".join(cells))
        if "numpy by hand" in results:
            base = results["numpy by hand"]
            for n, label in [("verified session", "session ×numpy"),
                             ("verified evaluation alone", "evaluation alone ×numpy")]:
                if n in results:
                    print(f"{label:28s}" + "".join(
                        f"{results[n][L] / base[L]:10.1f}" if results[n].get(L) and base.get(L) else f"{'-':>10s}"
                        for L in sizes))
        for n in stopped.values():
            print(f"note: {n}")
        if note:
            print(f"note: {note}")
        print(flush=True)


def demo_training(quick: bool, ev: VerifiedEvaluator) -> None:
    from revhandlers.rh.train import initial_state, layout, load_digits, train
    epochs, train_size, n_old = (1, 60, 20) if quick else (3, None, 300)
    prog = rh.load(ROOT / "examples" / "mlp.rh")
    print(f"== 3. make demo's training run: examples/mlp.rh, {epochs} epoch(s), seed 0"
          + (f", {train_size} training samples" if train_size else ""))
    start = time.perf_counter()
    hist, _ = train(prog, epochs=epochs, seed=0, quiet=True, train_size=train_size, evaluator=ev)
    t_session = time.perf_counter() - start
    print("losses " + " -> ".join(f"{x:.4f}" for x in hist.train_loss) + f", held-out accuracy {hist.test_accuracy:.3f}")
    X, y = load_digits()
    n_test = int(round(len(X) * 0.2))
    n_train = min(len(X) - n_test, train_size or len(X))
    runs = epochs * n_train + n_test
    # the former path: the whole program and heap per sample, weights read back
    state = initial_state(prog, layout(prog), 0)
    onehot = np.eye(10)
    start = time.perf_counter()
    for j in range(n_old):
        res = rh.run(prog, heap={**state, "input": X[j], "target": onehot[y[j]], "lr": [0.05]})
        state = {k: res.heap[k] for k in state}
    per = (time.perf_counter() - start) / n_old
    t_old = per * runs
    print(f"{'through the session (measured)':44s} {t_session:8.1f} s   ({t_session / runs * 1e6:,.0f} us per run, "
          f"{runs} runs)")
    print(f"{'whole program per sample (extrapolated)':44s} {t_old:8.1f} s   ({per * 1e6:,.0f} us per run, "
          f"measured on {n_old} samples)")
    print(f"{'ratio whole program / session':44s} {t_old / t_session:8.1f}")


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="a smoke run: few repeats, L up to 8, a short training")
    ap.add_argument("--only", choices=["per-sample", "growth", "demo"], action="append",
                    help="run only this part (repeatable; default: all three)")
    args = ap.parse_args()
    parts = args.only or ["per-sample", "growth", "demo"]
    print(f"{THREADS}; {TORCH_NOTE}")
    from revhandlers.rh import inprocess
    print(f"in-process evaluator: {inprocess.library_path() or 'not built (its rows fall back to the process)'}; "
          f"load average at the start: {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    ev = VerifiedEvaluator()
    try:
        with rh_nesting.room():
            if "per-sample" in parts:
                per_sample(args.quick, ev)
            if "growth" in parts:
                growth(args.quick, ev)
            if "demo" in parts:
                demo_training(args.quick, ev)
    finally:
        ev.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())
