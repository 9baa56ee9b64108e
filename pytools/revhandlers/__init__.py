"""RevHandlers: reverse handlers for arrows (Sanada, Hoshino, Hirai, Katsumata, ICFP 2026).

The calculus is mechanized in Coq under ``theories/`` and its evaluator is
extracted from the verified definitions (``rh-eval``).  This package gives
the language to Python::

    import revhandlers as rh
    prog = rh.load("examples/one_layer.rh")       # surface syntax or S-expression
    rh.check(prog)                                 # its type, or a TypeCheckError naming the Coq rule
    res = rh.run(prog)                             # through the verified evaluator
    ref = rh.run(prog, engine="reference")         # through the independent numpy reference
    res.value, res.heap["l"]

    with rh.Session("examples/mlp.rh") as s:      # loaded once, heap carried across runs
        r = s.run(set={"input": x, "target": t}, read=["output"])

Modules: :mod:`~revhandlers.ast` (one dataclass per Coq constructor),
:mod:`~revhandlers.sexp` (the S-expression format of ``rh-eval``),
:mod:`~revhandlers.surface` (``.rh`` files), :mod:`~revhandlers.typecheck`
(mirror of the Coq checker), :mod:`~revhandlers.reference` (numpy
reference semantics), :mod:`~revhandlers.evaluator` (the ``rh-eval``
process), :mod:`~revhandlers.session` (resident sessions).
"""

from __future__ import annotations

from pathlib import Path

from .ast import Program
from .errors import BadInput, RevHandlersError, RuntimeFailure, TypeCheckError
from .nesting import deep
from .sexp import Result
from .session import EvaluatorDied, Session, SessionResult, Snapshot

__version__ = "0.1.0"

__all__ = ["load", "parse", "check", "run", "trace", "Session", "SessionResult", "Program", "Result", "RevHandlersError",
           "BadInput", "RuntimeFailure", "TypeCheckError", "__version__", "EvaluatorDied", "Snapshot"]

ENGINES = ("verified", "reference")


def parse(text: str, params: dict[str, int] | None = None) -> Program:
    """A program from text: an S-expression ``(program …)`` or the surface
    syntax (whose ``param`` declarations ``params`` overrides)."""
    from . import sexp, surface
    stripped = "\n".join(line for line in text.splitlines() if not line.lstrip().startswith(";")).lstrip()
    if stripped.startswith("(program"):
        if params:
            raise BadInput("unbound", "an S-expression program has no parameters")
        return sexp.parse_program(text)
    return surface.parse(text, params)


def load(path: str | Path, params: dict[str, int] | None = None) -> Program:
    """A program from a ``.rh`` (surface) or ``.sexp`` file (UTF-8 text, at
    most ``revhandlers.cli.MAX_INPUT`` bytes; else :class:`BadInput`)."""
    from .cli import read_source
    return parse(read_source(path), params)


def _program(p) -> Program:
    from .nesting import check_depth
    return check_depth(p) if isinstance(p, Program) else load(p)


def _located(prog: Program, e: RevHandlersError) -> RevHandlersError:
    """``e`` (an error of ``rh-eval``, which knows no positions) at the
    construct of ``prog`` it is about, in the surface syntax, when the
    Python checker finds the same error (:func:`revhandlers.typecheck.locate`,
    which leaves every other error as it is)."""
    from .typecheck import locate
    try:
        return locate(prog, e)
    except (RevHandlersError, RecursionError):
        return e


@deep
def check(program, engine: str = "verified"):
    """The type of the main command; raises :class:`TypeCheckError` (with the
    Coq rule) or :class:`BadInput`.  An error of the verified checker is
    located (``e.pos``, line and column, and a message in the surface
    syntax) when the program has positions (it was parsed from the surface
    syntax) and the Python checker finds the same error."""
    prog = _program(program)
    if engine == "reference":
        from .typecheck import check_program
        return check_program(prog)
    from .evaluator import default_evaluator
    try:
        return default_evaluator().check(prog)
    except RevHandlersError as e:
        raise _located(prog, e) from None


@deep
def run(program, heap: dict | None = None, engine: str = "verified") -> Result:
    """Run a program; ``heap`` (location -> array) updates its initial heap.
    ``engine`` is ``"verified"`` (the extracted evaluator) or ``"reference"``
    (the numpy reference semantics).  Errors are located as by :func:`check`
    (an unhandled operation at the operation)."""
    prog = _program(program)
    if engine == "reference":
        from .reference import run_reference
        return run_reference(prog, heap)
    if engine != "verified":
        raise ValueError(f"engine must be one of {ENGINES}")
    from .evaluator import default_evaluator, with_heap
    try:
        return default_evaluator().run(with_heap(prog, heap))
    except RevHandlersError as e:
        raise _located(prog, e) from None


@deep
def trace(program, heap: dict | None = None):
    """Every configuration of the verified evaluator's run, as S-expression
    lines ``(step N (heap …) (cmd …))``, and the result."""
    prog = _program(program)
    from .evaluator import default_evaluator, with_heap
    return default_evaluator().trace(with_heap(prog, heap))
