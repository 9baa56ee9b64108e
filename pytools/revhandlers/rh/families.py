"""Families of programs that grow with a size ``n``, for benchmarks
(``bench/scaling.py``) and stress tests: each is well typed for every
``n`` and runs to a value on both engines; the nested-differentiation
texts at the end are for the resource bounds."""

from __future__ import annotations

from .syntax import (App, CCons, CLet, Const, FSym, Handler, Op, OpDecl, OpUser, Prim, Program, Ret, RevHandle, TBase,
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


# ------------------------------------------- nested differentiation, as text

def nested_rd_sexp(depth: int, body: str = "(app (swish 1) (app (swish 1) y1))") -> str:
    """``(rd (const 1.0) y_d (… (rd (const 1.0) y1 BODY y2) …) (const 0.3))``
    as an S-expression program: ``rd`` nested ``depth`` deep, for the
    resource bounds (``bench/nested_rd.py``, ``tests/test_memory_bound.py``);
    past depth 2 a function symbol in BODY needs ``rd³`` or beyond (the
    core of ``theories/rh/rdcore.v``)."""
    t = body
    for i in range(1, depth + 1):
        point = f"y{i + 1}" if i < depth else "(const 0.3)"
        t = f"(rd (const 1.0) y{i} {t} {point})"
    return f"(program (main (ret {t})))"


def nested_revhandle_sexp(depth: int) -> str:
    """``rev handle``s nested ``depth`` deep, with a default clause around two
    operations, as an S-expression program (each handle's body is one more
    level of differentiation)."""
    body = "(let u (op Op0 (app (swish 1) y1)) (op Op0 u))"
    for i in range(1, depth):
        body = f"(let v (revhandle (tuple y{i + 1}) (y{i}) {body} (handler (return r (ret r)))) (ret (proj 0 v)))"
    return ("(program (ops (Op0 (real 1) (real 1))) (main "
            f"(revhandle (tuple (const 2.0)) (y{depth}) {body} (handler (return r (ret r)) "
            "(clause Op0 (real 1) (x (ret (tuple (app (swish 1) x) x))) (y z (ret (app (smul 1) (tuple y z)))))))))")


def mlp_chain_source(L: int, width: int = 8) -> str:
    """The surface text of an MLP-like chain of ``L`` layers of width
    ``width``, in the style of examples/mlp.rh: ``FC[l0]``, swish,
    ``FC[l1]``, …, ``FC[l(L-1)]`` in one ``rev handle``, handled by a
    training handler (``bench/training_step.py``'s growth table and
    ``tests/test_rh4_counts.py``)."""
    n = width
    lines = [f"op FC[l{i}] : Real({n}) ~> Real({n})" for i in range(L)]
    lines += [f"loc l{i} :: ({n}, {n})" for i in range(L)]
    lines += [f"loc input :: ({n})", f"loc target :: ({n})", "loc lr :: (1)", f"loc output :: ({n})", ""]
    body = "FC[l0](x_in)" if L == 1 else "let x1 <= FC[l0](x_in) in\n"
    for i in range(1, L):
        call = f"FC[l{i}](swish[{n}](x{i}))"
        body += f"  let x{i + 1} <= {call} in\n" if i < L - 1 else f"  {call}"
    clauses = [f"""  FC[l{i}] : (x -> let w <= Get[l{i}]() in [| <matmul[{n}, {n}, 1](<w, x>), <w, x>> |]
          | y, z -> let _ <= Put[l{i}](sub[{n * n}](<proj_1(z),
                                       matmul[{n}, 1, {n}](<y, transpose[{n}, 1](proj_2(z))>)>)) in
                    [| matmul[{n}, {n}, 1](<transpose[{n}, {n}](proj_1(z)), y>) |])""" for i in range(L)]
    return "\n".join(lines) + f"""
let v <= Get[input]() in
rev handle(<v>)<x_in>.
  {body}
with {{
  return x -> let t <= Get[target]() in
              let a <= Get[lr]() in
              let _ <= Put[output](x) in
              [| smul[{n}](<a, sub[{n}](<x, t>)>) |];
{";".join(chr(10) + c for c in clauses)[1:]}
}}
"""
