"""A batch pipe to an extracted driver's ``--serve`` process: the requests
of a batch go in one write, the answers come back in order, each within a
time limit (the campaigns of ``revhandlers fuzz`` and ``revhandlers
pullback fuzz`` send their programs through it)."""

from __future__ import annotations

import os
import queue
import select
import subprocess
import threading
import time
from collections import deque
from pathlib import Path

from . import interrupt
from .errors import RevHandlersError
from .paths import rh_eval_path
from .process import EvaluatorNotBuilt

TIMEOUT_ANSWER = '(error (kind timeout) (rule none) (message "no answer within the time limit"))'
STOPPED_ANSWER = '(error (kind internal) (rule none) (message "rh-eval stopped without answering"))'


class Pipe:
    """An ``rh-eval --serve`` process that gets the requests of a batch in
    one write (from a writer thread, so that neither side waits on a full
    pipe) and answers them in order.  An answer that does not come within
    ``timeout`` seconds of the previous one (rh-eval's own ``--timeout``, a
    little shorter, normally answers first) is :data:`TIMEOUT_ANSWER`; the
    process is then stopped and the requests after it go to a new one.

    Batches may overlap: :meth:`send` queues its requests after those not
    yet answered, and :meth:`receive` ``(count)`` takes the answers to the
    first ``count`` of them, so a campaign can send its next batch before
    it checks the answers of the last one (the process works meanwhile).
    :meth:`close` stops a process whose answers are no longer read."""

    def __init__(self, flags: tuple[str, ...] = (), timeout: float = 10.0, path: str | Path | None = None) -> None:
        self.args = [str(path or rh_eval_path()), "--serve", *flags, "--timeout", repr(0.9 * timeout)]
        self.timeout = timeout
        self.proc: subprocess.Popen[bytes] | None = None
        self.buf = b""
        #: the requests sent and not yet answered, in order
        self.pending: deque[str] = deque()
        self._writes: queue.SimpleQueue[bytes | None] | None = None

    def _start(self) -> None:
        if not os.path.exists(self.args[0]):
            raise EvaluatorNotBuilt(self.args[0])
        with interrupt.deferred():       # a signal meanwhile: raised once the process is tracked
            try:
                proc: subprocess.Popen[bytes] = subprocess.Popen(self.args, stdin=subprocess.PIPE,
                                                                 stdout=subprocess.PIPE, **interrupt.POPEN_OPTIONS)
            except OSError as e:
                raise RevHandlersError("io", f"cannot start {self.args[0]}: {e}") from None
            self.proc = proc
            interrupt.track(proc)
        self.buf = b""
        self._writes = queue.SimpleQueue()
        threading.Thread(target=self._writer, args=(proc, self._writes), daemon=True).start()

    @staticmethod
    def _writer(proc: subprocess.Popen[bytes], writes: queue.SimpleQueue[bytes | None]) -> None:
        """Writes the batches queued for ``proc``, in order, until ``None``."""
        while (data := writes.get()) is not None:
            try:
                assert proc.stdin is not None
                proc.stdin.write(data)
                proc.stdin.flush()
            except (OSError, ValueError):
                return                   # the process went away: the reader sees it

    def send(self, lines: list[str]) -> None:
        """Queue ``lines`` after the requests not yet answered."""
        if self.proc is None or (not self.pending and self.proc.poll() is not None):
            self._start()
        self.pending.extend(lines)
        data = "".join(line + "\n" for line in lines).encode("utf-8", errors="surrogatepass")
        assert self._writes is not None
        self._writes.put(data)

    def _line(self) -> str | None:
        assert self.proc is not None and self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + self.timeout
        while b"\n" not in self.buf:
            left = deadline - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                return None
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                return STOPPED_ANSWER
            self.buf += chunk
        i = self.buf.index(b"\n")
        line, self.buf = self.buf[:i], self.buf[i + 1:]
        return line.decode("utf-8", errors="replace")

    def receive(self, count: int | None = None) -> list[str]:
        """The answers to the first ``count`` requests not yet answered (all
        of them by default), in order."""
        answers: list[str] = []
        want = len(self.pending) if count is None else min(count, len(self.pending))
        while len(answers) < want:
            line = self._line()
            if line is None or line is STOPPED_ANSWER:
                answers.append(TIMEOUT_ANSWER if line is None else STOPPED_ANSWER)
                self.pending.popleft()
                rest = list(self.pending)
                self.kill()
                if rest:
                    self.send(rest)
                continue
            answers.append(line)
            self.pending.popleft()
        return answers

    def kill(self) -> None:
        if self._writes is not None:
            self._writes.put(None)       # ends the writer (after what it holds: the process is gone)
            self._writes = None
        self.pending.clear()
        if self.proc is not None:
            try:
                self.proc.kill()
            except OSError:  # pragma: no cover
                pass
            self.proc.wait()
            for f in (self.proc.stdin, self.proc.stdout):
                try:
                    if f is not None:
                        f.close()
                except OSError:
                    pass
            self.proc = None

    def close(self) -> None:
        if self.proc is not None and self.proc.poll() is None and not interrupt.stopping() and not self.pending:
            if self._writes is not None:
                self._writes.put(None)   # what was queued is written, then the writer ends
                self._writes = None
            try:
                if self.proc.stdin is not None:
                    self.proc.stdin.close()
                self.proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                pass
        self.kill()
