"""Errors, with the kinds, rule names and exit codes of ``rh-eval``
(docs/sexp-format.md): 2 for bad input, 1 for a runtime failure of a
well-typed program."""

from __future__ import annotations

BAD_INPUT_KINDS = {"parse", "syntax", "unbound", "shape", "number", "too-deep", "too-large", "type", "io"}
# "timeout": a driver's --timeout, or the Python wrapper's (VerifiedEvaluator(timeout=...))
RUNTIME_KINDS = {"ev-undefined", "unhandled-operation", "out-of-fuel", "internal", "out-of-memory", "timeout"}


class RevHandlersError(Exception):
    """An error of ``rh-eval`` or of the Python tools, with its kind, the
    Coq rule that failed (``"none"`` unless it is a type error) and a
    message."""

    exit_code = 1

    def __init__(self, kind: str, message: str, rule: str = "none"):
        super().__init__(f"{kind}: {message}" + (f" [{rule}]" if rule != "none" else ""))
        self.kind = kind
        self.rule = rule
        self.message = message

    def __eq__(self, other):  # errors compare by content (engine agreement)
        return (isinstance(other, RevHandlersError)
                and (self.kind, self.rule) == (other.kind, other.rule))

    def __hash__(self):
        return hash((self.kind, self.rule))


class BadInput(RevHandlersError):
    """Malformed, ill-typed or ill-shaped input (exit code 2)."""

    exit_code = 2


class RuntimeFailure(RevHandlersError):
    """A well-typed program that fails at run time (exit code 1)."""

    exit_code = 1


class TypeCheckError(BadInput):
    """An ill-typed program; ``rule`` is the Coq typing rule that failed."""

    def __init__(self, rule: str, message: str):
        super().__init__("type", message, rule)


def make_error(kind: str, message: str, rule: str = "none") -> RevHandlersError:
    if kind == "type":
        return TypeCheckError(rule, message)
    if kind in BAD_INPUT_KINDS:
        return BadInput(kind, message, rule)
    return RuntimeFailure(kind, message, rule)
