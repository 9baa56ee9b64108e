"""Stopping on SIGINT and SIGTERM: the machinery every long command shares
(``docs/interrupts.md``).

:func:`install` makes the two signals raise :class:`Interrupted` (a
``KeyboardInterrupt``, so no ``except Exception`` of a check swallows it); the
command line (``cli.main``) turns it into one line on stderr, saying what
was kept (:func:`keep`), and the exit code 128 + the signal's number (130
for SIGINT, 143 for SIGTERM).

Inside :func:`deferred`, a signal only sets a flag, which the code polls
at points where its state is consistent (:func:`check`: e.g. ``train``
between two samples, so that its checkpoint holds the heap after a whole
sample); a second signal there raises at once.

The evaluator processes a command starts are put in a session of their own
(:data:`POPEN_OPTIONS`), so that a Ctrl-C at the terminal reaches this
process only: it ends them itself (:func:`track`, :func:`end_children`)
after it has kept what it can.  This module imports nothing of the package.
"""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import tempfile
import threading
import weakref
from collections.abc import Callable, Iterator
from pathlib import Path
from types import FrameType
from typing import IO, Any

import numpy as np

#: the signals handled, and their names in messages
SIGNALS: dict[int, str] = {signal.SIGINT: "SIGINT", signal.SIGTERM: "SIGTERM"}

#: options of ``subprocess.Popen`` for an evaluator process: its own
#: session, out of the terminal's process group (a Ctrl-C reaches the
#: command, which ends the process)
POPEN_OPTIONS: dict[str, Any] = {"start_new_session": True}


class Interrupted(KeyboardInterrupt):
    """A SIGINT or SIGTERM arrived; ``exit_code`` is 128 + its number.  A
    ``KeyboardInterrupt`` (so not an ``Exception``): no ``except
    Exception`` of a check swallows it, and Hypothesis passes it on as it
    is instead of taking it for a failure of the case."""

    def __init__(self, signum: int, kept: str | None = None) -> None:
        super().__init__(f"interrupted by {SIGNALS.get(signum, signum)}")
        self.signum = signum
        self.exit_code = 128 + int(signum)
        self.kept = kept
        #: the reports of a campaign's jobs, read back from its journal (revhandlers.harness.run_jobs)
        self.reports: list[Any] = []

    @property
    def name(self) -> str:
        return SIGNALS.get(self.signum, str(self.signum))


class _State:
    """What the handler knows: how many :func:`deferred` blocks are open,
    the signal held back, whether an interrupt is being handled, and what
    it keeps (:func:`keep`)."""

    def __init__(self) -> None:
        self.deferred = 0
        self.pending: int | None = None
        self.stopping = False
        self.kept: str | None = None

    def clear(self, kept: bool = True) -> None:
        """Nothing held back, nothing stopping; and nothing kept unless ``kept``."""
        self.deferred, self.pending, self.stopping = 0, None, False
        if not kept:
            self.kept = None


_state = _State()
_children: weakref.WeakSet[subprocess.Popen[bytes]] = weakref.WeakSet()


def handler(signum: int, frame: FrameType | None) -> None:
    """The handler of SIGINT and SIGTERM that :func:`install` sets: raise
    :class:`Interrupted`, or hold the signal back inside :func:`deferred`."""
    if _state.stopping:
        return                              # already stopping: let the clean-up finish
    if _state.deferred and _state.pending is None:
        _state.pending = signum          # raised at the next check()
        return
    _state.stopping = True
    raise Interrupted(signum)


def install() -> None:
    """SIGINT and SIGTERM raise :class:`Interrupted` (in the main thread)."""
    for sig in SIGNALS:
        signal.signal(sig, handler)
    _state.clear(kept=False)


@contextlib.contextmanager
def handled() -> Iterator[None]:
    """:func:`install` for the time of a command (in the main thread; the
    previous handlers are put back after it)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = {sig: signal.getsignal(sig) for sig in SIGNALS}
    install()
    try:
        yield
    finally:
        for sig, h in old.items():
            signal.signal(sig, h)
        _state.clear(kept=False)


def reset() -> None:
    """In a forked child process: nothing held back, nothing stopping (the
    parent may have forked it inside :func:`deferred`)."""
    _state.clear()


def stopping() -> bool:
    """Whether an interrupt is being handled (processes are then killed,
    not waited for)."""
    return _state.stopping


def pending() -> int | None:
    """The signal :func:`deferred` holds back, if any."""
    return _state.pending


def take() -> int | None:
    """The signal :func:`deferred` holds back, if any, now dealt with by
    the caller (not raised)."""
    signum, _state.pending = _state.pending, None
    return signum


def check() -> None:
    """Raise the signal :func:`deferred` held back, if any."""
    signum = _state.pending
    if signum is not None:
        _state.pending = None
        _state.stopping = True
        raise Interrupted(signum)


@contextlib.contextmanager
def deferred() -> Iterator[None]:
    """Signals only set a flag (:func:`pending`, raised by :func:`check`);
    a second one raises at once."""
    _state.deferred += 1
    try:
        yield
    finally:
        _state.deferred -= 1
    if _state.deferred == 0:
        check()                             # a signal held back and not polled: raised now


def keep(what: str | None) -> None:
    """Say what an interrupt keeps (the line the command line prints)."""
    _state.kept = what


def kept() -> str | None:
    return _state.kept


def track(proc: subprocess.Popen[bytes]) -> None:
    """Remember a child process, ended by :func:`end_children`."""
    _children.add(proc)


def end_children() -> int:
    """Kill every tracked child process still running; how many."""
    n = 0
    for proc in list(_children):
        if proc.poll() is None:
            try:
                proc.kill()
                proc.wait(timeout=5)
                n += 1
            except Exception:  # noqa: BLE001 - gone already
                pass
    return n


def message(e: Interrupted, command: str = "revhandlers") -> str:
    """The one line printed for ``e``."""
    what = e.kept or kept() or "nothing to keep"
    return f"{command}: interrupted by {e.name}; {what}"


# ------------------------------------------------------------ atomic writes

def write_atomic(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """``write(f)`` into a temporary file beside ``path``, then renamed over
    it: a reader sees the old file or the new one, never a part (signals
    are held back meanwhile)."""
    target = Path(path)
    target.parent.mkdir(parents=True, exist_ok=True)
    with deferred():
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent)
        try:
            with os.fdopen(fd, "wb") as f:
                write(f)
                f.flush()
                os.fsync(f.fileno())
            os.replace(tmp, target)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def write_npz_atomic(path: str | os.PathLike[str], arrays: dict[str, Any], meta: dict[str, Any] | None = None) -> None:
    """Arrays (and ``meta``, a JSON-able dict stored as the array
    ``__meta__``) to an ``.npz`` file, atomically."""
    data = dict(arrays)
    if meta is not None:
        data["__meta__"] = np.frombuffer(json.dumps(meta).encode(), dtype=np.uint8)
    write_atomic(path, lambda f: np.savez(f, **data))


def read_meta(data: Any) -> dict[str, Any] | None:
    """The ``__meta__`` of an opened ``.npz`` (see :func:`write_npz_atomic`)."""
    if "__meta__" not in data.files:
        return None
    meta: dict[str, Any] = json.loads(bytes(data["__meta__"]).decode())
    return meta
