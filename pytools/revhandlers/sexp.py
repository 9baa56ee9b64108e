"""S-expressions of programs, results and errors, exactly as in
``docs/sexp-format.md`` (the format of ``rh-eval``), read with sexpdata."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass

import numpy as np
import sexpdata

from .ast import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl,
                  OpGet, OpPut, OpSym, OpUser, Prim, Program, Proj, Rd, Ret, RevHandle, TBase,
                  TProd, Tm, Tuple, Ty, Var)
from .nesting import MAX_NESTING, check_depth, deep, room, too_deep
from .errors import BadInput, RevHandlersError, make_error
from .prims import PRIMS

# ----------------------------------------------------------------- writing


def fnum(x: float) -> str:
    """A float that reads back as a float: always a ``.`` or an exponent,
    ``nan``, ``inf``, ``-inf`` spelled out."""
    x = float(x)
    if math.isnan(x):
        return "nan"
    if math.isinf(x):
        return "inf" if x > 0 else "-inf"
    return repr(x)


_PLAIN = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")


def _atom(name: str) -> str:
    """A name as an atom; quoted unless it is a plain identifier."""
    if _PLAIN.match(name):
        return name
    return '"' + name.replace("\\", "\\\\").replace('"', '\\"') + '"'



def ty_sexp(t: Ty) -> str:
    if isinstance(t, TBase):
        return f"(real {t.n})"
    return "(prod" + "".join(" " + ty_sexp(a) for a in t.items) + ")"


def fsym_sexp(f: FSym) -> str:
    s = f"({f.prim.name}" + "".join(f" {n}" for n in f.prim.params) + ")"
    for _ in range(f.k):
        s = f"(rd {s})"
    return s


def tm_sexp(m: Tm) -> str:
    match m:
        case Var(name):
            return _atom(name)
        case Const(values):
            return "(const" + "".join(" " + fnum(v) for v in values) + ")"
        case App(f, arg):
            return f"(app {fsym_sexp(f)} {tm_sexp(arg)})"
        case Add(a, b):
            return f"(add {tm_sexp(a)} {tm_sexp(b)})"
        case Tuple(items):
            return "(tuple" + "".join(" " + tm_sexp(x) for x in items) + ")"
        case Proj(i, arg):
            return f"(proj {i} {tm_sexp(arg)})"
        case Let(x, bound, body):
            return f"(let {_atom(x)} {tm_sexp(bound)} {tm_sexp(body)})"
        case Rd(cot, x, body, point):
            return f"(rd {tm_sexp(cot)} {_atom(x)} {tm_sexp(body)} {tm_sexp(point)})"
    raise TypeError(f"not a term: {m!r}")


def op_sexp(o: OpSym) -> str:
    match o:
        case OpUser(name):
            return _atom(name)
        case OpGet(loc):
            return f"(get {_atom(loc)})"
        case OpPut(loc):
            return f"(put {_atom(loc)})"
    raise TypeError(f"not an operation: {o!r}")


def handler_sexp(h: Handler) -> str:
    parts = [f"(return {_atom(h.var)} {cmd_sexp(h.ret)})"]
    for c in h.clauses:
        parts.append(f"(clause {op_sexp(c.op)} {ty_sexp(c.residual)} ({_atom(c.x)} {cmd_sexp(c.fwd)})"
                     f" ({_atom(c.y)} {_atom(c.z)} {cmd_sexp(c.bwd)}))")
    return "(handler " + " ".join(parts) + ")"


def cmd_sexp(p: Cmd) -> str:
    match p:
        case Ret(m):
            return f"(ret {tm_sexp(m)})"
        case Op(o, m):
            return f"(op {op_sexp(o)} {tm_sexp(m)})"
        case CLet(x, bound, body):
            return f"(let {_atom(x)} {cmd_sexp(bound)} {cmd_sexp(body)})"
        case RevHandle(arg, xs, body, h):
            return (f"(revhandle {tm_sexp(arg)} (" + " ".join(_atom(x) for x in xs) + f") "
                    f"{cmd_sexp(body)} {handler_sexp(h)})")
    raise TypeError(f"not a command: {p!r}")


@deep
def program_sexp(prog: Program) -> str:
    """The program as one line of the S-expression format."""
    parts = ["(ops" + "".join(f" ({_atom(d.name)} {ty_sexp(d.coarity)} {ty_sexp(d.arity)})" for d in prog.ops) + ")",
             "(locs" + "".join(f" ({_atom(d.name)} (" + " ".join(str(n) for n in d.shape) + "))" for d in prog.locs) + ")",
             "(heap" + "".join(f" ({_atom(name)} (" + " ".join(fnum(v) for v in vals) + "))" for name, vals in prog.heap) + ")"]
    if prog.fuel is not None:
        parts.append(f"(fuel {prog.fuel})")
    parts.append(f"(main {cmd_sexp(prog.main)})")
    return "(program " + " ".join(parts) + ")"


# ----------------------------------------------------------------- reading

def _sym(x) -> str | None:
    return x.value() if isinstance(x, sexpdata.Symbol) else None


def _head(x) -> str | None:
    return _sym(x[0]) if isinstance(x, list) and x else None


def _show(x) -> str:
    try:
        return sexpdata.dumps(x)
    except Exception:  # pragma: no cover - only for messages
        return repr(x)


def _name(x) -> str:
    s = x.value() if isinstance(x, sexpdata.Symbol) else x if isinstance(x, str) else None
    if s is None:
        raise BadInput("syntax", f"expected a name, found {_show(x)}")
    return s


def _nat(x) -> int:
    if isinstance(x, bool) or not isinstance(x, int) or x < 0:
        raise BadInput("syntax", f"expected a natural number, found {_show(x)}")
    return x


def _num(x) -> float:
    if isinstance(x, bool):
        raise BadInput("syntax", f"expected a number, found {_show(x)}")
    if isinstance(x, (int, float)):
        f = float(x)
    elif _sym(x) in ("nan", "inf", "-inf", "+inf"):
        raise BadInput("number", f"not a finite number: {_sym(x)}")
    else:
        raise BadInput("syntax", f"expected a number, found {_show(x)}")
    if not math.isfinite(f):
        raise BadInput("number", f"not a finite number: {_show(x)}")
    return f


def read_ty(s) -> Ty:
    match _head(s):
        case "real" if len(s) == 2:
            return TBase(_nat(s[1]))
        case "prod":
            return TProd(tuple(read_ty(a) for a in s[1:]))
    raise BadInput("syntax", f"not a type: {_show(s)}")


def read_fsym(s) -> FSym:
    if _head(s) == "rd" and len(s) == 2:
        inner = read_fsym(s[1])
        return FSym(inner.k + 1, inner.prim)
    name = _head(s)
    if name is None:
        raise BadInput("syntax", f"not a function symbol: {_show(s)}")
    params = tuple(_nat(a) for a in s[1:])
    if name not in PRIMS or PRIMS[name][1] != len(params):
        raise BadInput("unbound", f"unknown function symbol {name} with {len(params)} parameters")
    return FSym(0, Prim(name, params))


def read_tm(s) -> Tm:
    if isinstance(s, (sexpdata.Symbol, str)):
        return Var(_name(s))
    match _head(s):
        case "const":
            return Const(tuple(_num(x) for x in s[1:]))
        case "app" if len(s) == 3:
            return App(read_fsym(s[1]), read_tm(s[2]))
        case "add" if len(s) == 3:
            return Add(read_tm(s[1]), read_tm(s[2]))
        case "tuple":
            return Tuple(tuple(read_tm(x) for x in s[1:]))
        case "proj" if len(s) == 3:
            return Proj(_nat(s[1]), read_tm(s[2]))
        case "let" if len(s) == 4:
            return Let(_name(s[1]), read_tm(s[2]), read_tm(s[3]))
        case "rd" if len(s) == 5:
            return Rd(read_tm(s[1]), _name(s[2]), read_tm(s[3]), read_tm(s[4]))
    raise BadInput("syntax", f"not a term: {_show(s)}")


def read_op(s) -> OpSym:
    if isinstance(s, (sexpdata.Symbol, str)):
        return OpUser(_name(s))
    match _head(s):
        case "get" if len(s) == 2:
            return OpGet(_name(s[1]))
        case "put" if len(s) == 2:
            return OpPut(_name(s[1]))
    raise BadInput("syntax", f"not an operation: {_show(s)}")


def read_handler(s) -> Handler:
    if _head(s) != "handler" or len(s) < 2 or _head(s[1]) != "return" or len(s[1]) != 3:
        raise BadInput("syntax", f"not a handler: {_show(s)}")
    clauses = []
    for c in s[2:]:
        if (_head(c) != "clause" or len(c) != 5 or not isinstance(c[3], list) or len(c[3]) != 2
                or not isinstance(c[4], list) or len(c[4]) != 3):
            raise BadInput("syntax", f"not a handler clause: {_show(c)}")
        clauses.append(CCons(read_op(c[1]), read_ty(c[2]), _name(c[3][0]), read_cmd(c[3][1]),
                             _name(c[4][0]), _name(c[4][1]), read_cmd(c[4][2])))
    return Handler(_name(s[1][1]), read_cmd(s[1][2]), tuple(clauses))


def read_cmd(s) -> Cmd:
    match _head(s):
        case "ret" if len(s) == 2:
            return Ret(read_tm(s[1]))
        case "op" if len(s) == 3:
            return Op(read_op(s[1]), read_tm(s[2]))
        case "let" if len(s) == 4:
            return CLet(_name(s[1]), read_cmd(s[2]), read_cmd(s[3]))
        case "revhandle" if len(s) == 5 and isinstance(s[2], list):
            return RevHandle(read_tm(s[1]), tuple(_name(x) for x in s[2]), read_cmd(s[3]), read_handler(s[4]))
    raise BadInput("syntax", f"not a command: {_show(s)}")


def _paren_depth(text: str) -> int:
    """How deeply the parentheses of ``text`` nest (outside strings and
    comments), without recursion."""
    depth = deepest = 0
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
        elif c == ";":
            while i < n and text[i] != "\n":
                i += 1
        elif c == "(":
            depth += 1
            deepest = max(deepest, depth)
        elif c == ")":
            depth -= 1
        i += 1
    return deepest


# What the fast reader leaves to sexpdata: brackets, quotes, comments, escapes.
_SLOW = re.compile(r"[\[\]{};'\\]")
_TOKENS = re.compile(r'\(|\)|"[^"]*"|[^ \t\n\r\x0b\x0c()"]+')


def _read_atom(token: str):
    """sexpdata's reading of an atom: an int, else a float, else a symbol."""
    if "." not in token:
        try:
            return int(token)
        except ValueError:
            pass
    try:
        return float(token)
    except ValueError:
        return sexpdata.Symbol(token)


def _fast_loads(text: str):
    """What ``sexpdata.loads`` reads from ``text`` (lists, symbols, ints,
    floats, strings), without recursion and several times faster, for text
    made of parentheses, atoms and strings without escapes (the lines of
    ``rh-eval``); ``None`` for anything else, which sexpdata then reads."""
    if _SLOW.search(text) or text.count('"') % 2:
        return None
    stack: list[list] = []
    top: list = []
    cur = top
    for t in _TOKENS.findall(text):     # with an even number of ", nothing but whitespace is skipped
        if t == "(":
            stack.append(cur)
            cur = []
            if len(stack) > 4 * MAX_NESTING:       # far deeper than a program may be
                raise too_deep()
        elif t == ")":
            if not stack:
                return None
            done, cur = cur, stack.pop()
            cur.append(done)
        elif t[0] == '"':
            cur.append(t[1:-1])
        else:
            cur.append(_read_atom(t))
    if stack or len(top) != 1:
        return None
    return top[0]


def loads(text: str):
    """Parse one S-expression (as sexpdata does), as a :class:`BadInput` on
    failure.  The reader recurses: text nested far beyond what a program
    may be is rejected before it is read."""
    fast = _fast_loads(text)
    if fast is not None:
        return fast
    if text.count("(") > 4 * MAX_NESTING and _paren_depth(text) > 4 * MAX_NESTING:
        raise too_deep()
    try:
        with room():
            return sexpdata.loads(text, true=None, false=None, nil=None)
    except BadInput:
        raise
    except Exception as e:  # sexpdata raises several exception types
        raise BadInput("parse", f"malformed S-expression: {e}") from None


def read_program(s) -> Program:
    if _head(s) != "program":
        raise BadInput("syntax", "a program is (program (ops ...) (locs ...) (heap ...) (main COMMAND))")
    fields: dict[str, list] = {}
    for f in s[1:]:
        name = _head(f)
        if name not in ("ops", "locs", "heap", "main", "fuel"):
            raise BadInput("syntax", f"unknown program field {_show(f)}")
        if name in fields:
            raise BadInput("syntax", f"field {name} given twice")
        fields[name] = f[1:]
    ops = []
    for d in fields.get("ops", []):
        if not (isinstance(d, list) and len(d) == 3):
            raise BadInput("syntax", f"an operation is declared as (NAME COARITY ARITY), found {_show(d)}")
        ops.append(OpDecl(_name(d[0]), read_ty(d[1]), read_ty(d[2])))
    locs = []
    for d in fields.get("locs", []):
        if not (isinstance(d, list) and len(d) == 2 and isinstance(d[1], list)):
            raise BadInput("syntax", f"a location is declared as (NAME (n1 ... nt)), found {_show(d)}")
        locs.append(LocDecl(_name(d[0]), tuple(_nat(n) for n in d[1])))
    heap = []
    for d in fields.get("heap", []):
        if not (isinstance(d, list) and len(d) == 2 and isinstance(d[1], list)):
            raise BadInput("syntax", f"a heap entry is (NAME (x1 ... xn)), found {_show(d)}")
        heap.append((_name(d[0]), tuple(_num(x) for x in d[1])))
    main = fields.get("main")
    if not main or len(main) != 1:
        raise BadInput("syntax", "a program needs exactly one (main COMMAND)")
    fuel = None
    if "fuel" in fields:
        if len(fields["fuel"]) != 1:
            raise BadInput("syntax", "(fuel N)")
        fuel = _nat(fields["fuel"][0])
    return Program(read_cmd(main[0]), tuple(ops), tuple(locs), tuple(heap), fuel)


def parse_program(text: str) -> Program:
    """A program from its S-expression text."""
    with room():
        return check_depth(read_program(loads(text)))


# ------------------------------------------------------------ results

def read_value(s):
    """A closed value as a numpy vector or a tuple of values."""
    match _head(s):
        case "const":
            return np.array([_float_out(x) for x in s[1:]], dtype=float)
        case "tuple":
            return tuple(read_value(x) for x in s[1:])
    raise BadInput("syntax", f"not a value: {_show(s)}")


def _float_out(x) -> float:
    if isinstance(x, float):
        return x
    s = _sym(x)
    if s in ("nan", "inf", "-inf"):
        return float(s)
    raise BadInput("syntax", f"{_show(x)} is not a float (rh-eval always prints a '.' or an exponent)")


@dataclass(frozen=True, eq=False)
class Result:
    """The result of running a program: its value, the final heap (every
    declared location) and the number of steps."""
    value: object
    heap: dict
    steps: int | None = None


def read_heap(s) -> dict[str, np.ndarray]:
    return {_name(e[0]): np.array([_float_out(x) for x in e[1]], dtype=float) for e in s[1:]}


def read_answer(line: str):
    """A line of ``rh-eval``: a :class:`Result`, a type (for ``check``), a
    trace ``(steps, Result)``, or raises the error it reports."""
    s = loads(line)
    match _head(s):
        case "result":
            fields = {_head(f): f for f in s[1:]}
            return Result(read_value(fields["value"][1]), read_heap(fields["heap"]), fields["steps"][1])
        case "ok":
            return read_ty(s[1][1])
        case "error":
            fields = {_head(f): f[1] for f in s[1:]}
            rule = _sym(fields["rule"]) or "none"
            raise make_error(_sym(fields["kind"]), str(fields["message"]), rule)
        case "trace":
            *steps, last = s[1:]
            return [sexpdata.dumps(x) for x in steps], read_answer(sexpdata.dumps(last))
    raise RevHandlersError("internal", f"unexpected answer from rh-eval: {line[:200]}")
