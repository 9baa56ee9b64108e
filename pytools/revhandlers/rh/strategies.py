"""Hypothesis strategies for programs of the language.

:func:`programs` draws arbitrary programs over a small vocabulary: their
variables are mostly in scope and their primitives exist, but they are not
necessarily well typed; they exercise the S-expression round trip, the
surface syntax and the agreement of the two type checkers on both
acceptance and rejection.  (Requires the ``test`` extra.)"""

from __future__ import annotations

from hypothesis import strategies as st

from .prims import examples
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl, OpGet, OpPut, OpUser,
                     Prim, Program, Proj, Rd, Ret, RevHandle, TBase, Tm, TProd, Tuple, Ty, Var)

NAMES = ["x", "y", "z", "w", "a", "b"]

finite = st.floats(min_value=-4, max_value=4, allow_nan=False, allow_infinity=False, width=64)

def prim_instances() -> st.SearchStrategy[Prim]:
    """Small instances of every primitive of the table (prims.examples)."""
    return st.sampled_from(examples())


small_prims = st.deferred(prim_instances)

fsyms = st.builds(FSym, st.integers(0, 2), small_prims)


def types(max_leaves: int = 4) -> st.SearchStrategy[Ty]:
    base = st.builds(TBase, st.integers(0, 3))
    return st.recursive(base, lambda inner: st.builds(lambda xs: TProd(tuple(xs)), st.lists(inner, max_size=3)),
                        max_leaves=max_leaves)


def terms(scope: tuple[str, ...], depth: int = 3) -> st.SearchStrategy[Tm]:
    leaves = [st.builds(lambda v: Const(tuple(v)), st.lists(finite, max_size=3))]
    if scope:
        leaves.append(st.sampled_from(scope).map(Var))
    leaf = st.one_of(*leaves)
    if depth <= 0:
        return leaf
    sub = st.deferred(lambda: terms(scope, depth - 1))
    name = st.sampled_from(NAMES)
    return st.one_of(
        leaf,
        st.builds(App, fsyms, sub),
        st.builds(Add, sub, sub),
        st.builds(lambda xs: Tuple(tuple(xs)), st.lists(sub, max_size=3)),
        st.builds(Proj, st.integers(0, 2), sub),
        name.flatmap(lambda x: st.builds(Let, st.just(x), sub, terms(scope + (x,), depth - 1))),
        name.flatmap(lambda x: st.builds(Rd, sub, st.just(x), terms(scope + (x,), depth - 1), sub)),
    )


OPS = (OpDecl("F", TBase(2), TBase(2)), OpDecl("G", TBase(1), TProd((TBase(1), TBase(1)))))
LOCS = (LocDecl("l", (2,)), LocDecl("k", (1, 1)))
op_syms = st.sampled_from([OpUser("F"), OpUser("G"), OpGet("l"), OpPut("l"), OpGet("k"), OpPut("k")])


def commands(scope: tuple[str, ...], depth: int = 3) -> st.SearchStrategy[Cmd]:
    tm = terms(scope, 2)
    base = st.one_of(st.builds(Ret, tm), st.builds(Op, op_syms, tm))
    if depth <= 0:
        return base
    name = st.sampled_from(NAMES)
    return st.one_of(
        base,
        name.flatmap(lambda x: st.builds(CLet, st.just(x), commands(scope, depth - 1),
                                         commands(scope + (x,), depth - 1))),
        st.lists(st.sampled_from(NAMES), max_size=2, unique=True).flatmap(
            lambda xs: st.builds(RevHandle, tm, st.just(tuple(xs)), commands(tuple(xs), depth - 1),
                                 handlers(depth - 1))),
    )


def clauses(depth: int) -> st.SearchStrategy[CCons]:
    return st.builds(CCons, op_syms, types(2), st.just("x"), commands(("x",), depth),
                     st.just("y"), st.just("z"), commands(("y", "z"), depth))


def handlers(depth: int) -> st.SearchStrategy[Handler]:
    return st.builds(lambda c, cl: Handler("x", c, tuple(cl)), commands(("x",), depth),
                     st.lists(clauses(max(depth - 1, 0)), max_size=2))


def programs(depth: int = 3) -> st.SearchStrategy[Program]:
    heap = st.lists(st.sampled_from([("l", 2), ("k", 1)]), max_size=2, unique=True).flatmap(
        lambda entries: st.tuples(*[st.tuples(st.just(n), st.lists(finite, min_size=k, max_size=k).map(tuple))
                                    for n, k in entries]))
    return st.builds(lambda main, h: Program(main, OPS, LOCS, tuple(h)), commands((), depth), heap)
