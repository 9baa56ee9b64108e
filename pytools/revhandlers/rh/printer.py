"""Programs, terms and types printed in the surface syntax
(``docs/surface-syntax.md``): :func:`pretty` for a whole program (which
:func:`revhandlers.rh.surface.parse` reads back), and the short forms of
terms and types that error messages quote."""

from __future__ import annotations

import math
import re

from ..errors import BadInput, RevHandlersError
from . import nesting
from .sexp import tm_sexp
from .syntax import (Add, App, CLet, Cmd, Const, FSym, Handler, Let, Op, OpGet, OpPut, OpSym, OpUser, Program, Proj, Rd,
                     Ret, RevHandle, TBase, Tm, Tuple, Ty, Var)


def show_tm(m: Tm, width: int = 100) -> str:
    """A term in the surface syntax for a message: at most ``width``
    characters (cut with …)."""
    try:
        text = pretty_tm(m)
    except (TypeError, RecursionError, RevHandlersError):
        try:
            text = tm_sexp(m)
        except Exception:
            text = repr(m)
    return text if len(text) <= width else text[:width - 1] + "…"


# ------------------------------------------------------------ printing

_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_']*\Z")


def _num(x: float) -> str:
    if not math.isfinite(x):
        raise BadInput("number", f"{x} cannot be written in the surface syntax")
    return repr(float(x))


def _ty_pieces(t: Ty, nested: bool = False):
    """The text of a type, piece by piece, without recursion: ``Real(n)``,
    ``Prod()`` and ``Prod(A)`` for products of fewer than two components,
    else ``A * B * C``, in parentheses inside another product."""
    stack: list = [(t, nested)]
    while stack:
        item = stack.pop()
        if isinstance(item, str):
            yield item
            continue
        u, nest = item
        if isinstance(u, TBase):
            yield f"Real({u.n})"
        elif len(u.items) < 2:
            yield "Prod("
            stack.append(")")
            stack.extend((a, False) for a in u.items)
        else:
            if nest:
                yield "("
                stack.append(")")
            parts: list = []
            for i, a in enumerate(u.items):
                parts += [" * ", (a, True)] if i else [(a, True)]
            stack.extend(reversed(parts))


def pretty_ty(t: Ty, nested: bool = False) -> str:
    """A type in the surface syntax (without recursion)."""
    return "".join(_ty_pieces(t, nested))


def show_ty(t: Ty, width: int = 200) -> str:
    """A type in the surface syntax for a message: at most ``width``
    characters (cut with …), however large the type."""
    out, size = [], 0
    for piece in _ty_pieces(t):
        out.append(piece)
        size += len(piece)
        if size > width:
            return "".join(out)[:width - 1] + "…"
    return "".join(out)


def pretty_fsym(f: FSym) -> str:
    s = f"{f.prim.name}[{','.join(map(str, f.prim.params))}]"
    for _ in range(f.k):
        s = f"rd[{s}]"
    return s


def pretty_tm(m: Tm, level: int = 0) -> str:
    """level 0: any term; 1: a sum operand on the left; 2: a postfix/atom."""
    match m:
        case Var(x):
            return x
        case Const(values):
            return "[" + ", ".join(_num(v) for v in values) + "]"
        case App(f, arg):
            return f"{pretty_fsym(f)}({pretty_tm(arg)})"
        case Tuple(items):
            return "<" + ", ".join(pretty_tm(x) for x in items) + ">"
        case Proj(i, arg):
            return f"proj_{i + 1}({pretty_tm(arg)})"
        case Add(a, b):
            s = f"{pretty_tm(a, 1)} + {pretty_tm(b, 2)}"
            return s if level <= 1 else f"({s})"
        case Rd(cot, x, body, point):
            return f"{pretty_tm(cot, 2)}.rd({x}. {pretty_tm(body)})({pretty_tm(point)})"
        case Let(x, bound, body):
            s = f"let {x} <- {pretty_tm(bound)} in {pretty_tm(body)}"
            return s if level == 0 else f"({s})"
    raise TypeError(f"not a term: {m!r}")


def pretty_op(o: OpSym) -> str:
    match o:
        case OpUser(name):
            return name
        case OpGet(loc):
            return f"Get[{loc}]"
        case OpPut(loc):
            return f"Put[{loc}]"
    raise TypeError(f"not an operation: {o!r}")


def pretty_cmd(p: Cmd, indent: int = 0) -> str:
    pad = "  " * indent
    match p:
        case Ret(m):
            return f"[| {pretty_tm(m)} |]"
        case Op(OpGet(loc), Const(())):
            return f"Get[{loc}]()"
        case Op(o, m):
            return f"{pretty_op(o)}({pretty_tm(m)})"
        case CLet(x, bound, body):
            return f"let {x} <= {pretty_cmd(bound, indent + 1)} in\n{pad}{pretty_cmd(body, indent)}"
        case RevHandle(arg, xs, body, h):
            inner = "  " * (indent + 1)
            return (f"(rev handle({pretty_tm(arg)})<{', '.join(xs)}>.\n{inner}{pretty_cmd(body, indent + 1)}\n"
                    f"{pad}with {pretty_handler(h, indent)})")
    raise TypeError(f"not a command: {p!r}")


def pretty_handler(h: Handler, indent: int = 0) -> str:
    pad = "  " * (indent + 1)
    parts = [f"{pad}return {h.var} -> {pretty_cmd(h.ret, indent + 2)}"]
    for c in h.clauses:
        parts.append(f"{pad}{pretty_op(c.op)} : ({c.x} -> {pretty_cmd(c.fwd, indent + 2)}\n"
                     f"{pad}  | {c.y}, {c.z} : {pretty_ty(c.residual)} -> {pretty_cmd(c.bwd, indent + 2)})")
    return "{\n" + ";\n".join(parts) + "\n" + "  " * indent + "}"


def _program_names(prog: Program):
    """Every name of ``prog`` with what it names: (kind, name)."""
    for d in prog.ops:
        yield "operation", d.name
    for d in prog.locs:
        yield "location", d.name
    for name, _ in prog.heap:
        yield "location", name
    stack: list = [prog.main]
    while stack:
        node = stack.pop()
        match node:
            case Var(x):
                yield "variable", x
            case Let(x, a, b):
                yield "variable", x
                stack += [a, b]
            case Rd(a, x, b, c):
                yield "variable", x
                stack += [a, b, c]
            case App(_, a) | Proj(_, a) | Ret(a):
                stack.append(a)
            case Add(a, b):
                stack += [a, b]
            case Tuple(items):
                stack += list(items)
            case Op(o, a):
                stack += [o, a]
            case OpUser(name):
                yield "operation", name
            case OpGet(loc) | OpPut(loc):
                yield "location", loc
            case CLet(x, a, b):
                yield "variable", x
                stack += [a, b]
            case RevHandle(a, xs, body, h):
                for x in xs:
                    yield "variable", x
                yield "variable", h.var
                stack += [a, body, h.ret]
                for c in h.clauses:
                    yield from (("variable", c.x), ("variable", c.y), ("variable", c.z))
                    stack += [c.op, c.fwd, c.bwd]


_OPNAME = re.compile(r"([A-Za-z_][A-Za-z0-9_']*)(?:\[[A-Za-z_][A-Za-z0-9_']*(?:,[A-Za-z_][A-Za-z0-9_']*)*\])?\Z")


def _check_names(prog: Program) -> None:
    """Every name of ``prog`` can be written in the surface syntax, or a
    ``syntax`` error names the first that cannot."""
    for kind, name in _program_names(prog):
        m = _OPNAME.match(name) if kind == "operation" else None
        ok = (is_printable_name(m.group(1)) and (m.group(0) == name)) if m else is_printable_name(name)
        if not ok:
            raise BadInput("syntax", f"the {kind} name {name[:60]!r} cannot be written in the surface syntax "
                                     "(an identifier that is not a keyword); print the program as an "
                                     "S-expression instead")


@nesting.deep
def pretty(prog: Program) -> str:
    """The program in the surface syntax (ASCII); a ``syntax`` error if one
    of its names is not an identifier of the surface syntax."""
    _check_names(prog)
    lines = []
    for d in prog.ops:
        lines.append(f"op {d.name} : {pretty_ty(d.coarity)} ~> {pretty_ty(d.arity)}")
    for d in prog.locs:
        lines.append(f"loc {d.name} :: ({', '.join(map(str, d.shape))})")
    for name, values in prog.heap:
        lines.append(f"heap {name} = [{', '.join(_num(v) for v in values)}]")
    if prog.fuel is not None:
        lines.append(f"fuel {prog.fuel}")
    if lines:
        lines.append("")
    lines.append(pretty_cmd(prog.main))
    return "\n".join(lines) + "\n"


def is_printable_name(x: str) -> bool:
    return bool(_NAME.match(x)) and x not in _KEYWORDS and not re.match(r"proj_[0-9]", x)


_KEYWORDS = {"let", "in", "rev", "handle", "with", "return", "rd", "Get", "Put", "Real", "Prod",
             "op", "loc", "heap", "fuel"}
