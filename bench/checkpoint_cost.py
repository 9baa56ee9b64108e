"""What ``train``'s checkpoints cost: the same training (examples/mlp.rh,
64-32-10, verified engine) with checkpoints every epoch only, and every
``N`` samples, interleaved in one run (each time includes the held-out
evaluation, 359 samples); the ratio is against the epochs-only
run measured in the same run.

    python3 bench/checkpoint_cost.py [--quick]

A checkpoint reads the whole heap from ``rh-eval`` (one request) and
writes an ``.npz`` to a temporary file, fsyncs it and renames it over the
last one.  Every run also checks that its final heap is the same, bit for
bit (checkpoints must not change the training)."""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "pytools"))

import revhandlers as rh  # noqa: E402
from revhandlers.rh.engine import VerifiedEvaluator  # noqa: E402
from revhandlers.rh.train import train  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--quick", action="store_true", help="200 samples, 2 repetitions")
    args = ap.parse_args()
    size, reps = (200, 2) if args.quick else (1000, 3)
    prog = rh.load(ROOT / "examples" / "mlp.rh", params={"hidden": 32})
    settings = [("every epoch", 0), ("every 100 samples", 100), ("every 10 samples", 10)]
    times = {name: [] for name, _ in settings}
    heaps = {}
    with tempfile.TemporaryDirectory() as d, VerifiedEvaluator() as ev:
        for _ in range(reps):
            for name, every in settings:
                start = time.perf_counter()
                _, heap = train(prog, epochs=1, train_size=size, quiet=True, evaluator=ev,
                                checkpoint=Path(d) / "c.npz", checkpoint_every=every)
                times[name].append(time.perf_counter() - start)
                heaps[name] = heap
    base = heaps["every epoch"]
    for name, heap in heaps.items():
        assert all(np.asarray(heap[k]).tobytes() == np.asarray(base[k]).tobytes() for k in base), name
    t0 = float(np.median(times["every epoch"]))
    print(f"train, 1 epoch of {size} samples, 64-32-10, verified engine; median of {reps}")
    for name, _ in settings:
        t = float(np.median(times[name]))
        print(f"  checkpoint {name:18s} {t:7.3f} s   ×{t / t0:5.2f}")
    print("final heaps identical bit for bit: yes")
    return 0


if __name__ == "__main__":
    sys.exit(main())
