"""Families of programs that grow with a size ``n``, for benchmarks
(``bench/scaling.py``) and stress tests: each is well typed for every
``n`` and runs to a value on both engines."""

from __future__ import annotations

from .ast import (App, CCons, CLet, Const, FSym, Handler, Op, OpDecl, OpUser, Prim, Program, Ret, RevHandle, TBase,
                  Tuple, Var)

ONE = Const((1.0,))


def swish(m):
    """``swish[1](m)``."""
    return App(FSym(0, Prim("swish", (1,))), m)


def wide_tuple(n: int) -> Program:
    """``⌊<swish(1), …, swish(1)>⌋`` with ``n`` components."""
    return Program(Ret(Tuple(tuple(swish(ONE) for _ in range(n)))))


def let_chain(n: int) -> Program:
    """``let v0 ⇐ ⌊1⌋ in let v1 ⇐ ⌊swish(v0)⌋ in … ⌊v_n⌋``: commands nested
    ``n + 1`` deep."""
    c = Ret(Var(f"v{n}"))
    for i in range(n, 0, -1):
        c = CLet(f"v{i}", Ret(swish(Var(f"v{i - 1}"))), c)
    return Program(CLet("v0", Ret(ONE), c))


def op_chain(n: int) -> Program:
    """A ``rev handle`` whose body performs ``L : Real(1) ▷ Real(1)`` ``n``
    times in a chain, the clause of ``L`` computing swish forwards and
    passing the cotangent through backwards."""
    a = TBase(1)
    c = Ret(Var(f"y{n}"))
    for i in range(n, 0, -1):
        c = CLet(f"y{i}", Op(OpUser("L"), Var(f"y{i - 1}")), c)
    c = CLet("y0", Ret(Var("x0")), c)
    clause = CCons(OpUser("L"), a, "x", Ret(Tuple((swish(Var("x")), Var("x")))), "y", "z", Ret(Var("y")))
    return Program(RevHandle(Tuple((ONE,)), ("x0",), c, Handler("r", Ret(Var("r")), (clause,))),
                   (OpDecl("L", a, a),))
