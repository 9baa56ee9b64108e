"""Draw a program as the paper's string diagram, with Graphviz:
``revhandlers diagram FILE -o out.svg`` (or ``.png``, ``.dot``).

Operations are boxes, pure function symbols ellipses, and wires carry
values from where they are computed to where they are used; a
``rev handle`` is a framed region, labelled with the handler's explicit
clauses, whose inputs enter from its argument and whose result (the
cotangents of the inputs) leaves it."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from .ast import (Add, App, CLet, Cmd, Const, Let, Op, OpGet, OpPut, OpUser, Program, Proj, Rd, Ret,
                  RevHandle, Tm, Tuple, Var)
from .errors import BadInput
from .surface import pretty_fsym, pretty_op


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


class _Dot:
    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.indent = 1

    def node(self, label: str, **attrs) -> str:
        self.count += 1
        name = f"n{self.count}"
        extra = "".join(f' {k}="{_esc(str(v))}"' for k, v in attrs.items())
        self.lines.append("  " * self.indent + f'{name} [label="{_esc(label)}"{extra}];')
        return name

    def edge(self, a: str, b: str, label: str | None = None, **attrs) -> None:
        extra = "".join(f' {k}="{_esc(str(v))}"' for k, v in attrs.items())
        lab = f' [label="{_esc(label)}"{extra}]' if label else (f" [{extra.strip()}]" if extra else "")
        self.lines.append("  " * self.indent + f"{a} -> {b}{lab};")


def _const_label(values) -> str:
    shown = ", ".join(f"{v:g}" for v in values[:3])
    return "[" + shown + (", …" if len(values) > 3 else "") + "]"


def _term(d: _Dot, m: Tm, env: dict) -> str:
    match m:
        case Var(x):
            return env[x]
        case Const(values):
            return d.node(_const_label(values), shape="plaintext", fontsize=10)
        case App(f, arg):
            a = _term(d, arg, env)
            n = d.node(pretty_fsym(f), shape="ellipse", style="filled", fillcolor="#e8f0fe")
            d.edge(a, n)
            return n
        case Add(x, y):
            a, b = _term(d, x, env), _term(d, y, env)
            n = d.node("+", shape="circle", width=0.3, fixedsize=True)
            d.edge(a, n)
            d.edge(b, n)
            return n
        case Tuple(items):
            srcs = [_term(d, x, env) for x in items]
            n = d.node("⟨⟩", shape="point", width=0.08)
            for s in srcs:
                d.edge(s, n, arrowhead="none")
            return n
        case Proj(i, arg):
            a = _term(d, arg, env)
            n = d.node(f"π{i + 1}", shape="plaintext", fontsize=10)
            d.edge(a, n, arrowhead="none")
            return n
        case Let(x, bound, body):
            return _term(d, body, {**env, x: _term(d, bound, env)})
        case Rd(cot, x, body, point):
            c, p = _term(d, cot, env), _term(d, point, env)
            from .surface import pretty_tm
            n = d.node(f"rd({x}. {pretty_tm(body)})", shape="box", style="rounded,filled", fillcolor="#fde7e7")
            d.edge(c, n, "cotangent")
            d.edge(p, n, "point")
            return n
    raise TypeError(f"not a term: {m!r}")


def _cmd(d: _Dot, p: Cmd, env: dict, depth: int) -> str:
    match p:
        case Ret(m):
            return _term(d, m, env)
        case Op(o, m):
            unit_arg = isinstance(o, OpGet) and isinstance(m, Const) and not m.values
            a = None if unit_arg else _term(d, m, env)
            colour = "#fff4d6" if isinstance(o, OpUser) else "#e6f4ea"
            n = d.node(pretty_op(o) + ("()" if unit_arg else ""), shape="box", style="filled",
                       fillcolor=colour, penwidth=1.5)
            if a is not None:
                d.edge(a, n)
            return n
        case CLet(x, bound, body):
            return _cmd(d, body, {**env, x: _cmd(d, bound, env, depth)}, depth)
        case RevHandle(arg, xs, body, h):
            a = _term(d, arg, env)
            handled = ", ".join(pretty_op(c.op) for c in h.clauses) or "no explicit clause"
            d.count += 1
            cluster = f"cluster_{d.count}"
            d.lines.append("  " * d.indent + f"subgraph {cluster} {{")
            d.indent += 1
            d.lines.append("  " * d.indent +
                           f'label="{_esc("rev handle with {" + handled + "}")}"; style="rounded,dashed"; '
                           f'color="#555555"; fontsize=11;')
            inner = {}
            for i, x in enumerate(xs):
                inner[x] = d.node(x, shape="plaintext", fontcolor="#1a73e8")
                d.edge(a, inner[x], arrowhead="none", style="dashed")
            out = _cmd(d, body, inner, depth + 1)
            d.indent -= 1
            d.lines.append("  " * d.indent + "}")
            res = d.node("cotangents of " + ", ".join(xs), shape="plaintext", fontcolor="#c5221f")
            d.edge(out, res, style="dashed", color="#c5221f")
            return res
    raise TypeError(f"not a command: {p!r}")


def to_dot(prog: Program, title: str = "") -> str:
    d = _Dot()
    out = _cmd(d, prog.main, {}, 0)
    end = d.node("result", shape="doublecircle", width=0.3, fontsize=9)
    d.edge(out, end)
    header = ["digraph program {", '  rankdir=LR; node [fontname="Helvetica"]; edge [fontname="Helvetica", fontsize=9];']
    if title:
        header.append(f'  labelloc="t"; label="{_esc(title)}";')
    return "\n".join(header + d.lines + ["}"]) + "\n"


def render(prog: Program, path: Path, title: str = "") -> None:
    dot = to_dot(prog, title)
    fmt = path.suffix.lstrip(".").lower()
    if fmt == "dot":
        path.write_text(dot)
        return
    if fmt not in ("svg", "png", "pdf"):
        raise BadInput("syntax", f"the diagram's file must end in .svg, .png, .pdf or .dot, not {path.name}")
    exe = shutil.which("dot")
    if exe is None:
        raise BadInput("io", "Graphviz's `dot` is not installed (make deps installs it)")
    proc = subprocess.run([exe, f"-T{fmt}", "-o", str(path)], input=dot, text=True, capture_output=True)
    if proc.returncode != 0:
        raise BadInput("io", f"dot failed: {proc.stderr.strip()}")


def cmd_diagram(args, out) -> int:
    from . import load
    prog = load(args.file)
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    render(prog, path, args.title or Path(args.file).name)
    print(f"diagram: {path}", file=out)
    return 0


def register(sub) -> None:
    t = sub.add_parser("diagram", help="draw the program as a string diagram (Graphviz)")
    t.add_argument("file")
    t.add_argument("-o", "--output", required=True, help="out.svg, out.png, out.pdf or out.dot")
    t.add_argument("--title", default=None)
    t.set_defaults(func=cmd_diagram)
