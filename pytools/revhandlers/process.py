"""The process wrapper every driver shares: a long-lived ``--serve``
process of an extracted evaluator (``rh-eval``, ``dbr-eval``), reused across
calls, answering one request per line.  With a ``timeout``, a request that
gets no answer in time kills the process (the next request starts a new
one) and raises a ``timeout`` runtime failure."""

from __future__ import annotations

import atexit
import os
import select
import subprocess
import threading
import time
from collections.abc import Callable
from typing import TypeVar

from . import interrupt
from .errors import BadInput, RevHandlersError, RuntimeFailure


class EvaluatorNotBuilt(RevHandlersError):
    def __init__(self, path: str | os.PathLike[str]) -> None:
        super().__init__("io", f"{path} does not exist: run `make build` first")
        self.exit_code = 2


class ProcessStopped(RevHandlersError):
    """An evaluator process went away (killed, crashed) before answering:
    an ``internal`` error; whatever it held (a session's heap) is lost."""

    def __init__(self, message: str) -> None:
        super().__init__("internal", message)


S = TypeVar("S", bound="ServeProcess")


class ServeProcess:
    """A driver's ``--serve`` process (``rh-eval``, ``dbr-eval``): one request
    line in, one answer line out.  Thread-safe; restarted if it dies."""

    def __init__(self, path: str | os.PathLike[str], timeout: float | None = None, flags: tuple[str, ...] = ()) -> None:
        self.path = str(path)
        self.name = os.path.basename(self.path)
        #: extra command-line flags, e.g. ``("--small-step", "--list-vectors")``;
        #: then the driver's own time limit, a little under ours, so that it
        #: answers a timeout itself and the process survives (none when we
        #: set none: the drivers' default is 60 s)
        self.flags = tuple(flags) + ("--timeout", repr(0.9 * timeout) if timeout else "0")
        self.timeout = timeout
        self._proc: subprocess.Popen[bytes] | None = None
        self._lock = threading.Lock()
        #: how many processes were started: a session lives in one process,
        #: so a change means its sessions are gone
        self.generation = 0

    def _start(self) -> subprocess.Popen[bytes]:
        if not os.path.exists(self.path):
            raise EvaluatorNotBuilt(self.path)
        args = [self.path, "--serve", *self.flags]
        with interrupt.deferred():       # a signal meanwhile: raised once the process is tracked
            try:
                proc: subprocess.Popen[bytes] = subprocess.Popen(args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                                                 **interrupt.POPEN_OPTIONS)
            except OSError as e:
                raise RevHandlersError("io", f"cannot start {self.path}: {e}") from None
            interrupt.track(proc)
        return proc

    def _stopped(self, what: str) -> ProcessStopped:
        """The error for a process that went away, which is reaped (the next
        request starts a new one)."""
        proc, self._proc = self._proc, None
        code = None
        if proc is not None:
            try:
                proc.kill()
            except OSError:  # pragma: no cover
                pass
            try:
                code = proc.wait(timeout=10)
            except subprocess.TimeoutExpired:  # pragma: no cover
                pass
        how = (f" (killed by signal {-code})" if code is not None and code < 0
               else f" (exit code {code})" if code is not None else "")
        return ProcessStopped(f"{self.name} stopped {what}{how}")

    def request(self, line: str) -> str:
        """Send one request line, return the answer line.  With a
        ``timeout``, the whole answer must arrive within it."""
        if "\n" in line or "\r" in line:
            # the printers never produce one (names are escaped): a request
            # made by hand that would be cut into several
            raise BadInput("syntax", "a request is one line: it contains a line break")
        if not line.strip(" \t\x0c"):
            raise BadInput("syntax", f"an empty request ({self.name} --serve skips blank lines without answering)")
        data = line.encode("utf-8", errors="surrogatepass") + b"\n"
        with self._lock:
            if self._proc is None or self._proc.poll() is not None:
                self._proc = self._start()
                self.generation += 1
            assert self._proc.stdin and self._proc.stdout
            try:
                self._proc.stdin.write(data)
                self._proc.stdin.flush()
            except (BrokenPipeError, ConnectionResetError, ValueError, OSError):
                raise self._stopped("before reading the request") from None
            deadline = None if self.timeout is None else time.monotonic() + self.timeout
            answer = self._read_line(deadline)
        if self.timeout and answer.startswith(b"(error (kind timeout)"):
            # the driver's own limit (a little under ours): say ours
            raise RuntimeFailure("timeout", f"{self.name} gave no answer within {self.timeout:g} s")
        # the answers are ASCII but for names quoted from the input: a
        # byte that is not UTF-8 is replaced rather than failing the read
        return answer.decode("utf-8", errors="replace")

    def _read_line(self, deadline: float | None) -> bytes:
        """The next line of the process's output, read by ourselves (no
        buffering between requests), by ``deadline`` (else the process is
        killed: a ``timeout`` runtime failure)."""
        proc = self._proc
        assert proc is not None and proc.stdout is not None
        fd = proc.stdout.fileno()
        chunks: list[bytes] = []
        while True:
            if deadline is not None:
                left = deadline - time.monotonic()
                if left <= 0 or not select.select([fd], [], [], left)[0]:
                    proc.kill()
                    proc.wait()
                    self._proc = None
                    raise RuntimeFailure("timeout", f"{self.name} gave no answer within {self.timeout:g} s")
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:
                chunk = b""
            if not chunk:
                raise self._stopped("without answering")
            chunks.append(chunk)
            if b"\n" in chunk:
                break
        answer = b"".join(chunks)
        end = answer.index(b"\n") + 1
        if end != len(answer):         # one request, one line: anything more is not an answer to it
            raise self._stopped(f"after an answer followed by more output ({answer[end:end + 80]!r})")
        return answer

    def close(self) -> None:
        with self._lock:
            if self._proc is not None and self._proc.poll() is None and interrupt.stopping():
                self._proc.kill()            # interrupted: ended, not waited for
                self._proc.wait()
            elif self._proc is not None and self._proc.poll() is None:
                if self._proc.stdin is not None:
                    self._proc.stdin.close()
                try:
                    self._proc.wait(timeout=10)
                except subprocess.TimeoutExpired:  # pragma: no cover
                    self._proc.kill()
            self._proc = None

    def __enter__(self: S) -> S:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


P = TypeVar("P", bound=ServeProcess)


def lazily(factory: Callable[[], P]) -> Callable[[], P]:
    """A function returning one shared ``factory()`` process, started at
    the first call and closed when Python exits."""
    made: list[P] = []

    def get() -> P:
        if not made:
            made.append(factory())
            atexit.register(made[0].close)
        return made[0]

    return get
