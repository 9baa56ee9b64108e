"""Train the paper's MLP through the verified evaluator: ``revhandlers train``.

Each training sample is one ``rev handle`` of the program (the paper's
``rev handle(v)<x_in>.R_MLP with H_train``): its forward clauses read the
weights from the heap, its return clause gives the cotangent of the squared
error, and its backward clauses write the updated weights back.  Python only
moves the sample into the heap (``input``, ``target``, ``lr``) and reads
back the weights and the network's output (``output``).

The data set is the UCI handwritten digits (8×8 images, 10 classes; see
``data/README.md``), committed to the repository, so training is offline.
"""

from __future__ import annotations

import gzip
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .ast import Program
from .errors import BadInput
from .paths import repo_root

DIGITS = repo_root() / "data" / "digits.csv.gz"


def load_digits(path: Path = DIGITS) -> tuple[np.ndarray, np.ndarray]:
    """Images scaled to [0, 1] (n × 64) and labels (n)."""
    try:
        with gzip.open(path, "rt") as f:
            data = np.loadtxt(f, delimiter=",")
    except OSError as e:
        raise BadInput("io", f"cannot read the digits data {path}: {e}") from None
    return data[:, :64] / 16.0, data[:, 64].astype(int)


@dataclass
class History:
    train_loss: list[float] = field(default_factory=list)      # mean over each epoch
    train_accuracy: list[float] = field(default_factory=list)
    sample_loss: list[float] = field(default_factory=list)     # every sample
    test_accuracy: float | None = None
    seconds: float = 0.0


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, label: str, stream=sys.stderr, unit: str = "samples"):
        self.total, self.label, self.stream, self.unit = total, label, stream, unit
        self.start = time.time()
        self.last = 0.0
        self.printed = -1            # the last tenth printed to a log

    def update(self, done: int, extra: str = "") -> None:
        now = time.time()
        tty = getattr(self.stream, "isatty", lambda: False)()
        if tty:
            if done < self.total and now - self.last < 0.2:
                return
        else:  # a log: one line per tenth
            tenth = done * 10 // max(self.total, 1)
            if done < self.total and tenth <= self.printed:
                return
            self.printed = tenth
        self.last = now
        width = 30
        filled = int(width * done / max(self.total, 1))
        rate = done / max(now - self.start, 1e-9)
        bar = "#" * filled + "." * (width - filled)
        line = f"{self.label} [{bar}] {done}/{self.total} {rate:5.0f} {self.unit}/s {extra}".rstrip()
        if tty:
            self.stream.write("\r" + line + ("\n" if done >= self.total else ""))
        else:
            self.stream.write(line + "\n")
        self.stream.flush()


def _check_mlp(prog: Program) -> tuple[int, int, int]:
    sizes = {d.name: d for d in prog.locs}
    for name in ("l0", "l1", "input", "target", "lr", "output"):
        if name not in sizes:
            raise BadInput("unbound", f"a trainable program declares location {name} (see examples/mlp.rh)")
    n_in, n_out = sizes["input"].size, sizes["target"].size
    hidden = sizes["l0"].size // n_in
    if n_in != 64 or n_out != 10:
        raise BadInput("shape", f"the digits have 64 inputs and 10 classes; the program has {n_in} and {n_out}")
    return n_in, hidden, n_out


def train(prog: Program, epochs: int = 3, lr: float = 0.05, seed: int = 0, engine: str = "verified",
          train_size: int | None = None, test_fraction: float = 0.2, quiet: bool = False) -> tuple[History, dict]:
    """SGD over the digits, one ``rev handle`` per sample; returns the
    history and the final weights."""
    from . import run

    n_in, hidden, n_out = _check_mlp(prog)
    X, y = load_digits()
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    X, y = X[perm], y[perm]
    n_test = int(round(len(X) * test_fraction))
    Xte, yte, Xtr, ytr = X[:n_test], y[:n_test], X[n_test:], y[n_test:]
    if train_size is not None:
        Xtr, ytr = Xtr[:train_size], ytr[:train_size]
    weights = {"l0": rng.normal(0.0, 1.0 / math.sqrt(n_in), hidden * n_in),
               "l1": rng.normal(0.0, 1.0 / math.sqrt(hidden), n_out * hidden)}
    onehot = np.eye(n_out)
    hist = History()
    start = time.time()
    for epoch in range(1, epochs + 1):
        order = rng.permutation(len(Xtr))
        bar = Progress(len(order), f"epoch {epoch}/{epochs}", stream=sys.stderr if not quiet else _Null())
        losses, correct = [], 0
        for i, j in enumerate(order, 1):
            res = run(prog, heap={**weights, "input": Xtr[j], "target": onehot[ytr[j]], "lr": [lr]}, engine=engine)
            out = res.heap["output"]
            loss = 0.5 * float(np.sum((out - onehot[ytr[j]]) ** 2))
            losses.append(loss)
            correct += int(np.argmax(out) == ytr[j])
            weights = {"l0": res.heap["l0"], "l1": res.heap["l1"]}
            if not np.all(np.isfinite(weights["l0"])) or not np.all(np.isfinite(weights["l1"])):
                raise BadInput("number", f"the weights diverged at epoch {epoch}, sample {i}: lower --lr")
            bar.update(i, f"loss {np.mean(losses[-100:]):.4f}")
        hist.sample_loss += losses
        hist.train_loss.append(float(np.mean(losses)))
        hist.train_accuracy.append(correct / len(order))
        if not quiet:
            print(f"epoch {epoch}: loss {hist.train_loss[-1]:.4f}, training accuracy {hist.train_accuracy[-1]:.3f}")
    hist.test_accuracy = evaluate(prog, weights, Xte, yte, engine, quiet)
    hist.seconds = time.time() - start
    return hist, weights


class _Null:
    def write(self, s):
        pass

    def flush(self):
        pass


def evaluate(prog: Program, weights: dict, X: np.ndarray, y: np.ndarray, engine: str = "verified",
             quiet: bool = False) -> float:
    """Accuracy of the network on ``X``: the same program with learning
    rate 0 (the weights are written back unchanged)."""
    from . import run
    onehot = np.eye(10)
    bar = Progress(len(X), "held out", stream=sys.stderr if not quiet else _Null())
    correct = 0
    for i, (x, label) in enumerate(zip(X, y), 1):
        res = run(prog, heap={**weights, "input": x, "target": onehot[label], "lr": [0.0]}, engine=engine)
        correct += int(np.argmax(res.heap["output"]) == label)
        bar.update(i)
    return correct / len(X)


def plot(hist: History, path: Path, title: str) -> None:
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4), dpi=110)
    losses = np.array(hist.sample_loss)
    per_epoch = len(losses) // max(len(hist.train_loss), 1)
    window = max(1, min(50, len(losses) // 20))
    smooth = np.convolve(losses, np.ones(window) / window, mode="valid")
    ax.plot(np.arange(len(losses)) / per_epoch, losses, color="0.8", lw=0.5, label="per sample")
    ax.plot((np.arange(len(smooth)) + window - 1) / per_epoch, smooth, color="C0", lw=1.5,
            label=f"moving mean ({window})")
    ax.plot(np.arange(1, len(hist.train_loss) + 1), hist.train_loss, "o-", color="C3", label="epoch mean")
    ax.set_xlabel("epoch")
    ax.set_ylabel("½‖output − target‖²")
    ax.set_yscale("log")
    ax.set_title(title)
    ax.legend()
    fig.tight_layout()
    path.parent.mkdir(parents=True, exist_ok=True)
    fig.savefig(path)
    plt.close(fig)


def cmd_train(args, out) -> int:
    from . import load
    params = {"hidden": args.hidden} if args.hidden is not None else None
    prog = load(args.file, params=params)
    _, hidden, _ = _check_mlp(prog)
    print(f"training {args.file} (64-{hidden}-10, swish) on the UCI digits through the "
          f"{'verified evaluator (rh-eval)' if args.engine == 'verified' else 'numpy reference semantics'}; "
          f"{args.epochs} epochs, learning rate {args.lr}, seed {args.seed}", file=out)
    hist, _ = train(prog, epochs=args.epochs, lr=args.lr, seed=args.seed, engine=args.engine,
                    train_size=args.train_size)
    print(f"held-out accuracy: {hist.test_accuracy:.3f} (chance: 0.100)", file=out)
    print(f"time: {hist.seconds:.1f} s", file=out)
    plot(hist, Path(args.plot), f"MLP 64-{hidden}-10 on digits, {args.engine} engine "
                                f"(held-out accuracy {hist.test_accuracy:.3f})")
    print(f"loss curve: {args.plot}", file=out)
    return 0


def register(sub) -> None:
    t = sub.add_parser("train", help="train the paper's MLP on the handwritten digits, one rev handle per sample")
    t.add_argument("file", help="the network and its handler, e.g. examples/mlp.rh")
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--lr", type=float, default=0.05, help="learning rate (default 0.05)")
    t.add_argument("--hidden", type=int, default=None, help="hidden size (the program's `hidden` parameter)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--engine", choices=("verified", "reference"), default="verified")
    t.add_argument("--train-size", type=int, default=None, help="use only the first N training samples")
    t.add_argument("--plot", default="results/mlp-loss.png", help="where to write the loss curve (PNG)")
    t.set_defaults(func=cmd_train)
