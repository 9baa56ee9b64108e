"""The verified evaluator from Python: one long-lived ``rh-eval --serve``
process, reused across calls, answering one request per line.  With a
``timeout``, a request that gets no answer in time kills the process (the
next request starts a new one) and raises a ``timeout`` runtime failure.

Besides whole programs (``run``, ``check``, ``trace``, ``coverage``), the
process keeps *resident sessions* (``load``, ``exec``, ``heap``,
``unload``; :mod:`revhandlers.rh.session` is the Python side): location data
travels as ``(f64 BASE64)``, the numbers as little-endian IEEE binary64,
row-major, base64 with ``=`` padding (:func:`encode_f64`,
:func:`decode_f64`), so nothing is rounded either way."""

from __future__ import annotations

import base64
import binascii
import os
import re
from dataclasses import replace

import numpy as np
import sexpdata

from ..errors import BadInput, RevHandlersError, make_error
from ..heapio import heap_numbers
from ..paths import rh_eval_path
from ..process import EvaluatorNotBuilt, ServeProcess, lazily  # noqa: F401  (EvaluatorNotBuilt: re-exported)
from ..sexpio import read_float, read_name
from .sexp import Result, loads, name_sexp, program_sexp, read_answer, read_ty, read_value
from .syntax import Program

# ------------------------------------------------------ f64 location data

def encode_f64(values) -> str:
    """``values`` (any shape, read row-major) as base64 of little-endian
    IEEE binary64: exact, every bit pattern kept."""
    a = np.ascontiguousarray(np.asarray(values, dtype="<f8").reshape(-1))
    return base64.b64encode(a.tobytes()).decode("ascii")


def decode_f64(text: str) -> np.ndarray:
    """The numbers of :func:`encode_f64`'s text (a fresh, writable array)."""
    try:
        raw = base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError) as e:
        raise BadInput("syntax", f"not base64 f64 data: {e}") from None
    if len(raw) % 8:
        raise BadInput("syntax", f"f64 data of {len(raw)} bytes, not a multiple of 8")
    return np.frombuffer(raw, dtype="<f8").astype(float)


def data_sexp(values) -> str:
    """A location's data as the S-expression ``(f64 BASE64)``."""
    return f"(f64 {encode_f64(values)})"


# ``(f64 PAYLOAD)`` in an answer: the payload is cut out before the line is
# read as an S-expression (an atom reader would take a payload such as
# ``+123`` for a number), and replaced by its index.
_F64 = re.compile(r"\(f64\s*([A-Za-z0-9+/=]*)\s*\)")


def read_session_answer(line: str):
    """``(s, payloads)``: the answer as read by :func:`revhandlers.rh.sexp.loads`,
    each ``(f64 PAYLOAD)`` replaced by ``(f64 K)`` with ``payloads[K]`` its
    decoded numbers; raises the error an error line reports."""
    payloads: list[np.ndarray] = []

    def cut(m):
        payloads.append(decode_f64(m.group(1)))
        return f"(f64 {len(payloads) - 1})"

    s = loads(line if line.lstrip().startswith("(error") else _F64.sub(cut, line))
    if isinstance(s, list) and s and getattr(s[0], "value", lambda: None)() == "error":
        fields = {f[0].value(): f[1] for f in s[1:] if isinstance(f, list) and len(f) == 2
                  and hasattr(f[0], "value")}
        rule = fields.get("rule")
        rule = rule.value() if hasattr(rule, "value") else "none"
        kind = fields.get("kind")
        raise make_error(kind.value() if hasattr(kind, "value") else "internal",
                         str(fields.get("message", line.strip())), rule)
    return s, payloads


class VerifiedEvaluator(ServeProcess):
    """A ``rh-eval --serve`` process.  Thread-safe; restarted if it dies.

    ``fuel`` is the user's bound on the steps of every run (``--fuel``);
    by default there is none and a checked program runs to its end (the
    total evaluator, ``theories/rh/total.v``)."""

    def __init__(self, path: str | os.PathLike | None = None, fuel: int | None = None,
                 timeout: float | None = None, flags: tuple[str, ...] = ()):
        extra = ("--fuel", str(fuel)) if fuel is not None else ()
        super().__init__(path or rh_eval_path(), timeout=timeout, flags=tuple(flags) + extra)
        self.fuel = fuel

    # ------------------------------------------------------------- API
    def run(self, prog: Program) -> Result:
        return read_answer(self.request(f"(run {program_sexp(prog)})"))

    def check(self, prog: Program):
        return read_answer(self.request(f"(check {program_sexp(prog)})"))

    def effects(self, prog: Program) -> list[str]:
        """``(effects PROGRAM)``: the names of the user operations ``prog``
        may perform that no enclosing handler covers (Coq's ``unhandled``,
        ``effects.v``), each once; raises as :meth:`check` on an ill-typed
        program."""
        return read_answer(self.request(f"(effects {program_sexp(prog)})"))

    def trace(self, prog: Program):
        return read_answer(self.request(f"(trace {program_sexp(prog)})"))

    # -------------------------------------------------- resident sessions
    def session_load(self, name: str, prog: Program):
        """``(load NAME PROGRAM)``: type-check ``prog`` and keep its initial
        heap under ``name``; returns the answer's ``(type …)`` as a type."""
        s, _ = read_session_answer(self.request(f"(load {name_sexp(name)} {program_sexp(prog)})"))
        if not (isinstance(s, list) and answer_head(s) == "loaded"):
            raise RevHandlersError("internal", f"unexpected answer to load: {short(s)}")
        ty = next((f for f in s[2:] if answer_head(f) == "type"), None)
        return read_ty(ty[1]) if ty is not None else None

    def session_exec(self, name: str, set: dict | None = None, read=(), fuel: int | None = None,
                     value: str = "f64"):
        """``(exec NAME (set …) (read …) (fuel N) (value …))``: run the
        session's main command on its heap updated by ``set`` (name ->
        numbers); ``fuel`` bounds this run (default: the evaluator's
        ``fuel``, else no bound).  ``value`` is how the answer carries the run's value:
        ``"f64"`` (exact), ``"text"`` (decimal) or ``"none"`` (not at all:
        the value is ``None``).  Returns ``(value, read, steps, seconds)``
        with ``read`` name -> array."""
        if value not in ("f64", "text", "none"):
            raise ValueError("value is 'f64', 'text' or 'none'")
        parts = [f"(exec {name_sexp(name)}"]
        if set:
            parts.append("(set" + "".join(f" ({name_sexp(k)} {data_sexp(v)})" for k, v in set.items()) + ")")
        read = list(read)
        if read:
            parts.append("(read" + "".join(" " + name_sexp(k) for k in read) + ")")
        if fuel is not None:
            parts.append(f"(fuel {int(fuel)})")
        if value != "text":
            parts.append(f"(value {value})")
        s, payloads = read_session_answer(self.request(" ".join(parts) + ")"))
        if not (isinstance(s, list) and answer_head(s) == "result"):
            raise RevHandlersError("internal", f"unexpected answer to exec: {short(s)}")
        fields = {answer_head(f): f for f in s[1:] if isinstance(f, list)}
        v = fields.get("value", ["value"])
        value = read_session_value(v[1], payloads) if len(v) == 2 else None
        values = _read_entries(fields.get("read", ["read"])[1:], payloads)
        steps = fields["steps"][1] if "steps" in fields else None
        seconds = float(fields["seconds"][1]) if "seconds" in fields else None
        return value, values, steps, seconds

    def session_heap(self, name: str) -> dict[str, np.ndarray]:
        """``(heap NAME)``: every location of the session, in declaration order."""
        s, payloads = read_session_answer(self.request(f"(heap {name_sexp(name)})"))
        if not (isinstance(s, list) and answer_head(s) == "heap"):
            raise RevHandlersError("internal", f"unexpected answer to heap: {short(s)}")
        return _read_entries(s[1:], payloads)

    def session_unload(self, name: str) -> None:
        s, _ = read_session_answer(self.request(f"(unload {name_sexp(name)})"))
        if not (isinstance(s, list) and answer_head(s) == "unloaded"):
            raise RevHandlersError("internal", f"unexpected answer to unload: {short(s)}")

    def coverage(self, prog: Program):
        """``(counts, outcome)``: how often each rule and rewriting case fired
        (theories/rh/coverage.v), and the :class:`Result` or the error."""
        line = self.request(f"(coverage {program_sexp(prog)})")
        s = loads(line)
        if not (isinstance(s, list) and s and getattr(s[0], "value", lambda: None)() == "coverage"):
            read_answer(line)          # raises the error it reports
        counts = {item[0].value() if hasattr(item[0], "value") else str(item[0]): int(item[1]) for item in s[1][1:]}
        try:
            return counts, read_answer(sexpdata.dumps(s[2]))
        except RevHandlersError as e:
            return counts, e


def answer_head(s):
    """The head symbol of an answer's list, else ``None``."""
    return s[0].value() if isinstance(s, list) and s and hasattr(s[0], "value") else None


def short(s) -> str:
    """``s`` for a message: at most 200 characters."""
    return repr(s)[:200]


def _data(d, payloads: list[np.ndarray]) -> np.ndarray:
    """DATA of an answer: ``(f64 K)`` (cut out by :func:`read_session_answer`)
    or a plain list of numbers."""
    if answer_head(d) == "f64" and len(d) == 2 and isinstance(d[1], int):
        return payloads[d[1]]
    if isinstance(d, list):
        return np.array([float(x) if isinstance(x, int) and not isinstance(x, bool) else read_float(x)
                         for x in d], dtype=float)
    raise RevHandlersError("internal", f"not location data: {short(d)}")


def _read_entries(entries, payloads) -> dict[str, np.ndarray]:
    return {read_name(e[0]): _data(e[1], payloads) for e in entries}


def read_session_value(s, payloads):
    """A closed value: ``(const x …)``, a constant as ``(f64 …)``, or ``(tuple …)``."""
    match answer_head(s):
        case "f64":
            return _data(s, payloads)
        case "tuple":
            return tuple(read_session_value(x, payloads) for x in s[1:])
    return read_value(s)


#: the process shared by :func:`revhandlers.run` and friends
default_evaluator = lazily(VerifiedEvaluator)


def with_heap(prog: Program, heap: dict | None) -> Program:
    """``prog`` with its initial heap updated by ``heap`` (name -> array)."""
    if not heap:
        return prog
    entries = dict(prog.heap)
    for name, values in heap.items():
        entries[name] = tuple(heap_numbers(name, values).tolist())
    order = [d.name for d in prog.locs if d.name in entries] + [n for n in entries if prog.loc_decl(n) is None]
    return replace(prog, heap=tuple((n, entries[n]) for n in order))
