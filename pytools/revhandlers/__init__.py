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
    history, heap = rh.train(prog, epochs=1)       # training on the digits, through a session

Modules: the main calculus in :mod:`revhandlers.rh`: :mod:`~revhandlers.rh.syntax`
(one dataclass per Coq constructor), :mod:`~revhandlers.rh.sexp` (the
S-expression format of ``rh-eval``), :mod:`~revhandlers.rh.surface` (``.rh``
files), :mod:`~revhandlers.rh.typecheck` (mirror of the Coq checker),
:mod:`~revhandlers.rh.reference` (numpy reference semantics),
:mod:`~revhandlers.rh.engine` (the ``rh-eval`` process),
:mod:`~revhandlers.rh.session` (resident sessions); the pullback language
in :mod:`revhandlers.pullback` and the define-by-run library in
:mod:`revhandlers.dbr`, with the same module names for the same roles; the
machinery they share (S-expression I/O, the process wrapper, the campaign
harness, errors, paths) at the top of the package, which imports none of
them; the command line in :mod:`revhandlers.cli`.
"""

from __future__ import annotations

from .errors import BadInput, RevHandlersError, RuntimeFailure, TypeCheckError
from .rh.engine import default_evaluator, with_heap
from .rh.nesting import deep
from .rh.program import as_program, load, parse
from .rh.reference import run_reference
from .rh.session import ENGINES, EvaluatorDied, Session, SessionResult, Snapshot
from .rh.sexp import Result
from .rh.syntax import Program
from .rh.train import train
from .rh.typecheck import check_program, locate

__version__ = "0.1.0"

__all__ = ["load", "parse", "check", "run", "trace", "Session", "SessionResult", "Program", "Result", "RevHandlersError",
           "BadInput", "RuntimeFailure", "TypeCheckError", "__version__", "EvaluatorDied", "Snapshot",
           "train"]



def _located(prog: Program, e: RevHandlersError) -> RevHandlersError:
    """``e`` (an error of ``rh-eval``, which knows no positions) at the
    construct of ``prog`` it is about, in the surface syntax, when the
    Python checker finds the same error (:func:`revhandlers.rh.typecheck.locate`,
    which leaves every other error as it is)."""
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
    prog = as_program(program)
    if engine == "reference":
        return check_program(prog)
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
    prog = as_program(program)
    if engine == "reference":
        return run_reference(prog, heap)
    if engine != "verified":
        raise ValueError(f"engine must be one of {ENGINES}")
    try:
        return default_evaluator().run(with_heap(prog, heap))
    except RevHandlersError as e:
        raise _located(prog, e) from None


@deep
def trace(program, heap: dict | None = None):
    """Every configuration of the verified evaluator's run, as S-expression
    lines ``(step N (heap …) (cmd …))``, and the result."""
    prog = as_program(program)
    return default_evaluator().trace(with_heap(prog, heap))
