"""The verified evaluator inside the Python process: the extracted OCaml of
``rh-eval`` linked as a shared library (``librh_embed.so``, built by dune
from ``extracted/rh_embed.ml`` and ``extracted/rh_embed_stubs.c``) and
loaded with :mod:`ctypes`.  :class:`InProcessEvaluator` offers the session
requests of :class:`~revhandlers.rh.engine.VerifiedEvaluator` (``load``,
``exec``, ``heap``, ``unload``) with the same answers bit for bit, without
a pipe: a request is answered by the same driver functions as ``rh-eval
--serve``'s, and the locations of an ``exec`` cross as double buffers
(each numpy array is read in place and copied once into the OCaml heap;
each location read is copied once into a fresh numpy array) instead of
base64 text.

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
import re
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


_VALUE_MODES = {"text": 0, "f64": 1, "none": 2}
#: the answer line of an exec without a value (rh_embed.ml's [exec])
_PLAIN = re.compile(r"\(result \(value\) \(read\) \(steps (\d+)\) \(seconds ([0-9.]+)\)\)\Z")


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

    def session_exec(self, name: str, set: dict | None = None, read=(), fuel: int | None = None,
                     value: str = "f64", sizes: dict | None = None):
        """As :meth:`VerifiedEvaluator.session_exec`; ``sizes`` (name ->
        number of numbers) saves a look-up per location read."""
        if value not in _VALUE_MODES:
            raise ValueError("value is 'f64', 'text' or 'none'")
        read = list(read)
        nm = _bytes(name)
        arrays = [np.ascontiguousarray(v, dtype=np.float64).reshape(-1) for v in (set or {}).values()]
        outs = [np.empty((sizes or {}).get(k, 0), dtype=np.float64) for k in read]
        key = (tuple(set or ()), tuple(read))
        with _lock:
            c = self._calls.get(key)
            if c is None:           # the C arrays of a request of this shape, kept for the next ones
                if len(self._calls) >= 256:
                    self._calls.clear()
                ns, nr = len(key[0]), len(key[1])
                c = self._calls[key] = (_strings(key[0]), _strings(key[1]), (ctypes.c_void_p * max(1, ns))(),
                                        (ctypes.c_long * max(1, ns))(), (ctypes.c_void_p * max(1, nr))(),
                                        (ctypes.c_long * max(1, nr))())
            set_names, read_names, data, lens, out_ptrs, out_lens = c
            for i, a in enumerate(arrays):
                data[i], lens[i] = a.__array_interface__["data"][0], a.size
            for i, o in enumerate(outs):
                out_ptrs[i], out_lens[i] = o.__array_interface__["data"][0], o.size
            line = self._lib.rh_embed_run(nm, len(arrays), set_names, data, lens, len(outs), read_names, out_ptrs,
                                          out_lens, -1 if fuel is None else int(fuel), _VALUE_MODES[value])
            line = line.decode("utf-8", errors="surrogateescape")
            m = _PLAIN.match(line)
            if m is None:
                s, payloads = read_session_answer(line)
                if not (isinstance(s, list) and answer_head(s) == "result"):
                    raise RevHandlersError("internal", f"unexpected answer to exec: {short(s)}")
            got = {}
            for k, o, n in zip(read, outs, out_lens[:len(outs)]):
                if n < 0:
                    raise RevHandlersError("unbound", f"no location {k!r} in the session")
                got[k] = o if n == o.size else self._read(nm, k, n)
        if m is not None:             # a result without a value: read without the S-expression reader
            return None, got, int(m.group(1)), float(m.group(2))
        fields = {answer_head(f): f for f in s[1:] if isinstance(f, list)}
        v = fields.get("value", ["value"])
        val = read_session_value(v[1], payloads) if len(v) == 2 else None
        steps = fields["steps"][1] if "steps" in fields else None
        seconds = float(fields["seconds"][1]) if "seconds" in fields else None
        return val, got, steps, seconds

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
