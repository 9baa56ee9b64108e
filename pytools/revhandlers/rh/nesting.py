"""Deeply nested programs: the limit ``rh-eval`` enforces, measured the same
way on the Python side, and room on the Python stack for programs within it.

``rh-eval`` rejects a program whose syntax is nested deeper than
:data:`MAX_NESTING` levels (``max_depth`` in ``theories/rh/frontend.v``) with a
``too-deep`` bad-input error.  The Python tools recurse on the syntax too, so
they measure the depth the same way (:func:`depth`, without recursion),
reject the same programs with the same error, and run under
:func:`room`, which raises Python's recursion limit enough for every program
within the limit and turns a ``RecursionError`` into that error."""

from __future__ import annotations

from ..depth import MAX_NESTING, deep, room, too_deep  # noqa: F401  (re-exported)
from ..errors import BadInput
from .syntax import Add, App, CLet, FSym, Handler, Let, Op, Program, Proj, Rd, Ret, RevHandle, TProd, Tuple

#: rd^k[f] for k at most this (frontend.v's max_fsym_level): the type of
#: rd^k[f] grows exponentially with k (Ev is defined at every order:
#: kernels up to rd², the core of rdcore.v beyond)
MAX_FSYM_LEVEL = 8


def rd_fsym(f: FSym) -> FSym:
    """``rd[f]``, refused (``too-large``) past :data:`MAX_FSYM_LEVEL`."""
    if f.k + 1 > MAX_FSYM_LEVEL:
        raise BadInput("too-large", f"rd applied more than {MAX_FSYM_LEVEL} times to a function symbol "
                       "(the size of its type grows exponentially with the level)")
    return FSym(f.k + 1, f.prim)


def children(node, d: int):
    """The syntax below ``node`` (at level ``d``), with their levels, as
    ``rh-eval``'s reader counts them: every command, term, handler, type and
    ``rd`` of a function symbol is one level; the main command and the types
    of declarations are at level 1."""
    match node:
        case Ret(m):
            return [(m, d + 1)]
        case Op(_, m):
            return [(m, d + 1)]
        case CLet(_, p, q):
            return [(p, d + 1), (q, d + 1)]
        case RevHandle(m, _, r, h):
            return [(m, d + 1), (r, d + 1), (h, d + 1)]
        case Handler(_, r, clauses):
            return [(r, d + 1)] + [(x, d + 1) for c in clauses for x in (c.residual, c.fwd, c.bwd)]
        case App(f, m):
            return [(f, d + 1), (m, d + 1)]
        case FSym(k, _):
            return [(None, d + k)]
        case Add(m, n) | Let(_, m, n):
            return [(m, d + 1), (n, d + 1)]
        case Tuple(items) | TProd(items):
            return [(m, d + 1) for m in items]
        case Proj(_, m):
            return [(m, d + 1)]
        case Rd(m, _, n, l):
            return [(m, d + 1), (n, d + 1), (l, d + 1)]
    return []


def depth(prog: Program) -> int:
    """The nesting depth of ``prog`` as ``rh-eval`` counts it."""
    stack = [(prog.main, 1)] + [(t, 1) for o in prog.ops for t in (o.coarity, o.arity)]
    deepest = 0
    while stack:
        node, d = stack.pop()
        deepest = max(deepest, d)
        if d > MAX_NESTING:          # no need to look further
            return d
        stack.extend(children(node, d))
    return deepest


def check_depth(prog: Program) -> Program:
    """``prog``, or the ``too-deep`` error if it is nested too deeply."""
    if depth(prog) > MAX_NESTING:
        raise too_deep()
    return prog
