"""A program from text or a file, in either notation: an S-expression
``(program …)`` (``docs/sexp-format.md``) or the surface syntax
(``docs/surface-syntax.md``)."""

from __future__ import annotations

from pathlib import Path

from ..errors import BadInput
from ..source import code_text, read_source
from . import sexp, surface
from .nesting import check_depth
from .syntax import Program


def parse(text: str, params: dict[str, int] | None = None) -> Program:
    """A program from text: an S-expression ``(program …)`` or the surface
    syntax (whose ``param`` declarations ``params`` overrides)."""
    if code_text(text).startswith("(program"):
        if params:
            raise BadInput("unbound", "an S-expression program has no parameters")
        return sexp.parse_program(text)
    return surface.parse(text, params)


def load(path: str | Path, params: dict[str, int] | None = None) -> Program:
    """A program from a ``.rh`` (surface) or ``.sexp`` file (UTF-8 text, at
    most ``revhandlers.source.MAX_INPUT`` bytes; else :class:`BadInput`)."""
    return parse(read_source(path), params)


def as_program(p) -> Program:
    """``p`` if it is a :class:`Program` (within the nesting limit), else the
    program in the file ``p``."""
    return check_depth(p) if isinstance(p, Program) else load(p)
