"""Train the paper's MLP through the verified evaluator: ``revhandlers train``.

Each training sample is one ``rev handle`` of the program (the paper's
``rev handle(v)<x_in>.R_MLP with H_train``): its forward clauses read the
weights from the heap, its return clause gives the cotangent of the squared
error, and its backward clauses write the updated weights back.

The program is loaded once into a resident session
(:class:`revhandlers.rh.session.Session`), whose heap is carried from one
sample to the next: every location but the sample's (``input``, ``target``,
``lr``, ``output``) is training state, so a handler may keep more than the
weights (e.g. momentum).  Per sample Python only sets ``input`` and
``target`` and reads ``output``.  A location of shape ``(a, b)`` that a
handler's forward clause reads (``Get``) and that has no ``heap`` entry is a
weight matrix, drawn from N(0, 1/sqrt(a)) with the seed, and named on the
output; other state starts at the program's ``heap`` entry or zeros (a
momentum buffer read only backward starts at zero), unless ``--load`` gives
it.  :func:`initial_heap` is that rule; ``revhandlers run --init-seed S``
and ``Session.set_heap(initial_heap(prog, S))`` start from the same heap.

The data set is the UCI handwritten digits (8×8 images, 10 classes; see
``data/README.md``), committed to the repository and shipped in the package
(``revhandlers/data/``, read when running outside a checkout), so training
is offline.
"""

from __future__ import annotations

import gzip
import math
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from .. import interrupt
from ..errors import BadInput
from ..heapio import read_npz
from ..interrupt import read_meta, write_npz_atomic
from ..paths import digits_path
from ..process import ProcessStopped
from ..progress import Progress
from .engine import VerifiedEvaluator
from .initial import (  # noqa: F401
    IO,
    Layout,
    describe_init,
    forward_reads,
    initial_heap,
    initial_state,
    layout,
    program_digest,
    random_locations,
)
from .nesting import children
from .program import load
from .session import Session
from .syntax import App, Program

#: the checkout's ``data/digits.csv.gz``, or the copy installed with the
#: package (``revhandlers/data/``) when it runs outside a checkout
DIGITS = digits_path()


def load_digits(path: Path | None = None) -> tuple[np.ndarray, np.ndarray]:
    """Images scaled to [0, 1] (n × 64) and labels (n), from ``path``
    (default :data:`DIGITS`)."""
    path = DIGITS if path is None else path
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


def _check_options(epochs: int, lr: float, train_size: int | None, test_fraction: float) -> None:
    if not isinstance(epochs, int) or epochs < 1:
        raise BadInput("syntax", f"the number of epochs must be at least 1, not {epochs}")
    if not math.isfinite(lr) or lr < 0:
        raise BadInput("number", f"the learning rate must be a finite number >= 0, not {lr}")
    if train_size is not None and train_size < 1:
        raise BadInput("syntax", f"the training set must have at least 1 sample, not {train_size}")
    if not 0 < test_fraction < 1:
        raise BadInput("syntax", f"the held-out fraction must be between 0 and 1, not {test_fraction}")


#: how many times ``train`` starts a dead evaluator again from the last checkpoint
RESTARTS = 3


@dataclass
class Checkpoint:
    """Training stopped between two samples: the whole heap, the epoch
    (1-based; ``epochs + 1`` when training is over) and the samples done in
    it, the generator's state at the start of that epoch (before it draws
    the epoch's order), the losses and correct answers so far, and the
    options (:data:`CHECKPOINT_OPTIONS`)."""
    heap: dict
    epoch: int
    position: int
    rng_state: dict
    epoch_losses: list
    epoch_correct: int
    history: History
    options: dict

    def write(self, path) -> None:
        """To ``path`` (``.npz``: ``heap/NAME`` arrays, ``sample_loss``,
        ``epoch_losses`` and ``__meta__``), atomically."""
        arrays = {f"heap/{k}": np.asarray(v, dtype=float) for k, v in self.heap.items()}
        arrays["sample_loss"] = np.asarray(self.history.sample_loss, dtype=float)
        arrays["epoch_losses"] = np.asarray(self.epoch_losses, dtype=float)
        meta = {"checkpoint": 1, "epoch": self.epoch, "position": self.position, "rng_state": self.rng_state,
                "epoch_correct": self.epoch_correct, "train_loss": self.history.train_loss,
                "train_accuracy": self.history.train_accuracy, "seconds": self.history.seconds,
                "options": self.options}
        try:
            write_npz_atomic(path, arrays, meta)
        except OSError as e:
            raise BadInput("io", f"cannot write the checkpoint {path}: {e.strerror or e}") from None

    @classmethod
    def read(cls, path) -> "Checkpoint":
        try:
            with np.load(path, allow_pickle=False) as data:
                meta = read_meta(data)
                if not meta or meta.get("checkpoint") != 1:
                    raise ValueError("not a training checkpoint (no __meta__)")
                heap = {k[5:]: np.array(data[k]) for k in data.files if k.startswith("heap/")}
                sample_loss = [float(x) for x in data["sample_loss"]]
                epoch_losses = [float(x) for x in data["epoch_losses"]]
            hist = History(list(meta["train_loss"]), list(meta["train_accuracy"]), sample_loss,
                           seconds=float(meta.get("seconds", 0.0)))
            return cls(heap, int(meta["epoch"]), int(meta["position"]), meta["rng_state"], epoch_losses,
                       int(meta["epoch_correct"]), hist, dict(meta["options"]))
        except BadInput:
            raise
        except Exception as e:  # noqa: BLE001 - numpy, zipfile and json raise several types
            raise BadInput("io", f"cannot read the checkpoint {path}: {e}") from None

    def describe(self, epochs: int, samples: int) -> str:
        if self.epoch > epochs:
            return f"after the last epoch ({epochs})"
        return f"epoch {self.epoch} of {epochs}, {self.position} of {samples} samples done"


#: the options a checkpoint must share with the run that resumes it
CHECKPOINT_OPTIONS = ("program", "epochs", "lr", "seed", "engine", "train_size", "test_fraction")


def train(prog: Program, epochs: int = 3, lr: float = 0.05, seed: int = 0, engine: str = "verified",
          train_size: int | None = None, test_fraction: float = 0.2, quiet: bool = False,
          init: dict | None = None, evaluator=None, checkpoint=None, checkpoint_every: int = 0,
          resume: Checkpoint | None = None, restarts: int = RESTARTS) -> tuple[History, dict]:
    """Train over the digits, one ``rev handle`` per sample, through one
    :class:`~revhandlers.rh.session.Session`: the program is loaded once, every
    location is carried from one sample to the next (so a handler may keep
    state such as momentum), and per sample only ``input`` and ``target``
    are set and ``output`` read.  ``init`` gives initial values of state
    locations (see :func:`initial_state`).  The held-out accuracy is
    measured on a second session started from the trained heap with
    learning rate 0.  Returns the history and the trained heap (every
    location).

    A :class:`Checkpoint` is taken at the end of every epoch, every
    ``checkpoint_every`` samples (when more than 0) and when a signal
    arrives (:mod:`revhandlers.interrupt`: training stops between two
    samples, the checkpoint is written, then :class:`~revhandlers.interrupt.Interrupted`
    is raised); with ``checkpoint`` (a path) it is written there
    atomically.  ``resume`` continues from a checkpoint: the same samples
    in the same order, so the final heap is the uninterrupted run's bit for
    bit.  If the evaluator process dies, training starts again from the
    last checkpoint in a new one, at most ``restarts`` times."""

    _check_options(epochs, lr, train_size, test_fraction)
    lay = layout(prog)
    X, y = load_digits()
    rng = np.random.default_rng(seed)
    perm = rng.permutation(len(X))
    X, y = X[perm], y[perm]
    n_test = int(round(len(X) * test_fraction))
    Xte, yte, Xtr, ytr = X[:n_test], y[:n_test], X[n_test:], y[n_test:]
    if train_size is not None:
        Xtr, ytr = Xtr[:train_size], ytr[:train_size]
    state = initial_state(prog, lay, seed, init)
    options = {"program": program_digest(prog), "epochs": epochs, "lr": lr, "seed": seed, "engine": engine,
               "train_size": train_size, "test_fraction": test_fraction}
    if resume is not None:
        differ = [k for k in CHECKPOINT_OPTIONS if resume.options.get(k) != options[k]]
        if differ:
            raise BadInput("syntax", "the checkpoint was taken with other options: "
                           + ", ".join(f"{k} {resume.options.get(k)!r} (here {options[k]!r})" for k in differ))
        last = resume
    else:
        last = Checkpoint({**state, "lr": np.array([lr])}, 1, 0, rng.bit_generator.state, [], 0, History(), options)
    onehot = np.eye(lay.n_out)
    own = evaluator is None and engine == "verified"
    if own:
        evaluator = VerifiedEvaluator()
    start = time.time() - last.history.seconds
    n = len(Xtr)

    def save(ck: Checkpoint) -> None:
        nonlocal last
        ck.history.seconds = time.time() - start
        last = ck
        if checkpoint is not None:
            ck.write(checkpoint)
            interrupt.keep(f"checkpoint {checkpoint} ({ck.describe(epochs, n)}; continue with --resume {checkpoint})")

    def run_from(ck: Checkpoint) -> dict:
        """Training from ``ck`` to its end: the trained heap."""
        hist = History(list(ck.history.train_loss), list(ck.history.train_accuracy), list(ck.history.sample_loss))
        rng.bit_generator.state = ck.rng_state
        with Session(prog, engine=engine, evaluator=evaluator) as sess:
            sess.set_heap(ck.heap)
            epoch, pos = ck.epoch, ck.position
            losses, correct = list(ck.epoch_losses), ck.epoch_correct
            while epoch <= epochs:
                epoch_state = rng.bit_generator.state
                order = rng.permutation(n)

                def take(i: int) -> Checkpoint:
                    return Checkpoint(sess.heap(), epoch, i, epoch_state, list(losses), correct,
                                      History(list(hist.train_loss), list(hist.train_accuracy),
                                              list(hist.sample_loss)), options)

                bar = Progress(n, f"epoch {epoch}/{epochs}", stream=sys.stderr if not quiet else _Null())
                for i in range(pos, n):
                    if interrupt.pending() is not None:
                        save(take(i))                 # between two samples: the heap after sample i
                        interrupt.check()
                    j = order[i]
                    out = sess.run(set={"input": Xtr[j], "target": onehot[ytr[j]]}, read=("output",),
                                   value=False).read["output"]
                    if not np.all(np.isfinite(out)):
                        raise BadInput("number", f"the training diverged at epoch {epoch}, sample {i + 1}: lower --lr")
                    losses.append(0.5 * float(np.sum((out - onehot[ytr[j]]) ** 2)))
                    correct += int(np.argmax(out) == ytr[j])
                    bar.update(i + 1, f"loss {np.mean(losses[-100:]):.4f}")
                    if checkpoint_every and ((epoch - 1) * n + i + 1) % checkpoint_every == 0 and i + 1 < n:
                        save(take(i + 1))
                hist.sample_loss += losses
                hist.train_loss.append(float(np.mean(losses)))
                hist.train_accuracy.append(correct / n)
                if not quiet:
                    print(f"epoch {epoch}: loss {hist.train_loss[-1]:.4f}, "
                          f"training accuracy {hist.train_accuracy[-1]:.3f}")
                epoch, pos, losses, correct = epoch + 1, 0, [], 0
                save(Checkpoint(sess.heap(), epoch, 0, rng.bit_generator.state, [], 0,
                                History(list(hist.train_loss), list(hist.train_accuracy), list(hist.sample_loss)),
                                options))
            return sess.heap()

    deaths = 0
    try:
        with interrupt.deferred():
            while True:
                try:
                    trained = run_from(last)
                    break
                except ProcessStopped as e:
                    deaths += 1
                    if deaths > restarts:
                        raise ProcessStopped(f"{e.message}; it stopped {deaths} times, training ends "
                                             f"(the last checkpoint: {last.describe(epochs, n)})") from None
                    if not quiet:
                        print(f"{e.message}: starting again from the last checkpoint "
                              f"({last.describe(epochs, n)})", file=sys.stderr)
        hist = last.history
        if not all(np.all(np.isfinite(v)) for v in trained.values()):
            raise BadInput("number", "the training diverged (a location holds a non-finite number): lower --lr")
        for attempt in range(restarts + 1):
            try:
                hist.test_accuracy = evaluate(prog, trained, Xte, yte, engine, quiet, evaluator=evaluator)
                break
            except ProcessStopped:
                if attempt == restarts:
                    raise
    finally:
        if own:
            evaluator.close()
    hist.seconds = time.time() - start
    return hist, trained


class _Null:
    def write(self, s):
        pass

    def flush(self):
        pass


def evaluate(prog: Program, heap: dict, X: np.ndarray, y: np.ndarray, engine: str = "verified",
             quiet: bool = False, evaluator=None) -> float:
    """Accuracy of the network on ``X``: a session of its own, started from
    ``heap`` with learning rate 0, so whatever the handler writes cannot
    reach the training's state."""
    n_out = next(d.size for d in prog.locs if d.name == "target")
    onehot = np.eye(n_out)
    bar = Progress(len(X), "held out", stream=sys.stderr if not quiet else _Null())
    correct = 0
    with Session(prog, engine=engine, evaluator=evaluator) as sess:
        sess.set_heap({**heap, "lr": [0.0]})
        for i, (x, label) in enumerate(zip(X, y), 1):
            out = sess.run(set={"input": x, "target": onehot[label]}, read=("output",), value=False).read["output"]
            correct += int(np.argmax(out) == label)
            bar.update(i)
    return correct / len(X)


def plot(hist: History, path: Path, title: str) -> None:
    import matplotlib  # here, not at the top: pyplot takes longer to import than the command line
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


def _params(args) -> dict[str, int] | None:
    params = {}
    for item in args.param or ():
        name, sep, value = item.partition("=")
        if not sep or not name.strip() or not value.strip().isdigit():
            raise BadInput("syntax", f"--param takes NAME=N (a natural number), not {item!r}")
        params[name.strip()] = int(value)
    if args.hidden is not None:
        if args.hidden < 1:
            raise BadInput("syntax", f"--hidden must be at least 1, not {args.hidden}")
        params["hidden"] = args.hidden
    return params or None


def cmd_train(args, out) -> int:
    _check_options(args.epochs, args.lr, args.train_size, 0.2)
    prog = load(args.file, params=_params(args))
    lay = layout(prog)
    init = read_npz(args.load) if args.load else None
    arch = "-".join(str(n) for n in lay.layers)
    style = ", swish" if any(p.name == "swish" for p in _prims(prog)) else ""
    print(f"training {args.file} ({arch}{style}) on the UCI digits through the "
          f"{'verified evaluator (rh-eval)' if args.engine == 'verified' else 'numpy reference semantics'}; "
          f"{args.epochs} epochs, learning rate {args.lr}, seed {args.seed}", file=out)
    if init is not None:
        print(f"initial values from {args.load}: {', '.join(init) or 'none'}", file=out)
    print(describe_init(prog, init), file=out)
    if args.checkpoint_every is not None and args.checkpoint_every < 0:
        raise BadInput("syntax", f"--checkpoint-every must be at least 0, not {args.checkpoint_every}")
    resume = Checkpoint.read(args.resume) if args.resume else None
    ckpt = args.checkpoint or args.resume or (f"{args.save}.ckpt.npz" if args.save else "results/train-checkpoint.npz")
    if resume is not None:
        print(f"resuming from {args.resume}: {resume.describe(args.epochs, -1).replace(' of -1', '')}", file=out)
    interrupt.keep("no checkpoint yet (training had not begun)")
    hist, trained = train(prog, epochs=args.epochs, lr=args.lr, seed=args.seed, engine=args.engine,
                          train_size=args.train_size, init=init, checkpoint=ckpt,
                          checkpoint_every=args.checkpoint_every or 0, resume=resume)
    print(f"held-out accuracy: {hist.test_accuracy:.3f} (chance: {1 / lay.n_out:.3f})", file=out)
    print(f"time: {hist.seconds:.1f} s", file=out)
    print(f"checkpoint: {ckpt}", file=out)
    if args.save:
        try:
            interrupt.write_atomic(args.save, lambda f: np.savez(f, **trained))
        except OSError as e:
            raise BadInput("io", f"cannot write the heap {args.save}: {e}") from None
        print(f"trained heap: {args.save}", file=out)
    plot(hist, Path(args.plot), f"MLP {arch} on digits, {args.engine} engine "
                                f"(held-out accuracy {hist.test_accuracy:.3f})")
    print(f"loss curve: {args.plot}", file=out)
    return 0


def _prims(prog: Program):
    """The primitives the program applies."""
    seen, todo = [], [prog.main]
    while todo:
        node = todo.pop()
        if isinstance(node, App):
            seen.append(node.f.prim)
        todo.extend(child for child, _ in children(node, 0) if child is not None)
    return seen


def register(sub) -> None:
    t = sub.add_parser("train", help="train a network on the handwritten digits, one rev handle per sample, "
                                     "through a resident session")
    t.add_argument("file", help="the network and its handler, e.g. examples/mlp.rh")
    t.add_argument("--epochs", type=int, default=3)
    t.add_argument("--lr", type=float, default=0.05, help="learning rate (default 0.05)")
    t.add_argument("--hidden", type=int, default=None, help="hidden size (the program's `hidden` parameter)")
    t.add_argument("--param", action="append", metavar="NAME=N",
                   help="set a `param` of the program, e.g. --param n_in=64 (repeatable)")
    t.add_argument("--seed", type=int, default=0)
    t.add_argument("--engine", choices=("verified", "reference"), default="verified")
    t.add_argument("--train-size", type=int, default=None, help="use only the first N training samples")
    t.add_argument("--load", metavar="PATH.npz", help="initial values of state locations (e.g. a --save)")
    t.add_argument("--save", metavar="PATH.npz", help="write the trained heap (every location)")
    t.add_argument("--plot", default="results/mlp-loss.png", help="where to write the loss curve (PNG)")
    t.add_argument("--checkpoint", metavar="PATH.npz",
                   help="where the checkpoint is written, atomically, after every epoch, every "
                        "--checkpoint-every samples and on SIGINT/SIGTERM (default: SAVE.ckpt.npz with --save, "
                        "else results/train-checkpoint.npz; with --resume, that file)")
    t.add_argument("--checkpoint-every", type=int, default=0, metavar="N",
                   help="also write the checkpoint every N samples (default 0: every epoch only)")
    t.add_argument("--resume", metavar="CKPT.npz",
                   help="continue from a checkpoint (same program and options): the final heap is that of an "
                        "uninterrupted run, bit for bit")
    t.set_defaults(func=cmd_train)
