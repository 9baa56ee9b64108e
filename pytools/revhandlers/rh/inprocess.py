"""The verified evaluator inside the Python process: the extracted OCaml of
``rh-eval`` linked as a shared library (``librh_embed.so``, built by dune
from ``extracted/rh_embed.ml`` and ``extracted/rh_embed_stubs.c``) and
loaded with :mod:`ctypes`.  :class:`InProcessEvaluator` offers the session
requests of :class:`~revhandlers.rh.engine.VerifiedEvaluator` (``load``,
``exec``, ``heap``, ``unload``) with the same answers bit for bit, without
a pipe: a request is answered by the same driver functions as ``rh-eval
--serve``'s, and the locations of an ``exec`` cross as double buffers
instead of base64 text.  The runs of one shape (a session, the locations
set and read) share a :class:`Plan`: a C record made once with the names,
a staging buffer per location set and a buffer per location read, so a
run copies each array into its buffer, makes one call with one pointer,
and copies each location read out (or, past 16,384 numbers, has it
written into a fresh array).

The library is found as ``RH_EMBED`` (a path) if set, else in the
checkout's ``_build/default/extracted/``, else (an installed package) beside
``rh-eval`` or in the ``lib`` directory beside its ``bin``; :func:`available` says whether
there is one (``RH_EMBED=0`` turns the in-process path off).  Requests
are bounded as ``rh-eval``'s (60 s, and the memory bound): the time is
checked on sampled allocations, the memory at the end of every major GC
cycle, with no signal or timer taken from the process.  One request runs at
a time (a lock; the calls keep the GIL).  The OCaml runtime stays loaded
until the process exits."""

from __future__ import annotations

import ctypes
import os
import threading
from pathlib import Path

import numpy as np

from ..errors import RevHandlersError
from ..paths import checkout_root, rh_eval_path
from .engine import VerifiedEvaluator, answer_head, read_session_answer, read_session_value, short

LIBRARY = "librh_embed.so"

_lock = threading.Lock()
_lib = None


def library_path() -> Path | None:
    """The shared library, or ``None`` (not built, or ``RH_EMBED=0``)."""
    override = os.environ.get("RH_EMBED")
    if override == "0":
        return None
    if override:
        p = Path(override).expanduser()
        return p if p.is_file() else None
    root = checkout_root()
    if root is not None:
        built = root / "_build" / "default" / "extracted" / LIBRARY
        if built.is_file():
            return built
        return None
    try:                                     # installed: beside rh-eval, or in ../lib
        driver = rh_eval_path().resolve()
    except Exception:
        return None
    for place in (driver.parent / LIBRARY, driver.parent.parent / "lib" / LIBRARY):
        if place.is_file():
            return place
    return None


def available() -> bool:
    return library_path() is not None


def _library():
    """The loaded library with its runtime started (once per process)."""
    global _lib
    if _lib is None:
        path = library_path()
        if path is None:
            raise RevHandlersError("io", f"{LIBRARY} is not built (dune build) or RH_EMBED=0")
        try:
            lib = ctypes.PyDLL(str(path))
        except OSError as e:
            raise RevHandlersError("io", f"cannot load {path}: {e}") from None
        lib.rh_embed_start.restype = ctypes.c_int
        lib.rh_embed_request.argtypes = [ctypes.c_char_p]
        lib.rh_embed_request.restype = ctypes.c_char_p
        lib.rh_embed_stage.argtypes = [ctypes.c_char_p, ctypes.c_void_p, ctypes.c_long]
        lib.rh_embed_stage.restype = ctypes.c_int
        lib.rh_embed_exec.argtypes = [ctypes.c_char_p, ctypes.c_long, ctypes.c_int]
        lib.rh_embed_exec.restype = ctypes.c_char_p
        lib.rh_embed_read.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.c_void_p, ctypes.c_long]
        lib.rh_embed_read.restype = ctypes.c_long
        P, L = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_long)
        S = ctypes.POINTER(ctypes.c_char_p)
        lib.rh_embed_run.argtypes = [ctypes.c_char_p, ctypes.c_long, S, P, L, ctypes.c_long, S, P, L,
                                     ctypes.c_long, ctypes.c_int]
        lib.rh_embed_run.restype = ctypes.c_char_p
        lib.rh_embed_run_plan.argtypes = [ctypes.c_void_p]
        lib.rh_embed_run_plan.restype = ctypes.c_void_p
        lib.rh_embed_set_limits.argtypes = [ctypes.c_double, ctypes.c_long]
        lib.rh_embed_set_limits.restype = ctypes.c_int
        lib.rh_embed_start()
        _lib = lib
    return _lib


def _strings(names):
    """A C array of the names as C strings (it keeps the bytes alive)."""
    return (ctypes.c_char_p * max(1, len(names)))(*[_bytes(k) for k in names])


def _bytes(s: str) -> bytes:
    return s.encode("utf-8", errors="surrogatepass")


def _address(a: np.ndarray) -> int:
    return a.__array_interface__["data"][0]


_VALUE_MODES = {"text": 0, "f64": 1, "none": 2}
#: locations read with more numbers than this get a fresh array per run
#: (their address passed); smaller ones are copied out of the plan's buffer
_COPY_OUT = 1 << 14

_P, _L, _S = ctypes.POINTER(ctypes.c_void_p), ctypes.POINTER(ctypes.c_long), ctypes.POINTER(ctypes.c_char_p)


class _Record(ctypes.Structure):
    """rh_embed_stubs.c's ``struct rh_plan``."""
    _fields_ = [("name", ctypes.c_char_p), ("nset", ctypes.c_long), ("set_names", _S), ("set_data", _P),
                ("set_len", _L), ("nread", ctypes.c_long), ("read_names", _S), ("read_out", _P),
                ("read_len", _L), ("read_cap", _L), ("fuel", ctypes.c_long), ("value_mode", ctypes.c_long),
                ("steps", ctypes.c_long), ("seconds", ctypes.c_double)]


class Plan:
    """The C record of the requests of one shape (a session, the locations
    set, the locations read, their sizes), made once and reused by every
    run of that shape: the names as C strings, a staging buffer per
    location set (at a fixed address: a run copies the caller's numbers
    into it, and the library copies them once more into the OCaml heap), a
    buffer per location read.  Runs of one plan are serialised by the
    module's lock."""

    def __init__(self, name: str, set_names, set_sizes, read_names, read_sizes):
        self.set_names, self.read_names = tuple(set_names), tuple(read_names)
        ns, nr = len(self.set_names), len(self.read_names)
        self._keep = (_bytes(name), _strings(self.set_names), _strings(self.read_names))
        self.bufs = [np.empty(n, dtype=np.float64) for n in set_sizes]
        self.outs = [np.empty(n, dtype=np.float64) for n in read_sizes]
        data, lens = (ctypes.c_void_p * max(1, ns))(), (ctypes.c_long * max(1, ns))()
        for i, b in enumerate(self.bufs):
            data[i], lens[i] = _address(b), b.size
        self.out_ptrs, self.out_lens = (ctypes.c_void_p * max(1, nr))(), (ctypes.c_long * max(1, nr))()
        caps = (ctypes.c_long * max(1, nr))(*[o.size for o in self.outs])
        for i, o in enumerate(self.outs):
            self.out_ptrs[i] = _address(o)
        self.fresh = [o.size > _COPY_OUT for o in self.outs]
        self.any_fresh = any(self.fresh)
        #: (name, buffer, index) of each location read, when none gets a
        #: fresh array (a run then reads its lengths by index, not by
        #: iterating the ctypes array)
        self.reads = tuple((k, o, i) for i, (k, o) in enumerate(zip(self.read_names, self.outs)))
        self.fuel, self.mode = -1, 2
        self.rec = _Record(self._keep[0], ns, ctypes.cast(self._keep[1], _S), ctypes.cast(data, _P),
                           ctypes.cast(lens, _L), nr, ctypes.cast(self._keep[2], _S),
                           ctypes.cast(self.out_ptrs, _P), ctypes.cast(self.out_lens, _L), ctypes.cast(caps, _L),
                           self.fuel, self.mode, -1, 0.0)
        self._arrays = (data, lens, caps)
        self.address = ctypes.addressof(self.rec)


class InProcessEvaluator:
    """The session requests of :class:`~revhandlers.rh.engine.VerifiedEvaluator`,
    answered inside this process.  ``timeout`` (seconds; default 60, as
    ``rh-eval``'s) bounds each request; the runtime's bounds are shared by
    every in-process evaluator (the last one made sets them)."""

    #: sessions live as long as the process: the generation never changes
    generation = 0
    in_process = True

    def __init__(self, timeout: float | None = None):
        self._lib = _library()
        self._calls: dict = {}
        self.timeout = timeout
        with _lock:
            self._lib.rh_embed_set_limits(60.0 if timeout is None else float(timeout), -1)

    def request(self, line: str) -> str:
        with _lock:
            return self._lib.rh_embed_request(_bytes(line)).decode("utf-8", errors="surrogateescape")

    session_load = VerifiedEvaluator.session_load
    session_heap = VerifiedEvaluator.session_heap
    session_unload = VerifiedEvaluator.session_unload

    def plan(self, name: str, set_names, read_names, sizes: dict) -> Plan:
        """The record of runs of session ``name`` that set ``set_names`` and
        read ``read_names`` (``sizes``: name -> number of numbers, for
        each of them)."""
        return Plan(name, set_names, [sizes[k] for k in set_names], read_names, [sizes[k] for k in read_names])

    def run_plan(self, plan: Plan, arrays, fuel: int | None = None, value: str = "none"):
        """A run of ``plan``'s shape: ``arrays`` are the numbers of its
        locations set, in its order, each of its size (flat float64 or
        anything numpy copies into such a buffer).  As :meth:`session_exec`."""
        rec = plan.rec
        with _lock:
            for b, a in zip(plan.bufs, arrays):
                b[...] = a
            outs = plan.outs
            if plan.any_fresh:
                outs = [np.empty(o.size) if f else o for o, f in zip(outs, plan.fresh)]
                for i, o in enumerate(outs):
                    plan.out_ptrs[i] = _address(o)
            fuel = -1 if fuel is None else int(fuel)
            if fuel != plan.fuel:
                rec.fuel = plan.fuel = fuel
            if _VALUE_MODES[value] != plan.mode:
                rec.value_mode = plan.mode = _VALUE_MODES[value]
            answer = self._lib.rh_embed_run_plan(plan.address)
            got = {}
            if rec.steps >= 0 and not plan.any_fresh:     # the common case: small locations read, no value
                lens = plan.out_lens
                for k, o, i in plan.reads:
                    n = lens[i]
                    if n < 0:
                        raise RevHandlersError("unbound", f"no location {k!r} in the session")
                    got[k] = o.copy() if n == o.size else self._read(rec.name, k, n)
                return None, got, rec.steps, rec.seconds
            if rec.steps >= 0:              # a result without a value: nothing to read from the line
                for k, o, f, n in zip(plan.read_names, outs, plan.fresh, plan.out_lens):
                    if n < 0:
                        raise RevHandlersError("unbound", f"no location {k!r} in the session")
                    got[k] = (o if f else o.copy()) if n == o.size else self._read(rec.name, k, n)
                return None, got, rec.steps, rec.seconds
            line = ctypes.string_at(answer).decode("utf-8", errors="surrogateescape")
            s, payloads = read_session_answer(line)
            if not (isinstance(s, list) and answer_head(s) == "result"):
                raise RevHandlersError("internal", f"unexpected answer to exec: {short(s)}")
            for k, o, f, n in zip(plan.read_names, outs, plan.fresh, plan.out_lens):
                if n < 0:
                    raise RevHandlersError("unbound", f"no location {k!r} in the session")
                got[k] = (o if f else o.copy()) if n == o.size else self._read(rec.name, k, n)
        fields = {answer_head(f): f for f in s[1:] if isinstance(f, list)}
        v = fields.get("value", ["value"])
        val = read_session_value(v[1], payloads) if len(v) == 2 else None
        steps = fields["steps"][1] if "steps" in fields else None
        seconds = float(fields["seconds"][1]) if "seconds" in fields else None
        return val, got, steps, seconds

    def session_exec(self, name: str, set: dict | None = None, read=(), fuel: int | None = None,
                     value: str = "f64", sizes: dict | None = None):
        """As :meth:`VerifiedEvaluator.session_exec`; ``sizes`` (name ->
        number of numbers) saves a look-up per location read."""
        if value not in _VALUE_MODES:
            raise ValueError("value is 'f64', 'text' or 'none'")
        read = tuple(read)
        arrays = [np.ascontiguousarray(v, dtype=np.float64).reshape(-1) for v in (set or {}).values()]
        set_sizes = tuple(a.size for a in arrays)
        read_sizes = tuple((sizes or {}).get(k, 0) for k in read)
        key = (name, tuple(set or ()), set_sizes, read, read_sizes)
        with _lock:
            plan = self._calls.get(key)
            if plan is None:           # kept for the next requests of this shape
                if len(self._calls) >= 256:
                    self._calls.clear()
                plan = self._calls[key] = Plan(name, key[1], set_sizes, read, read_sizes)
        return self.run_plan(plan, arrays, fuel, value)

    def _read(self, nm: bytes, loc: str, size: int | None) -> np.ndarray:
        out = np.empty(size or 0, dtype=np.float64)
        n = self._lib.rh_embed_read(nm, _bytes(loc), out.__array_interface__["data"][0], out.size)
        if n > out.size:
            out = np.empty(n, dtype=np.float64)
            n = self._lib.rh_embed_read(nm, _bytes(loc), out.__array_interface__["data"][0], out.size)
        if n < 0:
            raise RevHandlersError("unbound", f"no location {loc!r} in the session")
        return out if n == out.size else out[:n]

    def close(self) -> None:
        """Nothing to stop: the runtime stays loaded."""
