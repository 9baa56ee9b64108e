"""The verified evaluator from Python: one long-lived ``rh-eval --serve``
process, reused across calls, answering one request per line.  With a
``timeout``, a request that gets no answer in time kills the process (the
next request starts a new one) and raises a ``timeout`` runtime failure."""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import threading
from dataclasses import replace

import numpy as np

from .ast import Program
from .errors import RevHandlersError, RuntimeFailure
from .paths import rh_eval_path
from .sexp import Result, program_sexp, read_answer


class EvaluatorNotBuilt(RevHandlersError):
    def __init__(self, path):
        super().__init__("io", f"{path} does not exist: run `make build` first")
        self.exit_code = 2


class VerifiedEvaluator:
    """A ``rh-eval --serve`` process.  Thread-safe; restarted if it dies."""

    def __init__(self, path: str | os.PathLike | None = None, fuel: int | None = None,
                 timeout: float | None = None):
        self.path = str(path or rh_eval_path())
        self.fuel = fuel
        self.timeout = timeout
        self._proc: subprocess.Popen | None = None
        self._lock = threading.Lock()

    def _start(self) -> subprocess.Popen:
        if not os.path.exists(self.path):
            raise EvaluatorNotBuilt(self.path)
        args = [self.path, "--serve"] + (["--fuel", str(self.fuel)] if self.fuel is not None else [])
        return subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, bufsize=1)

    def request(self, line: str) -> str:
        """Send one request line, return the answer line."""
        if "\n" in line:
            raise ValueError("a request is one line")
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
            assert self._proc.stdin and self._proc.stdout
            self._proc.stdin.write(line + "\n")
            self._proc.stdin.flush()
            if self.timeout is not None and not select.select([self._proc.stdout], [], [], self.timeout)[0]:
                self._proc.kill()
                self._proc.wait()
                self._proc = None
                raise RuntimeFailure("timeout", f"rh-eval gave no answer within {self.timeout:g} s")
            answer = self._proc.stdout.readline()
        if not answer:
            raise RevHandlersError("internal", "rh-eval stopped without answering")
        return answer

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None:
                self._proc.stdin.close()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:  # pragma: no cover
                    self._proc.kill()
            self._proc = None

    # ------------------------------------------------------------- API
    def run(self, prog: Program) -> Result:
        return read_answer(self.request(f"(run {program_sexp(prog)})"))

    def check(self, prog: Program):
        return read_answer(self.request(f"(check {program_sexp(prog)})"))

    def trace(self, prog: Program):
        return read_answer(self.request(f"(trace {program_sexp(prog)})"))

    def coverage(self, prog: Program):
        """``(counts, outcome)``: how often each rule and rewriting case fired
        (theories/coverage.v), and the :class:`Result` or the error."""
        from .sexp import loads, read_answer as answer
        import sexpdata
        line = self.request(f"(coverage {program_sexp(prog)})")
        s = loads(line)
        if not (isinstance(s, list) and s and getattr(s[0], "value", lambda: None)() == "coverage"):
            answer(line)          # raises the error it reports
        counts = {item[0].value() if hasattr(item[0], "value") else str(item[0]): int(item[1]) for item in s[1][1:]}
        try:
            return counts, answer(sexpdata.dumps(s[2]))
        except RevHandlersError as e:
            return counts, e


_default: VerifiedEvaluator | None = None


def default_evaluator() -> VerifiedEvaluator:
    global _default
    if _default is None:
        _default = VerifiedEvaluator()
        atexit.register(_default.close)
    return _default


def with_heap(prog: Program, heap: dict | None) -> Program:
    """``prog`` with its initial heap updated by ``heap`` (name -> array)."""
    if not heap:
        return prog
    entries = dict(prog.heap)
    for name, values in heap.items():
        entries[name] = tuple(float(x) for x in np.asarray(values, dtype=float).reshape(-1))
    order = [d.name for d in prog.locs if d.name in entries] + [n for n in entries if prog.loc_decl(n) is None]
    return replace(prog, heap=tuple((n, entries[n]) for n in order))
