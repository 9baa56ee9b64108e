"""Resident sessions: a program loaded once, run many times on a heap that
is carried from one run to the next.

::

    from revhandlers import Session
    with Session("examples/mlp.rh") as s:                  # or engine="reference"
        s.set_heap({"l0": w0, "l1": w1, "lr": [0.05]})
        r = s.run(set={"input": x, "target": t}, read=["output"])
        r.value, r.read["output"], r.steps, r.seconds
        s.heap()                                           # every location
        s.save_npz("trained.npz")
        snap = s.snapshot("w.npz")                         # kept; restore() puts it back, also after
        s.restore(snap)                                    # EvaluatorDied (the process killed): docs/interrupts.md

Semantics, the same on both engines:

* the heap starts as the program's initial heap (its ``heap`` entries,
  zeros elsewhere); with ``init_seed=S``, as ``revhandlers train --seed S``
  starts it (:func:`revhandlers.rh.train.initial_heap`: the two-dimensional
  locations a forward clause reads, without a ``heap`` entry, drawn at
  random);
* :meth:`Session.run` runs the program's main command from the start on
  the current heap updated by ``set``; on success the heap becomes the run's
  final heap; on a failure (an exception) the heap is left exactly as it
  was, ``set`` entries included (they are not applied);
* :meth:`Session.set_heap` changes locations at once: :meth:`Session.heap`
  and the next run see the new values.  On the verified engine the values
  are kept in Python and travel with the next ``exec`` request (its ``set``
  entries, before those of :meth:`Session.run`, which win), so setting
  costs no request of its own; a failing run leaves them pending.
* location names and sizes are checked before anything is sent
  (:class:`~revhandlers.errors.BadInput` ``unbound`` / ``shape``), and
  values must be finite (``number``).

The verified engine keeps the heap in the extracted evaluator: inside this
process when its shared library is built (:mod:`revhandlers.rh.inprocess`:
numbers as double buffers), else inside one ``rh-eval --serve`` process
(the requests ``load``, ``exec``, ``heap``, ``unload`` of
``docs/sexp-format.md``; data as exact base64 binary64); the reference
engine keeps it in Python and runs :func:`revhandlers.rh.reference.run_reference`.
Only the verified engine counts steps and honours ``fuel``; the reference
reports ``steps=None`` and ignores ``fuel``.  ``seconds`` is the evaluation
time: measured inside ``rh-eval`` (parsing and printing excluded), or
around ``run_reference`` for the reference.
"""

from __future__ import annotations

import itertools
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Iterable

import numpy as np

from ..errors import BadInput, RevHandlersError
from ..heapio import heap_numbers, read_npz  # noqa: F401  (read_npz: re-exported)
from ..interrupt import write_npz_atomic
from ..process import ProcessStopped
from . import inprocess
from .engine import VerifiedEvaluator
from .initial import initial_heap, program_digest
from .nesting import room
from .program import as_program
from .reference import run_reference
from .syntax import Program
from .typecheck import check_program

ENGINES = ("verified", "reference")
_F64 = np.dtype(np.float64)

_names = itertools.count()


@dataclass(frozen=True, eq=False)
class SessionResult:
    """One run of a session: the value of the main command (a numpy vector
    or a tuple of values; ``None`` if the run was asked for no value), the
    final values of the locations asked for, the number of steps (verified
    engine) and the evaluation time in seconds."""
    value: object
    read: dict
    steps: int | None = None
    seconds: float | None = None


def _result(value, read, steps, seconds) -> SessionResult:
    """``SessionResult(value, read, steps, seconds)`` without the frozen
    dataclass's ``__init__`` (a field at a time through
    ``object.__setattr__``: about 2 µs, a tenth of Python's part of an
    in-process run): the same object, its fields set at once."""
    r = object.__new__(SessionResult)
    r.__dict__.update(value=value, read=read, steps=steps, seconds=seconds)
    return r


class EvaluatorDied(ProcessStopped):
    """The ``rh-eval`` process holding a session went away (killed,
    crashed, or stopped after a timeout): the heap it held is lost.
    ``snapshot`` is the session's last good :class:`Snapshot` (``None`` if
    it took none); :meth:`Session.restore` continues from it in a new
    process."""

    def __init__(self, message: str, snapshot: "Snapshot | None"):
        where = ("no snapshot was taken" if snapshot is None
                 else f"the last good snapshot is {snapshot.describe()} (Session.restore continues from it)")
        super().__init__(f"{message}; the session's heap is lost: {where}")
        self.snapshot = snapshot


@dataclass(frozen=True, eq=False)
class Snapshot:
    """A session's heap at one moment (every location, copies), the
    program's digest, the snapshot's number in its session, and the file it
    was written to, if any."""
    heap: dict
    program: str
    number: int
    path: str | None = None

    def describe(self) -> str:
        return f"snapshot {self.number}" + (f" ({self.path})" if self.path else " (in memory)")


class Session:
    """A program loaded once, whose heap is carried across runs.

    ``program`` is a :class:`~revhandlers.rh.syntax.Program` or a path (``.rh`` or
    ``.sexp``); ``engine`` is ``"verified"`` (the extracted evaluator) or
    ``"reference"`` (the numpy reference semantics).  With the verified
    engine, ``evaluator`` is the :class:`~revhandlers.rh.engine.VerifiedEvaluator`
    process to keep the session in (several sessions may share one); by
    default the session runs the evaluator inside this process
    (:mod:`revhandlers.rh.inprocess`, the extracted OCaml as a shared library)
    when it is built, else it starts its own process and stops it on
    :meth:`close`; ``in_process=False`` asks for the process, ``True``
    requires the shared library.  Both give the same answers bit for bit."""

    def __init__(self, program, engine: str = "verified", evaluator=None, in_process: bool | None = None,
                 init_seed: int | None = None):
        if engine not in ENGINES:
            raise ValueError(f"engine must be one of {ENGINES}")
        self.program: Program = as_program(program)
        self.engine = engine
        self._sizes = {d.name: d.size for d in self.program.locs}
        self._pending: dict[str, np.ndarray] = {}
        self._closed = False
        self._snapshot: Snapshot | None = None
        self._snapshots = 0
        self._ev = None
        self._own = False
        self._plans: dict | None = None
        if engine == "reference":
            with room():
                self.type = check_program(self.program)
            self._heap = {d.name: np.zeros(d.size) for d in self.program.locs}
            for name, values in self.program.heap:
                self._heap[name] = np.array(values, dtype=float)
        else:
            if evaluator is None and in_process is not False and (in_process or inprocess.available()):
                evaluator = inprocess.InProcessEvaluator()
            if evaluator is None:
                evaluator, self._own = VerifiedEvaluator(), True
            self._ev = evaluator
            self.name = f"s{os.getpid()}_{next(_names)}"
            try:
                self.type = evaluator.session_load(self.name, self.program)
            except BaseException:
                if self._own:
                    evaluator.close()
                raise
            self._generation = evaluator.generation
            if getattr(evaluator, "in_process", False) and hasattr(evaluator, "plan"):
                self._plans = {}
        if init_seed is not None:
            # the heap `revhandlers train --seed init_seed` starts from (train.initial_heap)
            self.set_heap(initial_heap(self.program, init_seed))

    # ------------------------------------------------------------ checks
    def _check_open(self) -> None:
        if self._closed:
            raise RevHandlersError("internal", "the session is closed")
        if self._ev is not None and self._ev.generation != self._generation:
            raise EvaluatorDied("the rh-eval process holding the session stopped (e.g. a timeout)",
                                self._snapshot)

    def _call(self, request, *args, **kwargs):
        """A request about the session; a process that died (before it, the
        request then going to a new process that does not hold the session,
        or during it) is :class:`EvaluatorDied`."""
        try:
            return request(*args, **kwargs)
        except ProcessStopped as e:
            raise EvaluatorDied(e.message, self._snapshot) from None
        except RevHandlersError:
            if self._ev.generation != self._generation:
                raise EvaluatorDied(f"the {self._ev.name} process holding the session stopped between two "
                                    "requests", self._snapshot) from None
            raise

    def _values(self, values: dict | None, what: str) -> dict[str, np.ndarray]:
        """``values`` checked against the declared locations: flat float arrays."""
        out = {}
        for name, v in (values or {}).items():
            if name not in self._sizes:
                raise BadInput("unbound", f"{what}: the program declares no location {name!r} "
                                          f"(it declares {', '.join(self._sizes) or 'none'})")
            try:
                a = np.array(v, dtype=float).reshape(-1)
            except (TypeError, ValueError) as e:
                raise BadInput("number", f"{what}: location {name!r}: not numbers ({e})") from None
            if a.size != self._sizes[name]:
                raise BadInput("shape", f"{what}: location {name!r} holds {self._sizes[name]} numbers, "
                                        f"{a.size} given")
            if not np.isfinite(a).all():
                raise BadInput("number", f"{what}: location {name!r}: not a finite number")
            out[name] = a
        return out

    def _names(self, read: Iterable[str], what: str) -> list[str]:
        names = [read] if isinstance(read, str) else list(read)
        for name in names:
            if name not in self._sizes:
                raise BadInput("unbound", f"{what}: the program declares no location {name!r}")
        return names

    # ---------------------------------------------------------------- API
    def run(self, set: dict | None = None, read: Iterable[str] = (), fuel: int | None = None,
            value: bool = True) -> SessionResult:
        """Run the main command on the current heap updated by ``set``;
        ``read`` names the locations whose final values the result carries;
        ``fuel`` bounds the steps (verified engine); ``value=False`` leaves
        the run's value out (``None``), which saves reading it."""
        self._check_open()
        if self._plans is not None and not self._pending:
            return self._run_planned(set, read, fuel, value)
        values = self._values(set, "set")
        names = self._names(read, "read")
        if self.engine == "reference":
            heap = {**self._heap, **values}
            start = time.perf_counter()
            with room():
                res = run_reference(self.program, heap)
            seconds = time.perf_counter() - start
            self._heap = res.heap
            return SessionResult(res.value if value else None, {k: res.heap[k].copy() for k in names}, None,
                                 seconds)
        sets = {**self._pending, **values}
        kw = {"sizes": self._sizes} if getattr(self._ev, "in_process", False) else {}
        v, got, steps, seconds = self._call(self._ev.session_exec, self.name, sets, names, fuel,
                                            value="f64" if value else "none", **kw)
        self._pending = {}
        return SessionResult(v, {k: got[k] for k in names}, steps, seconds)

    def _run_planned(self, set, read, fuel, value) -> SessionResult:
        """:meth:`run` inside this process, checked once per shape of run:
        the names set and read are checked when the run's record
        (:class:`~revhandlers.rh.inprocess.Plan`) is made; float64 arrays of
        the right size go to its buffers as they are, anything else
        through :meth:`_values`; finiteness is checked by the evaluator
        before it changes anything (its ``number`` error is then raised
        with :meth:`_values`'s message, as the other paths raise it)."""
        names = (read,) if isinstance(read, str) else tuple(read)
        key = (tuple(set) if set else (), names)
        plan = self._plans.get(key)
        if plan is None:                                     # the checks of the other paths, in their order
            self._values(set, "set")
            self._names(names, "read")
            if len(self._plans) >= 64:
                self._plans.clear()
            plan = self._plans[key] = self._ev.plan(self.name, key[0], names, self._sizes)
        arrays = []
        if set:
            for k, v in set.items():
                if type(v) is np.ndarray and v.dtype is _F64 and v.size == self._sizes[k]:
                    arrays.append(v if v.ndim == 1 else v.reshape(-1))
                else:
                    arrays = list(self._values(set, "set").values())
                    break
        try:
            v, got, steps, seconds = self._ev.run_plan(plan, arrays, fuel, "f64" if value else "none")
        except RevHandlersError as e:
            if e.kind == "number":
                self._values(set, "set")                     # raises with the location's name
            raise
        return _result(v, got, steps, seconds)

    def heap(self) -> dict[str, np.ndarray]:
        """Every location, in declaration order (copies)."""
        self._check_open()
        if self.engine == "reference":
            return {k: v.copy() for k, v in self._heap.items()}
        heap = self._call(self._ev.session_heap, self.name)
        heap.update({k: v.copy() for k, v in self._pending.items()})
        return {d.name: heap[d.name] for d in self.program.locs}

    def set_heap(self, values: dict) -> None:
        """Set locations (name -> numbers of the location's size) at once."""
        self._check_open()
        checked = self._values(values, "set_heap")
        if self.engine == "reference":
            self._heap.update(checked)
        else:
            self._pending.update(checked)

    def save_npz(self, path: str | os.PathLike) -> None:
        """Write the heap to ``path`` (``.npz``, one array per location)."""
        heap = self.heap()
        try:
            Path(path).parent.mkdir(parents=True, exist_ok=True)
            with open(path, "wb") as f:
                np.savez(f, **heap)
        except OSError as e:
            raise BadInput("io", f"cannot write the heap {path}: {e}") from None

    def load_npz(self, path: str | os.PathLike) -> dict[str, np.ndarray]:
        """Set the locations stored in ``path`` (``.npz``; names and sizes
        checked against the program); returns what was read."""
        values = read_npz(path)
        self.set_heap(values)
        return values

    def snapshot(self, path: str | os.PathLike | None = None) -> Snapshot:
        """The heap now, as a :class:`Snapshot` (kept as the session's last
        good one, named by :class:`EvaluatorDied`); with ``path``, also
        written there (``.npz``, one array per location, atomically:
        :meth:`load_npz` and :meth:`restore` read it back)."""
        heap = self.heap()
        self._snapshots += 1
        snap = Snapshot(heap, program_digest(self.program), self._snapshots, None if path is None else str(path))
        if path is not None:
            try:
                write_npz_atomic(path, heap)
            except OSError as e:
                raise BadInput("io", f"cannot write the snapshot {path}: {e.strerror or e}") from None
        self._snapshot = snap
        return snap

    def restore(self, snapshot: "Snapshot | str | os.PathLike | None" = None) -> None:
        """Put back the heap of ``snapshot`` (a :class:`Snapshot`, or the
        path of a ``.npz``; default the last one taken).  On the verified
        engine, a session whose process died is first loaded again into a
        new one, so this is how it continues after :class:`EvaluatorDied`."""
        if snapshot is None:
            snapshot = self._snapshot
            if snapshot is None:
                raise BadInput("unbound", "restore: the session has taken no snapshot")
        if isinstance(snapshot, Snapshot):
            if snapshot.program != program_digest(self.program):
                raise BadInput("syntax", f"restore: {snapshot.describe()} is of another program")
            values = snapshot.heap
        else:
            values = read_npz(snapshot)
        checked = self._values(values, "restore")     # before anything changes
        if self._closed:
            raise RevHandlersError("internal", "the session is closed")
        if self._ev is not None and (self._ev.generation != self._generation or not self._alive()):
            self.type = self._ev.session_load(self.name, self.program)
            self._generation = self._ev.generation
            self._pending = {}
        self.set_heap(checked)

    def _alive(self) -> bool:
        if getattr(self._ev, "in_process", False):
            return True                          # the evaluator lives in this process
        proc = getattr(self._ev, "_proc", None)
        return proc is not None and proc.poll() is None

    def close(self) -> None:
        """Drop the session (and stop its ``rh-eval`` process if it owns it)."""
        if self._closed:
            return
        self._closed = True
        if self._ev is not None:
            try:
                if self._ev.generation == self._generation:
                    self._ev.session_unload(self.name)
            except RevHandlersError:
                pass
            finally:
                if self._own:
                    self._ev.close()

    def __enter__(self) -> "Session":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<Session {self.engine} {len(self._sizes)} locations{' closed' if self._closed else ''}>"
