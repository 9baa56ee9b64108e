"""Errors, with the kinds, rule names and exit codes of ``rh-eval``
(docs/sexp-format.md): 2 for bad input, 1 for a runtime failure of a
well-typed program.

An error found in a program read from the surface syntax may carry the
position of the offending node (``pos``, line and column from 1); its
``message`` then starts with ``line L, column C:`` and ``detail`` is the
message without it.  :func:`format_diagnostic` renders an error (or a
warning) the way the command line prints it::

    prog.rh:3:6: error (type) [typed_tm_app]: swish[3] expects Real(3), its argument x has type Real(2), in swish[3](x)
      FC(swish[3](x))
         ^
    note: found by the verified checker (rh-eval); located by its Python mirror (typecheck.py)
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence
from typing import Any

#: a position in a source text: (line, column), from 1
Pos = Sequence[int]

# "fmt": revhandlers fmt cannot print a file without losing some of it (comments, parameters)
# "effect": `check` of a program that performs an operation no enclosing handler covers (effects.v)
# "ill-formed": a pullback's body outside the terms the paper's theorems speak of (theories/pullback/wf.v)
BAD_INPUT_KINDS = {"parse", "syntax", "unbound", "shape", "number", "too-deep", "too-large", "type", "io", "fmt",
                   "effect", "ill-formed"}
# "timeout": a driver's --timeout, or the Python wrapper's (VerifiedEvaluator(timeout=...))
RUNTIME_KINDS = {"ev-undefined", "unhandled-operation", "out-of-fuel", "internal", "out-of-memory", "timeout"}

#: who found an error (``RevHandlersError.checker``), as the command line
#: says it in a note under a type error or an unknown name
CHECKERS = {
    "verified": "found by the verified checker (rh-eval)",
    "verified+python": "found by the verified checker (rh-eval); located by its Python mirror (typecheck.py)",
    "python": "found by the Python mirror of the Coq checker (typecheck.py)",
    "parser": "found by the surface-syntax parser (surface.py)",
}
#: the kinds of error whose checker the command line names
NAMED_CHECKER_KINDS = {"type", "unbound", "shape"}


class RevHandlersError(Exception):
    """An error of ``rh-eval`` or of the Python tools, with its kind, the
    Coq rule that failed (``"none"`` unless it is a type error) and a
    message; ``pos`` (line, column) when the offending node is known,
    ``checker`` (a key of :data:`CHECKERS`) when known, and ``notes``,
    further lines of explanation."""

    exit_code = 1

    def __init__(self, kind: str, message: str, rule: str = "none", *, pos: Pos | None = None,
                 checker: str | None = None, notes: tuple[str, ...] = ()) -> None:
        self.kind = kind
        self.rule = rule
        self.detail = message
        self.pos = tuple(pos) if pos is not None else None
        self.checker = checker
        self.notes = tuple(notes)
        self.message = (f"line {self.pos[0]}, column {self.pos[1]}: " if self.pos else "") + message
        super().__init__(f"{kind}: {self.message}" + (f" [{rule}]" if rule != "none" else ""))

    def __eq__(self, other: object) -> bool:  # errors compare by content (engine agreement)
        return (isinstance(other, RevHandlersError)
                and (self.kind, self.rule) == (other.kind, other.rule))

    def __hash__(self) -> int:
        return hash((self.kind, self.rule))

    def __reduce__(self) -> tuple[Any, tuple[type[RevHandlersError], tuple[Any, ...], dict[str, Any]]]:
        """Pickled by its fields, not by its constructor's arguments (a
        subclass's differ): an error raised in a campaign's worker process
        reaches the parent whole, with its class, kind, rule and message."""
        return (_rebuilt, (type(self), self.args, dict(self.__dict__)))

    def relocated(self, message: str | None = None, *, pos: Pos | None = None, checker: str | None = None,
                  notes: tuple[str, ...] | None = None) -> "RevHandlersError":
        """The same error (same class, kind and rule) with a new message,
        position, checker or notes."""
        e = RevHandlersError.__new__(type(self))
        RevHandlersError.__init__(e, self.kind, self.detail if message is None else message, self.rule,
                                  pos=self.pos if pos is None else pos,
                                  checker=self.checker if checker is None else checker,
                                  notes=self.notes if notes is None else notes)
        return e


def _rebuilt(cls: type[RevHandlersError], args: tuple[Any, ...], state: dict[str, Any]) -> RevHandlersError:
    e = cls.__new__(cls)
    e.args = args
    e.__dict__.update(state)
    return e


class BadInput(RevHandlersError):
    """Malformed, ill-typed or ill-shaped input (exit code 2)."""

    exit_code = 2


class RuntimeFailure(RevHandlersError):
    """A well-typed program that fails at run time (exit code 1)."""

    exit_code = 1


class TypeCheckError(BadInput):
    """An ill-typed program; ``rule`` is the Coq typing rule that failed."""

    def __init__(self, rule: str, message: str, *, pos: Pos | None = None, checker: str | None = None,
                 notes: tuple[str, ...] = ()) -> None:
        super().__init__("type", message, rule, pos=pos, checker=checker, notes=notes)


def make_error(kind: str, message: str, rule: str = "none", **where: Any) -> RevHandlersError:
    if kind == "type":
        return TypeCheckError(rule, message, **where)
    if kind in BAD_INPUT_KINDS:
        return BadInput(kind, message, rule, **where)
    return RuntimeFailure(kind, message, rule, **where)


# ------------------------------------------------------------ rendering

def source_excerpt(source: str | None, pos: Pos | None) -> list[str]:
    """The source line at ``pos`` and a caret under its column (tabs kept,
    so that the caret lines up); nothing if the line does not exist."""
    if source is None or pos is None:
        return []
    line, column = pos
    lines = source.split("\n")
    if not 1 <= line <= len(lines):
        return []
    text = lines[line - 1].rstrip("\r")
    if len(text) > 400:                       # a very long line: the part around the column
        start = max(0, column - 200)
        text, column = text[start:start + 400], column - start
    column = max(1, min(column, len(text) + 1))
    pad = "".join("\t" if ch == "\t" else " " for ch in text[:column - 1])
    return [text, pad + "^"]


def format_diagnostic(e: RevHandlersError, path: str | None = None, source: str | None = None,
                      severity: str = "error") -> str:
    """An error as the command line prints it: ``FILE:LINE:COL: error
    (KIND) [RULE]: MESSAGE``, the source line and a caret under the column,
    then its notes; without a position, ``error (KIND) [RULE]: MESSAGE``."""
    rule = f" [{e.rule}]" if e.rule != "none" else ""
    head = f"{severity} ({e.kind}){rule}" if severity == "error" else f"{severity}"
    if e.pos is not None and path is not None:
        lines = [f"{path}:{e.pos[0]}:{e.pos[1]}: {head}: {e.detail}"]
        lines += source_excerpt(source, e.pos)
    else:
        lines = [f"{head}: {e.message}"]
    lines += [f"note: {n}" for n in e.notes]
    if severity == "error" and e.kind in NAMED_CHECKER_KINDS and e.checker in CHECKERS:
        lines.append(f"note: {CHECKERS[e.checker]}")
    return "\n".join(lines)


def require_extra(command: str, *modules: str) -> None:
    """Raise a bad-input error (exit code 2, one line) naming the extra to
    install when an optional dependency of ``command`` (``hypothesis``,
    ``sympy``: the ``test`` extra of pyproject.toml) cannot be imported."""
    missing = []
    for m in modules:
        try:
            importlib.import_module(m)
        except ImportError:
            missing.append(m)
    if missing:
        raise BadInput("io", f"{command} needs {' and '.join(missing)}, which "
                             f"{'is' if len(missing) == 1 else 'are'} not installed: "
                             "pip install 'revhandlers[test]'")
