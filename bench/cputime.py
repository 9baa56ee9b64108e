"""Wall and CPU time of one part of a benchmark: the CPU seconds of this
process and of its children (the extracted drivers run as children), so
that a rate can be read on a machine other jobs load."""

from __future__ import annotations

import resource
import time
from typing import Callable, TypeVar

T = TypeVar("T")


def cpu() -> tuple[float, float]:
    """CPU seconds so far: this process's, its children's."""
    me = resource.getrusage(resource.RUSAGE_SELF)
    kids = resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime, kids.ru_utime + kids.ru_stime


def timed(fn: Callable[[], T]) -> tuple[T, float, float, float]:
    """``fn()``, its wall seconds, and the CPU seconds it took in this
    process and in the children."""
    c0, k0 = cpu()
    t0 = time.perf_counter()
    out = fn()
    wall = time.perf_counter() - t0
    c1, k1 = cpu()
    return out, wall, c1 - c0, k1 - k0
