"""Edits of programs shared by the tests of effects and of the whole-program
checker (``test_effects.py``, ``test_check_program.py``)."""

from __future__ import annotations

from dataclasses import replace

from revhandlers.rh.syntax import CLet, RevHandle


def drop_clauses(p, k: int):
    """``p`` with the explicit clauses of its handlers dropped where ``k``'s
    bits say so (a dropped clause is the default: the operation escapes)."""
    match p:
        case CLet():
            return replace(p, bound=drop_clauses(p.bound, k), body=drop_clauses(p.body, k >> 1))
        case RevHandle():
            h = p.handler
            kept = tuple(c for j, c in enumerate(h.clauses) if (k >> j) & 1)
            h = replace(h, ret=drop_clauses(h.ret, k >> 3),
                        clauses=tuple(replace(c, fwd=drop_clauses(c.fwd, k >> 2), bwd=drop_clauses(c.bwd, k >> 4))
                                      for c in kept))
            return replace(p, body=drop_clauses(p.body, k >> 1), handler=h)
    return p
