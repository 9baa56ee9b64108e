"""S-expressions of programs, results and errors, exactly as in
``docs/sexp-format.md`` (the format of ``rh-eval``), read with sexpdata."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import sexpdata

from ..errors import BadInput, RevHandlersError, make_error
from ..sexpio import (  # noqa: F401
    MAX_NAT,
    fnum,
    head,
    is_atom,
    loads,
    name_sexp,
    ocaml_float,
    ocaml_int,
    read_float,
    read_name,
    read_nat,
    read_num,
    show,
    symbol,
)
from .nesting import check_depth, deep, rd_fsym, room
from .prims import PRIMS
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl, OpGet, OpPut, OpSym,
                     OpUser, Prim, Program, Proj, Rd, Ret, RevHandle, TBase, Tm, TProd, Tuple, Ty, Var)

# ----------------------------------------------------------------- writing


def ty_sexp(t: Ty) -> str:
    if isinstance(t, TBase):
        return f"(real {t.n})"
    return "(prod" + "".join(" " + ty_sexp(a) for a in t.items) + ")"


def fsym_sexp(f: FSym) -> str:
    s = f"({f.prim.name}" + "".join(f" {n}" for n in f.prim.params) + ")"
    for _ in range(f.k):
        s = f"(rd {s})"
    return s


def op_sexp(o: OpSym) -> str:
    match o:
        case OpUser(name):
            return name_sexp(name)
        case OpGet(loc):
            return f"(get {name_sexp(loc)})"
        case OpPut(loc):
            return f"(put {name_sexp(loc)})"
    raise TypeError(f"not an operation: {o!r}")


def coq_float(x: float) -> str:
    """A number as ``rh-eval`` prints it (``float_str``, driver_io.ml): 17
    significant digits, with a ``.`` or an exponent."""
    t = "%.17g" % x
    return t if "." in t or "e" in t or "n" in t else t + ".0"


def size_dims(n: int) -> list[int]:
    """A location's size as ``print_program`` prints it (``size_dims``):
    itself, or above :data:`MAX_NAT` the least ``d`` with ``n = d·(n/d)``
    and ``n/d <= MAX_NAT``, and ``n/d``."""
    if n <= MAX_NAT:
        return [n]
    for d in range(1, MAX_NAT + 1):
        if d * (n // d) == n and n // d <= MAX_NAT:
            return [d, n // d]
    return [n]


def _used(p, scope: list[str], depth: int) -> int:
    """Coq ``used_cmd depth`` / ``used_tm depth``: one more than the largest
    index of a variable of ``p`` bound outside its ``depth`` own binders,
    less ``depth``; ``scope`` is the names in scope, innermost first."""
    best = 0
    stack = [(p, scope, depth)]
    while stack:
        x, sc, d = stack.pop()
        match x:
            case Var(name):
                i = sc.index(name)
                best = max(best, i - d + 1 if i >= d else 0)
            case App(_, a) | Proj(_, a) | Ret(a) | Op(_, a) | RevHandle(a, _, _, _):
                stack.append((a, sc, d))
            case Add(a, b):
                stack += [(a, sc, d), (b, sc, d)]
            case Tuple(items):
                stack += [(m, sc, d) for m in items]
            case Let(v, a, b) | CLet(v, a, b):
                stack += [(a, sc, d), (b, [v] + sc, d + 1)]
            case Rd(a, v, b, c):
                stack += [(a, sc, d), (b, [v] + sc, d + 1), (c, sc, d)]
    return best


# One printer writes both texts of the format: the program as given
# (:func:`program_sexp`, what rh-eval reads) and the program as rh-eval's
# ``print_program`` writes it back (:func:`coq_program_sexp`).  They differ
# only in the spelling: how numbers, variables, binders and sizes are written.

class _AsGiven:
    """Numbers by :func:`fnum`, every variable and binder by its own name,
    locations by their shape, the fuel before ``main``."""
    num = staticmethod(fnum)
    var = staticmethod(name_sexp)
    fuel_last = False

    def bind(self, x: str):
        return name_sexp(x), self

    def clause(self, names: list[str], _fixed: list[str]):
        return [name_sexp(x) for x in names], self

    def frame(self, xs: tuple[str, ...], _body: Cmd):
        return [name_sexp(x) for x in xs], self

    def dims(self, shape: tuple[int, ...]) -> list[int]:
        return list(shape)


@dataclass(frozen=True)
class _ByDepth:
    """``print_program``'s spelling (theories/rh/printer_spec.v): numbers by
    :func:`coq_float`; a binder at depth ``d`` named ``v{d}``; a clause's
    binders ``x``, ``y``, ``z``; a rev handle's binders as many as its body
    uses; locations by their size (:func:`size_dims`), the fuel last.
    ``scope`` holds the names in scope, innermost first, ``env`` how each
    is written."""
    scope: tuple[str, ...] = ()
    env: tuple[str, ...] = ()
    num = staticmethod(coq_float)
    fuel_last = True

    def var(self, x: str) -> str:
        return self.env[self.scope.index(x)]

    def bind(self, x: str):
        v = f"v{len(self.env)}"
        return v, _ByDepth((x,) + self.scope, (v,) + self.env)

    def clause(self, names: list[str], fixed: list[str]):
        return fixed, _ByDepth(tuple(names), tuple(fixed))

    def frame(self, xs: tuple[str, ...], body: Cmd):
        env = tuple(f"v{i}" for i in range(_used(body, list(xs), 0)))
        return list(env), _ByDepth(tuple(xs), env)

    def dims(self, shape: tuple[int, ...]) -> list[int]:
        n = 1
        for k in shape:
            n *= k
        return size_dims(n)


_AS_GIVEN = _AsGiven()


def _text(x: Tm | Cmd, sp) -> str:
    """A term or a command (a ``let`` is written alike in both)."""
    match x:
        case Var(name):
            return sp.var(name)
        case Const(values):
            return "(const" + "".join(" " + sp.num(v) for v in values) + ")"
        case App(f, arg):
            return f"(app {fsym_sexp(f)} {_text(arg, sp)})"
        case Add(a, b):
            return f"(add {_text(a, sp)} {_text(b, sp)})"
        case Tuple(items):
            return "(tuple" + "".join(" " + _text(m, sp) for m in items) + ")"
        case Proj(i, arg):
            return f"(proj {i} {_text(arg, sp)})"
        case Let(v, bound, body) | CLet(v, bound, body):
            w, inner = sp.bind(v)
            return f"(let {w} {_text(bound, sp)} {_text(body, inner)})"
        case Rd(cot, v, body, point):
            w, inner = sp.bind(v)
            return f"(rd {_text(cot, sp)} {w} {_text(body, inner)} {_text(point, sp)})"
        case Ret(m):
            return f"(ret {_text(m, sp)})"
        case Op(o, m):
            return f"(op {op_sexp(o)} {_text(m, sp)})"
        case RevHandle(arg, xs, body, h):
            names, inner = sp.frame(xs, body)
            return (f"(revhandle {_text(arg, sp)} (" + " ".join(names) + f") "
                    f"{_text(body, inner)} {_handler(h, sp)})")
    raise TypeError(f"neither a term nor a command: {x!r}")


def _handler(h: Handler, sp) -> str:
    (x,), ret = sp.clause([h.var], ["x"])
    parts = [f"(return {x} {_text(h.ret, ret)})"]
    for c in h.clauses:
        (x,), fwd = sp.clause([c.x], ["x"])
        (y, z), bwd = sp.clause([c.y, c.z], ["y", "z"])
        parts.append(f"(clause {op_sexp(c.op)} {ty_sexp(c.residual)} ({x} {_text(c.fwd, fwd)})"
                     f" ({y} {z} {_text(c.bwd, bwd)}))")
    return "(handler " + " ".join(parts) + ")"


def _program(prog: Program, sp) -> str:
    parts = ["(ops" + "".join(f" ({name_sexp(d.name)} {ty_sexp(d.coarity)} {ty_sexp(d.arity)})" for d in prog.ops) + ")",
             "(locs" + "".join(f" ({name_sexp(d.name)} (" + " ".join(str(n) for n in sp.dims(d.shape)) + "))"
                               for d in prog.locs) + ")",
             "(heap" + "".join(f" ({name_sexp(name)} (" + " ".join(sp.num(v) for v in vals) + "))"
                               for name, vals in prog.heap) + ")"]
    main = [f"(main {_text(prog.main, sp)})"]
    fuel = [] if prog.fuel is None else [f"(fuel {prog.fuel})"]
    parts += main + fuel if sp.fuel_last else fuel + main
    return "(program " + " ".join(parts) + ")"


def tm_sexp(m: Tm) -> str:
    if not isinstance(m, Tm):
        raise TypeError(f"not a term: {m!r}")
    return _text(m, _AS_GIVEN)


def handler_sexp(h: Handler) -> str:
    return _handler(h, _AS_GIVEN)


def cmd_sexp(p: Cmd) -> str:
    if not isinstance(p, Cmd):
        raise TypeError(f"not a command: {p!r}")
    return _text(p, _AS_GIVEN)


# The spelling as given, in one pass: the pieces of the text appended to
# one list and joined once (the campaign prints every program it draws).
# It writes what ``_text``/``_program`` write with ``_AS_GIVEN`` (fnum is
# ``repr(float(x))``: ``nan``, ``inf`` and ``-inf`` are their reprs), and
# hands anything it does not know to them; tests/test_fuzz.py compares the
# two on the campaign's programs.

_NAMES: dict[str, str] = {}
#: the text of a function symbol or a type, by the object's identity (the
#: generator shares them); the object is kept with its text, so that its
#: identity is not given to another one
_BY_ID: dict[int, tuple[object, str]] = {}


def _given_name(x: str) -> str:
    s = _NAMES.get(x)
    if s is None:
        s = name_sexp(x)
        if len(_NAMES) < 4096:
            _NAMES[x] = s
    return s


def _given_cached(x, show) -> str:
    hit = _BY_ID.get(id(x))
    if hit is not None and hit[0] is x:
        return hit[1]
    s = show(x)
    if len(_BY_ID) < 4096:
        _BY_ID[id(x)] = (x, s)
    return s


def _given_args(items: tuple[Tm | Cmd, ...] | list[Tm], out: list[str]) -> None:
    """Each of ``items`` after a space, then the closing parenthesis."""
    for m in items:
        out.append(" ")
        _given(m, out)
    out.append(")")


def _given(x: Tm | Cmd, out: list[str]) -> None:
    """``_text(x, _AS_GIVEN)``, appended to ``out``."""
    kind = type(x)
    if kind is Var:
        out.append(_given_name(x.name))
    elif kind is Const:
        out.append("(const" + "".join([" " + repr(float(v)) for v in x.values]) + ")")
    elif kind is App:
        out.append("(app " + _given_cached(x.f, fsym_sexp))
        _given_args((x.arg,), out)
    elif kind is Let or kind is CLet:
        out.append("(let " + _given_name(x.var))
        _given_args((x.bound, x.body), out)
    elif kind is Tuple:
        out.append("(tuple")
        _given_args(x.items, out)
    elif kind is Add:
        out.append("(add")
        _given_args((x.left, x.right), out)
    elif kind is Proj:
        out.append(f"(proj {x.index}")
        _given_args((x.arg,), out)
    elif kind is Ret:
        out.append("(ret")
        _given_args((x.term,), out)
    elif kind is Rd:
        out.append("(rd ")
        _given(x.cotangent, out)
        out.append(" " + _given_name(x.var))
        _given_args((x.body, x.point), out)
    elif kind is Op:
        out.append("(op " + op_sexp(x.op))
        _given_args((x.arg,), out)
    elif kind is RevHandle:
        out.append("(revhandle ")
        _given(x.arg, out)
        out.append(" (" + " ".join([_given_name(v) for v in x.vars]) + ") ")
        _given(x.body, out)
        h = x.handler
        out.append(" (handler (return " + _given_name(h.var) + " ")
        _given(h.ret, out)
        out.append(")")
        for c in h.clauses:
            out.append(" (clause " + op_sexp(c.op) + " " + _given_cached(c.residual, ty_sexp)
                       + " (" + _given_name(c.x) + " ")
            _given(c.fwd, out)
            out.append(") (" + _given_name(c.y) + " " + _given_name(c.z) + " ")
            _given(c.bwd, out)
            out.append("))")
        out.append("))")
    else:
        out.append(_text(x, _AS_GIVEN))


def _program_given(prog: Program) -> str:
    """``_program(prog, _AS_GIVEN)`` in one pass."""
    if type(prog) is not Program:
        return _program(prog, _AS_GIVEN)
    out = ["(program (ops"]
    for d in prog.ops:
        out.append(" (" + _given_name(d.name) + " " + _given_cached(d.coarity, ty_sexp) + " "
                   + _given_cached(d.arity, ty_sexp) + ")")
    out.append(") (locs")
    for d in prog.locs:
        out.append(" (" + _given_name(d.name) + " (" + " ".join([str(n) for n in d.shape]) + "))")
    out.append(") (heap")
    for name, vals in prog.heap:
        out.append(" (" + _given_name(name) + " (" + " ".join([repr(float(v)) for v in vals]) + "))")
    out.append(")")
    if prog.fuel is not None:
        out.append(f" (fuel {prog.fuel})")
    out.append(" (main ")
    _given(prog.main, out)
    out.append("))")
    return "".join(out)


@deep
def program_sexp(prog: Program) -> str:
    """The program as one line of the S-expression format."""
    return _program_given(prog)


@deep
def coq_program_sexp(prog: Program) -> str:
    """The text ``rh-eval --print`` prints for the program it reads from
    :func:`program_sexp` (``print_program``, theories/rh/printer_spec.v):
    fields ``ops``, ``locs`` (sizes, :func:`size_dims`), ``heap``, ``main``
    (binders ``v0``, ``v1``, … by depth; ``x``, ``y``, ``z`` in clauses; a
    rev handle's binders as many as its body uses) and ``fuel``; numbers as
    rh-eval prints them.  Written apart from the Coq printer, to test one
    against the other."""
    return _program(prog, _ByDepth())


# ----------------------------------------------------------------- reading

# The readers recurse (under nesting.room(): parse_program); the components
# of a product or tuple are read by a list comprehension, not a generator
# passed to tuple(), which would add C frames to each level.

def read_ty(s) -> Ty:
    match head(s):
        case "real" if len(s) == 2:
            return TBase(read_nat(s[1]))
        case "prod":
            return TProd(tuple([read_ty(a) for a in s[1:]]))
    raise BadInput("syntax", f"not a type: {show(s)}")


def read_fsym(s) -> FSym:
    if head(s) == "rd" and len(s) == 2:
        return rd_fsym(read_fsym(s[1]))
    name = head(s)
    if name is None:
        raise BadInput("syntax", f"not a function symbol: {show(s)}")
    params = tuple(read_nat(a) for a in s[1:])
    if name not in PRIMS or PRIMS[name][1] != len(params):
        raise BadInput("unbound", f"unknown function symbol {name} with {len(params)} parameters")
    return FSym(0, Prim(name, params))


def read_tm(s) -> Tm:
    if is_atom(s):
        return Var(read_name(s))
    match head(s):
        case "const":
            return Const(tuple(read_num(x) for x in s[1:]))
        case "app" if len(s) == 3:
            return App(read_fsym(s[1]), read_tm(s[2]))
        case "add" if len(s) == 3:
            return Add(read_tm(s[1]), read_tm(s[2]))
        case "tuple":
            return Tuple(tuple([read_tm(x) for x in s[1:]]))
        case "proj" if len(s) == 3:
            return Proj(read_nat(s[1]), read_tm(s[2]))
        case "let" if len(s) == 4:
            return Let(read_name(s[1]), read_tm(s[2]), read_tm(s[3]))
        case "rd" if len(s) == 5:
            return Rd(read_tm(s[1]), read_name(s[2]), read_tm(s[3]), read_tm(s[4]))
    raise BadInput("syntax", f"not a term: {show(s)}")


def read_op(s) -> OpSym:
    if is_atom(s):
        return OpUser(read_name(s))
    match head(s):
        case "get" if len(s) == 2:
            return OpGet(read_name(s[1]))
        case "put" if len(s) == 2:
            return OpPut(read_name(s[1]))
    raise BadInput("syntax", f"not an operation: {show(s)}")


def read_handler(s) -> Handler:
    if head(s) != "handler" or len(s) < 2 or head(s[1]) != "return" or len(s[1]) != 3:
        raise BadInput("syntax", f"not a handler: {show(s)}")
    clauses = []
    for c in s[2:]:
        if (head(c) != "clause" or len(c) != 5 or not isinstance(c[3], list) or len(c[3]) != 2
                or not isinstance(c[4], list) or len(c[4]) != 3):
            raise BadInput("syntax", f"not a handler clause: {show(c)}")
        clauses.append(CCons(read_op(c[1]), read_ty(c[2]), read_name(c[3][0]), read_cmd(c[3][1]),
                             read_name(c[4][0]), read_name(c[4][1]), read_cmd(c[4][2])))
    return Handler(read_name(s[1][1]), read_cmd(s[1][2]), tuple(clauses))


def read_cmd(s) -> Cmd:
    match head(s):
        case "ret" if len(s) == 2:
            return Ret(read_tm(s[1]))
        case "op" if len(s) == 3:
            return Op(read_op(s[1]), read_tm(s[2]))
        case "let" if len(s) == 4:
            return CLet(read_name(s[1]), read_cmd(s[2]), read_cmd(s[3]))
        case "revhandle" if len(s) == 5 and isinstance(s[2], list):
            return RevHandle(read_tm(s[1]), tuple(read_name(x) for x in s[2]), read_cmd(s[3]), read_handler(s[4]))
    raise BadInput("syntax", f"not a command: {show(s)}")


def read_program(s) -> Program:
    if head(s) != "program":
        raise BadInput("syntax", "a program is (program (ops ...) (locs ...) (heap ...) (main COMMAND))")
    fields: dict[str, list] = {}
    for f in s[1:]:
        name = head(f)
        if name not in ("ops", "locs", "heap", "main", "fuel"):
            raise BadInput("syntax", f"unknown program field {show(f)}")
        if name in fields:
            raise BadInput("syntax", f"field {name} given twice")
        fields[name] = f[1:]
    ops = []
    for d in fields.get("ops", []):
        if not (isinstance(d, list) and len(d) == 3):
            raise BadInput("syntax", f"an operation is declared as (NAME COARITY ARITY), found {show(d)}")
        ops.append(OpDecl(read_name(d[0]), read_ty(d[1]), read_ty(d[2])))
    locs = []
    for d in fields.get("locs", []):
        if not (isinstance(d, list) and len(d) == 2 and isinstance(d[1], list)):
            raise BadInput("syntax", f"a location is declared as (NAME (n1 ... nt)), found {show(d)}")
        locs.append(LocDecl(read_name(d[0]), tuple(read_nat(n) for n in d[1])))
    heap = []
    for d in fields.get("heap", []):
        if not (isinstance(d, list) and len(d) == 2 and isinstance(d[1], list)):
            raise BadInput("syntax", f"a heap entry is (NAME (x1 ... xn)), found {show(d)}")
        heap.append((read_name(d[0]), tuple(read_num(x) for x in d[1])))
    main = fields.get("main")
    if not main or len(main) != 1:
        raise BadInput("syntax", "a program needs exactly one (main COMMAND)")
    fuel = None
    if "fuel" in fields:
        if len(fields["fuel"]) != 1:
            raise BadInput("syntax", "(fuel N)")
        fuel = read_nat(fields["fuel"][0])
    return Program(read_cmd(main[0]), tuple(ops), tuple(locs), tuple(heap), fuel)


def parse_program(text: str) -> Program:
    """A program from its S-expression text."""
    with room():
        return check_depth(read_program(loads(text, program=True)))


# ------------------------------------------------------------ results

def read_value(s):
    """A closed value as a numpy vector or a tuple of values."""
    match head(s):
        case "const":
            return np.array([read_float(x) for x in s[1:]], dtype=float)
        case "tuple":
            return tuple([read_value(x) for x in s[1:]])
    raise BadInput("syntax", f"not a value: {show(s)}")


@dataclass(frozen=True, eq=False)
class Result:
    """The result of running a program: its value, the final heap (every
    declared location) and the number of steps."""
    value: object
    heap: dict
    steps: int | None = None


def read_heap(s) -> dict[str, np.ndarray]:
    return {read_name(e[0]): np.array([read_float(x) for x in e[1]], dtype=float) for e in s[1:]}


def read_answer(line: str):
    """A line of ``rh-eval``: a :class:`Result`, a type (for ``check``), the
    names of the unhandled operations (for ``effects``), a trace ``(steps,
    Result)``, or raises the error it reports."""
    s = loads(line)
    match head(s):
        case "result":
            fields = {head(f): f for f in s[1:]}
            return Result(read_value(fields["value"][1]), read_heap(fields["heap"]), fields["steps"][1])
        case "ok":
            if head(s[1]) == "unhandled":    # (effects P): the operations no handler covers
                return [str(symbol(x) or x) for x in s[1][1:]]
            return read_ty(s[1][1])
        case "error":
            fields = {head(f): f[1] for f in s[1:]}
            rule = symbol(fields["rule"]) or "none"
            raise make_error(symbol(fields["kind"]), str(fields["message"]), rule)
        case "trace":
            *steps, last = s[1:]
            return [sexpdata.dumps(x) for x in steps], read_answer(sexpdata.dumps(last))
    raise RevHandlersError("internal", f"unexpected answer from rh-eval: {line[:200]}")
