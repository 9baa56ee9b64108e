"""A type checker mirroring the Coq one (``check_tm``, ``check_cmd``,
``check_handler`` in theories/rh/typecheck.v): the same rules, checked in the
same order, failing with the same Coq rule names.  Before it,
:func:`validate_program` makes the checks that ``rh-eval`` makes while
reading a program (names, shapes, numbers, nesting), in the same order, so
that both report the same first error."""

from __future__ import annotations

import math

from .ast import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, Op, OpGet, OpPut,
                  OpSym, OpUser, Program, Proj, Rd, Ret, RevHandle, TBase, TProd, Tm, Tuple, Ty,
                  Var)
from .errors import BadInput, TypeCheckError
from .prims import PRIMS, fsym_cod, fsym_dom, prim_ok

MAX_DEPTH = 2000
MAX_NAT = 1_000_000
MAX_LOC_SIZE = 100_000_000
UNIT = TBase(0)


def show_ty(t: Ty | None) -> str:
    if t is None:
        return "?"
    if isinstance(t, TBase):
        return f"(real {t.n})"
    return "(prod" + "".join(" " + show_ty(a) for a in t.items) + ")"


# ------------------------------------------------------------- validation

def _nat(n: int) -> int:
    if not isinstance(n, int) or isinstance(n, bool) or n < 0 or n > MAX_NAT:
        raise BadInput("syntax", f"expected a natural number, found {n}")
    return n


def _depth(d: int) -> None:
    if d > MAX_DEPTH:
        raise BadInput("too-deep", f"nesting deeper than {MAX_DEPTH} levels")


def _ty(t: Ty, d: int) -> None:
    _depth(d)
    if isinstance(t, TBase):
        _nat(t.n)
    else:
        for a in t.items:
            _ty(a, d + 1)


def _float(x: float) -> None:
    if not math.isfinite(x):
        raise BadInput("number", f"not a finite number: {x}")


def _fsym(f: FSym, d: int) -> None:
    _depth(d)
    for i in range(f.k):
        _depth(d + f.k - i)
    for n in f.prim.params:
        _nat(n)
    if f.prim.name not in PRIMS or PRIMS[f.prim.name][1] != len(f.prim.params):
        raise BadInput("unbound", f"unknown function symbol {f.prim.name} with {len(f.prim.params)} parameters")
    if not prim_ok(f.prim):
        raise BadInput("shape", f"impossible parameters for ({f.prim.name} "
                       + " ".join(map(str, f.prim.params)) + ") (conv1d needs 0 < m <= n; maxpool and upscale need m > 0)")


def _var(x: str, vars: tuple[str, ...]) -> None:
    if x not in vars:
        raise BadInput("unbound", f"unbound variable {x} (a rev handle body and a handler clause see only their own binders)")


def _tm(m: Tm, vars: tuple[str, ...], d: int) -> None:
    _depth(d)
    match m:
        case Var(x):
            _var(x, vars)
        case Const(values):
            for v in values:
                _float(v)
        case App(f, arg):
            _fsym(f, d + 1)
            _tm(arg, vars, d + 1)
        case Add(a, b):
            _tm(a, vars, d + 1)
            _tm(b, vars, d + 1)
        case Tuple(items):
            for x in items:
                _tm(x, vars, d + 1)
        case Proj(i, arg):
            _nat(i)
            _tm(arg, vars, d + 1)
        case Let(x, bound, body):
            _tm(bound, vars, d + 1)
            _tm(body, (x,) + vars, d + 1)
        case Rd(cot, x, body, point):
            _tm(cot, vars, d + 1)
            _tm(body, (x,) + vars, d + 1)
            _tm(point, vars, d + 1)
        case _:
            raise BadInput("syntax", f"not a term: {m!r}")


def _op(o: OpSym, prog: Program) -> None:
    match o:
        case OpUser(name):
            if prog.op_decl(name) is None:
                raise BadInput("unbound", f"unknown operation {name}")
        case OpGet(loc) | OpPut(loc):
            if prog.loc_decl(loc) is None:
                raise BadInput("unbound", f"unknown location {loc}")
        case _:
            raise BadInput("syntax", f"not an operation: {o!r}")


def _cmd(p: Cmd, vars: tuple[str, ...], prog: Program, d: int) -> None:
    _depth(d)
    match p:
        case Ret(m):
            _tm(m, vars, d + 1)
        case Op(o, m):
            _op(o, prog)
            _tm(m, vars, d + 1)
        case CLet(x, bound, body):
            _cmd(bound, vars, prog, d + 1)
            _cmd(body, (x,) + vars, prog, d + 1)
        case RevHandle(arg, xs, body, h):
            _tm(arg, vars, d + 1)
            _cmd(body, tuple(xs), prog, d + 1)
            _handler(h, prog, d + 1)
        case _:
            raise BadInput("syntax", f"not a command: {p!r}")


def _handler(h: Handler, prog: Program, d: int) -> None:
    _depth(d)
    _cmd(h.ret, (h.var,), prog, d + 1)
    for c in h.clauses:
        _op(c.op, prog)
        _ty(c.residual, d + 1)
        _cmd(c.fwd, (c.x,), prog, d + 1)
        _cmd(c.bwd, (c.y, c.z), prog, d + 1)


def validate_program(prog: Program) -> None:
    """The checks ``rh-eval`` makes while reading a program, in its order."""
    for decl in prog.ops:
        _ty(decl.coarity, 1)
        _ty(decl.arity, 1)
    for decl in prog.locs:
        size = 1
        for n in decl.shape:
            _nat(n)
            if size <= MAX_LOC_SIZE:
                size *= n
        if size > MAX_LOC_SIZE:
            raise BadInput("shape", f"location {decl.name} holds more than {MAX_LOC_SIZE} numbers")
    for what, names in (("operation", [d.name for d in prog.ops]), ("location", [d.name for d in prog.locs])):
        for i, n in enumerate(names):
            if n in names[:i]:
                raise BadInput("syntax", f"{what} {n} declared twice")
    for name, values in prog.heap:
        decl = prog.loc_decl(name)
        if decl is None:
            raise BadInput("unbound", f"unknown location {name} in the heap")
        for v in values:
            _float(v)
        if len(values) != decl.size:
            raise BadInput("shape", f"location {name} holds {decl.size} numbers, the heap gives {len(values)}")
    given = [name for name, _ in prog.heap]
    for i, n in enumerate(given):
        if n in given[:i]:
            raise BadInput("syntax", f"heap entry for location {n} declared twice")
    _cmd(prog.main, (), prog, 1)
    if prog.fuel is not None:
        _nat(prog.fuel)


# ---------------------------------------------------------- typing (Coq)

def coar(o: OpSym, prog: Program) -> Ty:
    match o:
        case OpUser(name):
            return prog.op_decl(name).coarity
        case OpGet(_):
            return UNIT
        case OpPut(loc):
            return TBase(prog.loc_decl(loc).size)


def ar(o: OpSym, prog: Program) -> Ty:
    match o:
        case OpUser(name):
            return prog.op_decl(name).arity
        case OpGet(loc):
            return TBase(prog.loc_decl(loc).size)
        case OpPut(_):
            return UNIT


Ctx = tuple[tuple[str, Ty], ...]


def _lookup(ctx: Ctx, x: str) -> Ty | None:
    for y, t in ctx:
        if y == x:
            return t
    return None


def check_tm(ctx: Ctx, m: Tm) -> Ty:
    """The type of ``m`` in ``ctx`` (innermost binding first), or raises
    :class:`TypeCheckError` naming the rule (Coq ``check_tm``)."""
    from .sexp import tm_sexp
    match m:
        case Var(x):
            t = _lookup(ctx, x)
            if t is None:
                raise TypeCheckError("typed_tm_var", f"variable out of scope in {x}")
            return t
        case Const(values):
            return TBase(len(values))
        case App(f, arg):
            a = check_tm(ctx, arg)
            if a != fsym_dom(f):
                raise TypeCheckError("typed_tm_app", f"the argument has type {show_ty(a)}, the function symbol "
                                     f"expects {show_ty(fsym_dom(f))} in {tm_sexp(m)}")
            return fsym_cod(f)
        case Add(a, b):
            t1 = check_tm(ctx, a)
            t2 = check_tm(ctx, b)
            if isinstance(t1, TBase) and isinstance(t2, TBase) and t1 == t2:
                return t1
            if isinstance(t1, TBase):
                raise TypeCheckError("typed_tm_add", f"+ needs two terms of one base type, found {show_ty(t1)} "
                                     f"and {show_ty(t2)} in {tm_sexp(m)}")
            raise TypeCheckError("typed_tm_add", f"+ needs two terms of one base type, found ? and {show_ty(t1)} in {tm_sexp(m)}")
        case Tuple(items):
            return TProd(tuple(check_tm(ctx, x) for x in items))
        case Proj(i, arg):
            t = check_tm(ctx, arg)
            if isinstance(t, TProd) and i < len(t.items):
                return t.items[i]
            raise TypeCheckError("typed_tm_proj", f"projection out of range of {show_ty(t)} in {tm_sexp(m)}")
        case Let(x, bound, body):
            a = check_tm(ctx, bound)
            return check_tm(((x, a),) + ctx, body)
        case Rd(cot, x, body, point):
            b = check_tm(ctx, cot)
            a = check_tm(ctx, point)
            b2 = check_tm(((x, a),) + ctx, body)
            if b != b2:
                raise TypeCheckError("typed_tm_rd", f"the cotangent has type {show_ty(b)}, the differentiated body "
                                     f"has type {show_ty(b2)} in {tm_sexp(m)}")
            return a
    raise TypeError(f"not a term: {m!r}")


def check_cmd(ctx: Ctx, p: Cmd, prog: Program) -> Ty:
    """Coq ``check_cmd``."""
    from .sexp import cmd_sexp
    match p:
        case Ret(m):
            return check_tm(ctx, m)
        case Op(o, m):
            a = check_tm(ctx, m)
            if a != coar(o, prog):
                raise TypeCheckError("typed_cmd_op", f"the argument has type {show_ty(a)}, the operation's coarity "
                                     f"is {show_ty(coar(o, prog))} in {cmd_sexp(p)}")
            return ar(o, prog)
        case CLet(x, bound, body):
            a = check_cmd(ctx, bound, prog)
            return check_cmd(((x, a),) + ctx, body, prog)
        case RevHandle(arg, xs, body, h):
            a = check_tm(ctx, arg)
            if not isinstance(a, TProd):
                raise TypeCheckError("typed_cmd_revhandle", f"the argument of rev handle has type {show_ty(a)}, "
                                     f"not a product in {cmd_sexp(p)}")
            # The Coq body context is the list of binder types; names beyond
            # the product's arity do not exist there.
            body_ctx = tuple(zip(xs, a.items))
            c = check_cmd(body_ctx, body, prog)
            check_handler(h, c, prog)
            return a
    raise TypeError(f"not a command: {p!r}")


def check_handler(h: Handler, c: Ty, prog: Program) -> None:
    """Coq ``check_handler`` and ``check_clauses``."""
    from .sexp import op_sexp
    c2 = check_cmd(((h.var, c),), h.ret, prog)
    if c2 != c:
        raise TypeCheckError("typed_handler_rev", f"the return clause has type {show_ty(c2)}, expected {show_ty(c)}")
    for cl in h.clauses:
        want_f = TProd((ar(cl.op, prog), cl.residual))
        af = check_cmd(((cl.x, coar(cl.op, prog)),), cl.fwd, prog)
        if af != want_f:
            raise TypeCheckError("typed_clauses_cons", f"the forward clause of {op_sexp(cl.op)} has type "
                                 f"{show_ty(af)}, expected {show_ty(want_f)}")
        ab = check_cmd(((cl.y, ar(cl.op, prog)), (cl.z, cl.residual)), cl.bwd, prog)
        if ab != coar(cl.op, prog):
            raise TypeCheckError("typed_clauses_cons", f"the backward clause of {op_sexp(cl.op)} has type "
                                 f"{show_ty(ab)}, expected {show_ty(coar(cl.op, prog))}")


def check_program(prog: Program) -> Ty:
    """Validate the program as ``rh-eval`` does, then type it; the type of
    the main command, or raises the first error."""
    validate_program(prog)
    return check_cmd((), prog.main, prog)
