"""How deeply syntax may nest: the limit the extracted drivers enforce
(``max_depth`` in ``theories/rh/frontend.v``), the ``too-deep`` error, and
room on the Python stack for everything within it."""

from __future__ import annotations

import functools
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import ParamSpec, TypeVar

from .errors import BadInput

#: rh-eval's ``max_depth``
MAX_NESTING = 2000

#: Python frames allowed per level of nesting
_FRAMES_PER_LEVEL = 40


def too_deep() -> BadInput:
    return BadInput("too-deep", f"nesting deeper than {MAX_NESTING} levels")


P = ParamSpec("P")
R = TypeVar("R")


@contextmanager
def room() -> Iterator[None]:
    """Enough recursion for programs nested up to :data:`MAX_NESTING`; a
    ``RecursionError`` becomes the ``too-deep`` error."""
    old = sys.getrecursionlimit()
    sys.setrecursionlimit(max(old, _FRAMES_PER_LEVEL * MAX_NESTING))
    try:
        yield
    except RecursionError:
        raise too_deep() from None
    finally:
        sys.setrecursionlimit(old)


def deep(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn``, run under :func:`room`."""
    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        with room():
            return fn(*args, **kwargs)
    return wrapper
