"""A type checker mirroring the Coq one (``check_tm``, ``check_cmd``,
``check_handler`` in theories/rh/typecheck.v): the same rules, checked in the
same order, failing with the same Coq rule names.  Before it,
:func:`validate_program` makes the checks that ``rh-eval`` makes while
reading a program (names, shapes, numbers, nesting), in the same order, so
that both report the same first error.

Errors carry the position of the offending node when the program was read
from the surface syntax, and render terms and types in that syntax
(``Real(2)``, ``proj_3(z)``, the program's names); unknown names come with
a "did you mean" among the names in scope.  :func:`locate` finds the node
of an error that ``rh-eval`` reports, and :func:`handler_checks` makes the
checks of handlers that the Coq checker does not make (a second clause for
one operation, an operation that no handler handles)."""

from __future__ import annotations

import difflib
import functools
import math
import re
from collections.abc import Iterator

from ..errors import BadInput, RevHandlersError, RuntimeFailure, TypeCheckError
from ..tree import preorder
from . import nesting, printer
from .prims import PRIM_PARAMS, PRIMS, fcod, fdom, prim_ok
from .sexp import loads, read_tm
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, Op, OpGet, OpPut, OpSym, OpUser, Program,
                     Proj, Rd, Ret, RevHandle, TBase, Tm, TProd, Tuple, Ty, Var)

MAX_DEPTH = 2000
MAX_NAT = 1_000_000
MAX_LOC_SIZE = 100_000_000
UNIT = TBase(0)


def show_ty(t: Ty | None) -> str:
    """A type in the surface syntax for a message: ``Real(2)``, ``Real(1) *
    Real(3)``, abbreviated if long (a type may be far larger than the
    program: see :func:`fsym_dom`)."""
    if t is None:
        return "?"
    return printer.show_ty(t)


# ------------------------------------------------------------- types
#
# Types are compared and built here without recursion and with shared
# subtrees: the domain of rd^k[p] is a tree with a Fibonacci number of
# nodes (fdom k = fdom (k-1) * fdom (k-2)), and a chain of lets binding
# x_{i+1} = <x_i, x_i> types a program of k lines with a tree of 2^k nodes.
# Built with sharing they are graphs of k nodes; dataclass equality (``==``)
# would walk the whole tree, recursively.


@functools.lru_cache(maxsize=1024)
def _rd_types(k: int, p) -> tuple[Ty, Ty]:
    dom, cod = fdom(0, p), fcod(0, p)
    for _ in range(k):
        dom, cod = TProd((dom, cod)), dom
    return dom, cod


def fsym_dom(f: FSym) -> Ty:
    """The domain of ``f`` (Coq ``fdom``, as :func:`revhandlers.rh.prims.fdom`),
    its subtrees shared: time and memory linear in ``f.k``."""
    return _rd_types(f.k, f.prim)[0]


def fsym_cod(f: FSym) -> Ty:
    """The codomain of ``f`` (Coq ``fcod``), its subtrees shared."""
    return _rd_types(f.k, f.prim)[1]


def same_ty(a: Ty, b: Ty) -> bool:
    """``a == b``, without recursion, each pair of shared subtrees compared
    once (at most the product of the numbers of distinct nodes)."""
    stack = [(a, b)]
    seen: set[tuple[int, int]] = set()
    while stack:
        x, y = stack.pop()
        if x is y:
            continue
        key = (id(x), id(y))
        if key in seen:
            continue
        seen.add(key)
        if isinstance(x, TBase):
            if not (isinstance(y, TBase) and x.n == y.n):
                return False
        elif isinstance(x, TProd) and isinstance(y, TProd) and len(x.items) == len(y.items):
            stack.extend(zip(x.items, y.items))
        else:
            return False
    return True


def show_tm(m: Tm) -> str:
    """A term in the surface syntax, with its names, abbreviated if long."""
    return printer.show_tm(m)


def show_op(o: OpSym) -> str:
    """An operation as written in the surface syntax: ``FC``, ``Get[l]``."""
    try:
        return printer.pretty_op(o)
    except TypeError:
        return repr(o)


#: names longer than this get no suggestion and are suggested for none
#: (difflib's time grows with the product of the lengths)
_MAX_SUGGESTED = 100


def did_you_mean(name: str, candidates) -> str:
    """``"; did you mean y?"`` (or ``"y or z?"``) for the closest of
    ``candidates`` (difflib), or ``""``."""
    if len(name) > _MAX_SUGGESTED:
        return ""
    names = sorted({c for c in candidates if c != name and len(c) <= _MAX_SUGGESTED})
    if not names:
        return ""
    close = difflib.get_close_matches(name, names, n=3, cutoff=0.5)
    if not close:
        return ""
    return "; did you mean " + " or ".join(close) + "?"


def _pyerr(cls, *args, pos=None, **kw):
    """An error of the Python checker (``checker="python"``)."""
    return cls(*args, pos=pos, checker="python", **kw)


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


def _fsym(f: FSym, d: int, pos=None) -> None:
    _depth(d)
    for i in range(f.k):
        _depth(d + f.k - i)
    for n in f.prim.params:
        _nat(n)
    name, n = f.prim.name, len(f.prim.params)
    if name not in PRIMS:
        raise _pyerr(BadInput, "unbound", f"unknown function symbol {name} with {n} parameters"
                     + did_you_mean(name, PRIMS), pos=pos)
    if PRIMS[name][1] != n:
        raise _pyerr(BadInput, "unbound", f"unknown function symbol {name} with {n} parameters "
                     f"({name} takes {PRIMS[name][1]}: {name}[{PRIM_PARAMS[name]}])", pos=pos)
    if not prim_ok(f.prim):
        raise _pyerr(BadInput, "shape", f"impossible parameters for {name}[{','.join(map(str, f.prim.params))}] "
                     "(conv1d needs 0 < m <= n; maxpool and upscale need m > 0)", pos=pos)


def _var(x: str, vars: tuple[str, ...], pos=None, hidden: tuple[str, ...] = ()) -> None:
    if x not in vars:
        if x in hidden:
            why = (f"{x} is bound outside: a rev handle body and a handler clause see only their own binders"
                   + (f" ({', '.join(dict.fromkeys(vars))})" if vars else " (none here)"))
        else:
            why = "a rev handle body and a handler clause see only their own binders"
        raise _pyerr(BadInput, "unbound", f"unbound variable {x} ({why})" + did_you_mean(x, vars), pos=pos)


def _tm(m: Tm, vars: tuple[str, ...], d: int, hidden: tuple[str, ...] = ()) -> None:
    """``hidden``: the names bound around a rev handle body or a handler
    clause, which they do not see (for the message only)."""
    _depth(d)
    match m:
        case Var(x):
            _var(x, vars, m.pos, hidden)
        case Const(values):
            for v in values:
                _float(v)
        case App(f, arg):
            _fsym(f, d + 1, m.pos)
            _tm(arg, vars, d + 1, hidden)
        case Add(a, b):
            _tm(a, vars, d + 1, hidden)
            _tm(b, vars, d + 1, hidden)
        case Tuple(items):
            for x in items:
                _tm(x, vars, d + 1, hidden)
        case Proj(i, arg):
            _nat(i)
            _tm(arg, vars, d + 1, hidden)
        case Let(x, bound, body):
            _tm(bound, vars, d + 1, hidden)
            _tm(body, (x,) + vars, d + 1, hidden)
        case Rd(cot, x, body, point):
            _tm(cot, vars, d + 1, hidden)
            _tm(body, (x,) + vars, d + 1, hidden)
            _tm(point, vars, d + 1, hidden)
        case _:
            raise BadInput("syntax", f"not a term: {m!r}")


def check_op_known(o: OpSym, prog: Program, pos=None) -> None:
    match o:
        case OpUser(name):
            if prog.op_decl(name) is None:
                hint = did_you_mean(name, [d.name for d in prog.ops])
                if not hint and name in PRIMS:
                    hint = (f"; {name} is a primitive, applied in a term: "
                            f"[| {name}[{PRIM_PARAMS[name]}](…) |]")
                elif not hint and not prog.ops:
                    hint = f" (declare it: op {name} : A ~> B)"
                raise _pyerr(BadInput, "unbound", f"unknown operation {name}" + hint, pos=pos)
        case OpGet(loc) | OpPut(loc):
            if prog.loc_decl(loc) is None:
                hint = did_you_mean(loc, [d.name for d in prog.locs])
                if not hint and not prog.locs:
                    hint = f" (declare it: loc {loc} :: (n))"
                raise _pyerr(BadInput, "unbound", f"unknown location {loc}" + hint, pos=pos)
        case _:
            raise BadInput("syntax", f"not an operation: {o!r}")


def check_cmd_names(p: Cmd, vars: tuple[str, ...], prog: Program, d: int, hidden: tuple[str, ...] = ()) -> None:
    _depth(d)
    match p:
        case Ret(m):
            _tm(m, vars, d + 1, hidden)
        case Op(o, m):
            check_op_known(o, prog, p.pos)
            _tm(m, vars, d + 1, hidden)
        case CLet(x, bound, body):
            check_cmd_names(bound, vars, prog, d + 1, hidden)
            check_cmd_names(body, (x,) + vars, prog, d + 1, hidden)
        case RevHandle(arg, xs, body, h):
            _tm(arg, vars, d + 1, hidden)
            check_cmd_names(body, tuple(xs), prog, d + 1, vars + hidden)
            _handler(h, prog, d + 1, tuple(xs) + vars + hidden)
        case _:
            raise BadInput("syntax", f"not a command: {p!r}")


def _handler(h: Handler, prog: Program, d: int, hidden: tuple[str, ...] = ()) -> None:
    _depth(d)
    check_cmd_names(h.ret, (h.var,), prog, d + 1, hidden)
    for c in h.clauses:
        check_op_known(c.op, prog, c.pos)
        _ty(c.residual, d + 1)
        check_cmd_names(c.fwd, (c.x,), prog, d + 1, hidden)
        check_cmd_names(c.bwd, (c.y, c.z), prog, d + 1, hidden)


@nesting.deep
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
    for what, decls in (("operation", prog.ops), ("location", prog.locs)):
        names = [d.name for d in decls]
        for i, n in enumerate(names):
            if n in names[:i]:
                first = decls[names.index(n)].pos
                raise _pyerr(BadInput, "syntax", f"{what} {n} declared twice"
                             + (f" (first at line {first[0]}, column {first[1]})" if first else ""), pos=decls[i].pos)
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
    check_cmd_names(prog.main, (), prog, 1)
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


def _scope(ctx: Ctx) -> str:
    names = list(dict.fromkeys(x for x, _ in ctx))
    return ", ".join(names) if names else "none"


def _check_tm(ctx: Ctx, m: Tm) -> Ty:
    """:func:`check_tm`, recursive."""
    match m:
        case Var(x):
            t = _lookup(ctx, x)
            if t is None:
                raise _pyerr(TypeCheckError, "typed_tm_var", f"variable {x} is out of scope (in scope: {_scope(ctx)})"
                             + did_you_mean(x, [y for y, _ in ctx]), pos=m.pos)
            return t
        case Const(values):
            return TBase(len(values))
        case App(f, arg):
            a = _check_tm(ctx, arg)
            if not same_ty(a, fsym_dom(f)):
                raise _pyerr(TypeCheckError, "typed_tm_app",
                             f"{printer.pretty_fsym(f)} expects {show_ty(fsym_dom(f))}, its argument {show_tm(arg)} has type "
                             f"{show_ty(a)}, in {show_tm(m)}", pos=m.pos)
            return fsym_cod(f)
        case Add(a, b):
            t1 = _check_tm(ctx, a)
            t2 = _check_tm(ctx, b)
            if isinstance(t1, TBase) and isinstance(t2, TBase) and t1.n == t2.n:
                return t1
            raise _pyerr(TypeCheckError, "typed_tm_add",
                         f"+ needs two terms of one base type Real(n), found {show_ty(t1)} + {show_ty(t2)} "
                         f"in {show_tm(m)}", pos=m.pos)
        case Tuple(items):
            return TProd(tuple([_check_tm(ctx, x) for x in items]))
        case Proj(i, arg):
            t = _check_tm(ctx, arg)
            if isinstance(t, TProd) and i < len(t.items):
                return t.items[i]
            if isinstance(t, TProd):
                n = len(t.items)
                have = ("a product with no components" if n == 0 else
                        f"a product with {n} component{'s' if n > 1 else ''} (proj_1"
                        + (f" to proj_{n})" if n > 1 else " only)"))
            else:
                have = "not a product"
            raise _pyerr(TypeCheckError, "typed_tm_proj",
                         f"projection out of range: {show_tm(m)}, but {show_tm(arg)} has type {show_ty(t)}, "
                         f"{have}", pos=m.pos)
        case Let(x, bound, body):
            a = _check_tm(ctx, bound)
            return _check_tm(((x, a),) + ctx, body)
        case Rd(cot, x, body, point):
            b = _check_tm(ctx, cot)
            a = _check_tm(ctx, point)
            b2 = _check_tm(((x, a),) + ctx, body)
            if not same_ty(b, b2):
                raise _pyerr(TypeCheckError, "typed_tm_rd",
                             f"the cotangent {show_tm(cot)} has type {show_ty(b)}, the differentiated body "
                             f"{show_tm(body)} has type {show_ty(b2)}, in {show_tm(m)}", pos=m.pos)
            return a
    raise TypeError(f"not a term: {m!r}")


def op_signature(o: OpSym, prog: Program) -> str:
    return f"{show_op(o)} : {show_ty(coar(o, prog))} ~> {show_ty(ar(o, prog))}"


def _check_cmd(ctx: Ctx, p: Cmd, prog: Program) -> Ty:
    """:func:`check_cmd`, recursive."""
    match p:
        case Ret(m):
            return _check_tm(ctx, m)
        case Op(o, m):
            a = _check_tm(ctx, m)
            if not same_ty(a, coar(o, prog)):
                raise _pyerr(TypeCheckError, "typed_cmd_op",
                             f"the argument {show_tm(m)} has type {show_ty(a)}, the coarity of {show_op(o)} is "
                             f"{show_ty(coar(o, prog))} ({op_signature(o, prog)})", pos=p.pos)
            return ar(o, prog)
        case CLet(x, bound, body):
            a = _check_cmd(ctx, bound, prog)
            return _check_cmd(((x, a),) + ctx, body, prog)
        case RevHandle(arg, xs, body, h):
            a = _check_tm(ctx, arg)
            if not isinstance(a, TProd):
                raise _pyerr(TypeCheckError, "typed_cmd_revhandle",
                             f"the argument of rev handle, {show_tm(arg)}, has type {show_ty(a)}, not a product "
                             f"(write a tuple: rev handle(<{show_tm(arg)}>))", pos=arg.pos or p.pos)
            # The Coq body context is the list of binder types; names beyond
            # the product's arity do not exist there.
            body_ctx = tuple(zip(xs, a.items))
            c = _check_cmd(body_ctx, body, prog)
            _check_handler(h, c, prog)
            return a
    raise TypeError(f"not a command: {p!r}")


def _check_handler(h: Handler, c: Ty, prog: Program) -> None:
    """:func:`check_handler`, recursive."""
    c2 = _check_cmd(((h.var, c),), h.ret, prog)
    if not same_ty(c2, c):
        raise _pyerr(TypeCheckError, "typed_handler_rev",
                     f"the return clause has type {show_ty(c2)}, expected {show_ty(c)} (the type of the handled "
                     f"command, which the return clause maps to its cotangent)", pos=h.ret.pos or h.pos)
    for cl in h.clauses:
        want_f = TProd((ar(cl.op, prog), cl.residual))
        af = _check_cmd(((cl.x, coar(cl.op, prog)),), cl.fwd, prog)
        if not same_ty(af, want_f):
            raise _pyerr(TypeCheckError, "typed_clauses_cons",
                         f"the forward clause of {show_op(cl.op)} has type {show_ty(af)}, expected "
                         f"{show_ty(want_f)} (the result of {op_signature(cl.op, prog)} and the residual "
                         f"{show_ty(cl.residual)})", pos=cl.fwd.pos or cl.pos)
        ab = _check_cmd(((cl.y, ar(cl.op, prog)), (cl.z, cl.residual)), cl.bwd, prog)
        if not same_ty(ab, coar(cl.op, prog)):
            raise _pyerr(TypeCheckError, "typed_clauses_cons",
                         f"the backward clause of {show_op(cl.op)} has type {show_ty(ab)}, expected "
                         f"{show_ty(coar(cl.op, prog))} (the coarity of {op_signature(cl.op, prog)})",
                         pos=cl.bwd.pos or cl.pos)


# The checkers recurse on the syntax: the public ones run under
# nesting.room(), with room for every program within rh-eval's nesting limit.

@nesting.deep
def check_tm(ctx: Ctx, m: Tm) -> Ty:
    """The type of ``m`` in ``ctx`` (innermost binding first), or raises
    :class:`TypeCheckError` naming the rule (Coq ``check_tm``)."""
    return _check_tm(ctx, m)


@nesting.deep
def check_cmd(ctx: Ctx, p: Cmd, prog: Program) -> Ty:
    """Coq ``check_cmd``."""
    return _check_cmd(ctx, p, prog)


@nesting.deep
def check_handler(h: Handler, c: Ty, prog: Program) -> None:
    """Coq ``check_handler`` and ``check_clauses``."""
    return _check_handler(h, c, prog)


@nesting.deep
def check_program(prog: Program) -> Ty:
    """Validate the program as ``rh-eval`` does, then type it; the type of
    the main command, or raises the first error."""
    validate_program(prog)
    return _check_cmd((), prog.main, prog)


# ------------------------------------------------- locating rh-eval's errors

#: the kinds of bad input whose first error the Python checker finds at the
#: same node as rh-eval
LOCATABLE = {"type", "unbound", "shape", "syntax", "number"}


def locate(prog: Program, err: RevHandlersError) -> RevHandlersError:
    """``err`` as ``rh-eval`` reported it for ``prog``, located: the Python
    checker, which makes the same checks in the same order, finds the same
    first error (same kind and rule) at a node with a position; the result
    has that node's position and the Python message (surface syntax, names,
    suggestions), and says that the verified checker found it (a type error
    the Python checker does not find alike gets a note saying so).  An
    ``unhandled-operation`` runtime failure is located at the operation
    that no handler handles.  Otherwise ``err`` unchanged."""
    if err.pos is not None or err.checker is not None:
        return err
    if err.kind == "unhandled-operation":
        return _locate_unhandled(prog, err)
    if err.kind not in LOCATABLE:
        return err
    try:
        with nesting.room():
            check_program(prog)
    except RevHandlersError as mine:
        if (mine.kind, mine.rule) == (err.kind, err.rule) and mine.pos is not None:
            return err.relocated(mine.detail, pos=mine.pos, checker="verified+python")
        if (mine.kind, mine.rule) == (err.kind, err.rule):
            return err.relocated(mine.detail, checker="verified+python")
        if err.kind != "type":        # e.g. a heap given apart from the program: not the program's error
            return err
        return err.relocated(checker="verified", notes=err.notes + (
            f"its Python mirror (typecheck.py) reports another first error: {mine}",))
    except RecursionError:
        return err
    if err.kind != "type":
        return err
    return err.relocated(checker="verified", notes=err.notes + ("its Python mirror (typecheck.py) finds no error",))


def _locate_unhandled(prog: Program, err: RevHandlersError) -> RevHandlersError:
    m = re.match(r"operation (\S+) (?:performed on (.*) )?is handled by no handler", err.detail)
    if not m:
        return err
    name, value = m.group(1), m.group(2)
    where = [pos for o, pos in unhandled_operations(prog) if isinstance(o, OpUser) and o.name == name]
    message = err.detail
    if value is not None:
        try:
            message = f"operation {name} performed on {printer.show_tm(read_tm(loads(value)))} is handled by no handler"
        except Exception:            # the message as rh-eval wrote it
            pass
    notes = list(err.notes)
    if len(where) > 1:
        notes.append(f"{name} is performed outside every handler with a clause for it at "
                     + ", ".join(f"line {l}, column {c}" for l, c in where[:8]) + (", …" if len(where) > 8 else ""))
    return err.relocated(message, pos=where[0] if where else None, notes=tuple(notes))


# ------------------------------------------------------- handler checks

def _cmd_parts(q: Cmd) -> list[Cmd]:
    match q:
        case CLet(_, a, b):
            return [a, b]
        case RevHandle(_, _, body, h):
            return [body, h.ret] + [r for c in h.clauses for r in (c.fwd, c.bwd)]
    return []


def _walk_cmds(p: Cmd) -> Iterator[Cmd]:
    """Every command under ``p`` (``p`` first), in the order of the text."""
    return preorder(p, _cmd_parts)


def duplicate_clauses(prog: Program) -> list[tuple[CCons, CCons]]:
    """Every clause of a handler for an operation an earlier clause of the
    same handler already handles, with that earlier clause (the Coq
    ``find_clause`` takes the first: the second is dead code)."""
    out = []
    for q in _walk_cmds(prog.main):
        if isinstance(q, RevHandle):
            first: dict = {}
            for c in q.handler.clauses:
                if c.op in first:
                    out.append((c, first[c.op]))
                else:
                    first[c.op] = c
    return out


def _escaping(p: Cmd) -> list:
    """The operations ``p`` performs that no handler inside ``p`` handles,
    with their positions: ``[(opsym, pos)]``, in the order of the text.  A
    rev handle passes on the operations of its body without a clause (the
    default clause performs them again outside), and runs its return
    clause and the clauses of the operations its body performs outside
    itself."""
    match p:
        case Op(o, _):
            return [(o, p.pos)]
        case CLet(_, a, b):
            return _escaping(a) + _escaping(b)
        case RevHandle(_, _, body, h):
            inner = _escaping(body)
            first: dict = {}
            for c in h.clauses:
                first.setdefault(c.op, c)
            out = [(o, pos) for o, pos in inner if o not in first]
            out += _escaping(h.ret)
            performed = {o for o, _ in inner}
            for o, c in first.items():
                if o in performed:
                    out += _escaping(c.fwd) + _escaping(c.bwd)
            return out
    return []


def unhandled_operations(prog: Program) -> list:
    """The user operations of ``prog`` that reach the top level, handled by
    no enclosing handler (a run that performs one fails with
    ``unhandled-operation``): ``[(OpUser, pos)]``, each place once."""
    with nesting.room():
        found = _escaping(prog.main)
    seen, out = set(), []
    for o, pos in found:
        if isinstance(o, OpUser) and (o, pos) not in seen:
            seen.add((o, pos))
            out.append((o, pos))
    return sorted(out, key=lambda e: e[1] or (0, 0))


# ------------------------------------- the checker of a whole program

def effect_error(name: str, pos) -> BadInput:
    return BadInput("effect", f"operation {name} is handled by no enclosing handler (a handler without a clause for "
                    f"it passes it on to the enclosing ones): running it fails with unhandled-operation", pos=pos)


def check_whole_program(prog: Program) -> Ty:
    """The Python mirror of Coq ``check_program`` (never_stuck.v), which
    ``rh-eval --check`` runs: the type of the main command (raises the
    first error of :func:`check_program`), then the operations no handler
    covers (kind ``effect``, raised at the first).  ``rd`` may be nested at
    any depth: ``Ev`` is total at every order (``exec_ev_total_all``,
    theories/rh/prune_dims.v).  Constants always have the length of their
    literal here and the reader refuses impossible parameters (kind
    ``shape``), so Coq's ``PConstLength`` and ``PPrimParams`` have no
    counterpart."""
    t = check_program(prog)
    places = unhandled_operations(prog)
    if places:
        o, pos = places[0]
        raise effect_error(o.name, pos)
    return t


def handler_checks(prog: Program) -> list[RuntimeFailure]:
    """The checks of handlers the Coq checker does not make.  A second
    clause for one operation in one handler is a ``syntax`` error (raised,
    at the second clause).  An operation that no enclosing handler handles
    is a warning: returned, one per place, as the ``unhandled-operation``
    failure a run would meet there."""
    for dup, first in duplicate_clauses(prog):
        where = f" (the first is at line {first.pos[0]}, column {first.pos[1]})" if first.pos else ""
        raise BadInput("syntax", f"a second clause for {show_op(dup.op)} in one handler{where}: a handler has at "
                       "most one clause per operation", pos=dup.pos or first.pos)
    return [RuntimeFailure("unhandled-operation",
                           f"operation {o.name} is handled by no enclosing handler (a handler without a clause "
                           f"for it passes it on to the enclosing ones): running it fails with unhandled-operation",
                           pos=pos)
            for o, pos in unhandled_operations(prog)]
