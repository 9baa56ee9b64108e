"""A one-line progress bar on stderr (training, campaigns)."""

from __future__ import annotations

import sys
import time
from typing import TextIO


class Progress:
    """A one-line progress bar on stderr."""

    def __init__(self, total: int, label: str, stream: TextIO = sys.stderr, unit: str = "samples") -> None:
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
