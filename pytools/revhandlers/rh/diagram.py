"""Draw a program as the paper's string diagram, with Graphviz:
``revhandlers diagram FILE -o out.svg`` (or ``.png``, ``.dot``).

Operations are boxes, pure function symbols ellipses, and wires carry
values from where they are computed to where they are used; a
``rev handle`` is a framed region, labelled with the handler's explicit
clauses, whose inputs enter from its argument and whose result (the
cotangents of the inputs) leaves it.  An operation the handler gives a
clause for says under its name what the clause does forward and backward
(``forward: round``, ``backward: identity``: the function symbols, without
their parameters, and the operations of each part, or ``identity`` when a
part returns its input).
``--backward`` also draws every clause in full, its forward part and its
backward part side by side.  A long chain is drawn top to bottom rather
than left to right, so that the diagram stays readable at page width."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

from ..errors import BadInput
from .program import load
from .surface import pretty_fsym, pretty_op, pretty_tm
from .syntax import (Add, App, CLet, Cmd, Const, Let, Op, OpGet, OpUser, Program, Proj, Rd, Ret, RevHandle, Tm, Tuple,
                     Var)


def _esc(s: str) -> str:
    return s.replace("\\", "\\\\").replace('"', '\\"')


def _attrs(attrs: dict) -> str:
    """Graphviz attributes ``k="v"``, each after a space."""
    return "".join(f' {k}="{_esc(str(v))}"' for k, v in attrs.items())


class _Dot:
    def __init__(self):
        self.lines: list[str] = []
        self.count = 0
        self.indent = 1
        self.edges: list[tuple[str, str]] = []
        #: the handled operations: name -> (forward summary, backward summary)
        self.handled: dict[str, tuple[str, str]] = {}

    def raw(self, line: str) -> None:
        self.lines.append("  " * self.indent + line)

    def node(self, label: str, **attrs) -> str:
        return self._node(f'"{_esc(label)}"', attrs)

    def html_node(self, html: str, **attrs) -> str:
        """A node whose label is Graphviz's HTML-like ``html``."""
        return self._node(f"<{html}>", attrs)

    def _node(self, label: str, attrs: dict) -> str:
        """A new node with ``label`` as Graphviz reads it (quoted or HTML-like)."""
        self.count += 1
        name = f"n{self.count}"
        self.lines.append("  " * self.indent + f"{name} [label={label}{_attrs(attrs)}];")
        return name

    def edge(self, a: str, b: str, label: str | None = None, **attrs) -> None:
        extra = _attrs(attrs)
        lab = f' [label="{_esc(label)}"{extra}]' if label else (f" [{extra.strip()}]" if extra else "")
        self.lines.append("  " * self.indent + f"{a} -> {b}{lab};")
        if attrs.get("style") != "invis":
            self.edges.append((a, b))

    def longest_chain(self) -> int:
        """The number of nodes on the longest path of wires."""
        succ: dict[str, list[str]] = {}
        indeg: dict[str, int] = {}
        for a, b in self.edges:
            succ.setdefault(a, []).append(b)
            indeg[b] = indeg.get(b, 0) + 1
            indeg.setdefault(a, 0)
        order = [n for n, k in indeg.items() if k == 0]
        length = {n: 1 for n in indeg}
        i = 0
        while i < len(order):
            n = order[i]
            i += 1
            for m in succ.get(n, ()):
                length[m] = max(length[m], length[n] + 1)
                indeg[m] -= 1
                if indeg[m] == 0:
                    order.append(m)
        return max(length.values(), default=0)


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
            name = pretty_op(o) + ("()" if unit_arg else "")
            if pretty_op(o) in d.handled:
                fwd, bwd = d.handled[pretty_op(o)]
                n = d.html_node(_op_label(name, fwd, bwd), shape="box", style="filled", fillcolor=colour,
                                penwidth=1.5, tooltip=name)
            else:
                n = d.node(name, shape="box", style="filled", fillcolor=colour, penwidth=1.5)
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
            outer = d.handled
            d.handled = {**outer, **{pretty_op(c.op): _clause_summary(c) for c in h.clauses}}
            out = _cmd(d, body, inner, depth + 1)
            d.handled = outer
            d.indent -= 1
            d.lines.append("  " * d.indent + "}")
            res = d.node("cotangents of " + ", ".join(xs), shape="plaintext", fontcolor="#c5221f")
            d.edge(out, res, style="dashed", color="#c5221f")
            return res
    raise TypeError(f"not a command: {p!r}")


def _html(s: str) -> str:
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;")


def _op_label(name: str, fwd: str, bwd: str) -> str:
    """An operation's box: its name, then what its clause does each way."""
    return (f'<TABLE BORDER="0" CELLSPACING="0" CELLPADDING="1"><TR><TD>{_html(name)}</TD></TR>'
            f'<TR><TD><FONT POINT-SIZE="10" COLOR="#1a73e8">forward: {_html(fwd)}</FONT></TD></TR>'
            f'<TR><TD><FONT POINT-SIZE="10" COLOR="#c5221f">backward: {_html(bwd)}</FONT></TD></TR></TABLE>')


def _uses(p, out: list[str]) -> None:
    """The function symbols and operations of a command or term, in order."""
    stack = [p]
    while stack:
        node = stack.pop()
        match node:
            case App(f, arg):
                out.append("rd[" * f.k + f.prim.name + "]" * f.k)      # without its parameters
                stack.append(arg)
            case Op(o, arg):
                out.append(pretty_op(o))
                stack.append(arg)
            case Rd(cot, x, body, point):
                out.append(f"rd({x}. …)")
                stack += [point, body, cot]
            case Let(_, a, b) | CLet(_, a, b) | Add(a, b):
                stack += [b, a]
            case Tuple(items):
                stack += list(reversed(items))
            case Proj(_, a) | Ret(a):
                stack.append(a)
            case RevHandle(a, _, body, _):
                out.append("rev handle")
                stack += [body, a]


def _summary(p: Cmd, identity_var: str, first_of_pair: bool) -> str:
    """What a clause part computes: ``identity`` when it returns its input
    (the first component of a pair for a forward part), else the function
    symbols and operations it uses (``—`` for none)."""
    if isinstance(p, Ret):
        m = p.term
        if first_of_pair and isinstance(m, Tuple) and len(m.items) == 2:
            m = m.items[0]
        if isinstance(m, Var) and m.name == identity_var:
            return "identity"
    used: list[str] = []
    _uses(p, used)
    seen = list(dict.fromkeys(used))
    return ", ".join(seen) if seen else "—"


def _clause_summary(c) -> tuple[str, str]:
    return _summary(c.fwd, c.x, True), _summary(c.bwd, c.y, False)


def _clauses(d: _Dot, h) -> None:
    """Every clause of handler ``h`` in full: its forward part (from ``x``)
    and, beside it, its backward part (from ``y`` and the residual ``z``)."""
    for c in h.clauses:
        name = pretty_op(c.op)
        d.count += 1
        d.raw(f"subgraph cluster_{d.count} {{")
        d.indent += 1
        d.raw(f'label="{_esc(name + " : its clause")}"; style="rounded"; color="#888888"; fontsize=11;')
        for label, colour, inputs, body in (("forward", "#1a73e8", (c.x,), c.fwd),
                                            ("backward", "#c5221f", (c.y, c.z), c.bwd)):
            d.count += 1
            d.raw(f"subgraph cluster_{d.count} {{")
            d.indent += 1
            d.raw(f'label="{_esc(label + " " + ", ".join(inputs) + " ↦ …")}"; style="dashed"; '
                  f'color="{colour}"; fontcolor="{colour}"; fontsize=10;')
            env = {v: d.node(v, shape="plaintext", fontcolor=colour) for v in inputs}
            try:
                res = _cmd(d, body, env, 1)
            except KeyError:            # a variable of the enclosing program: not drawn in a clause
                res = d.node("…", shape="plaintext")
            end = d.node(label + " result", shape="plaintext", fontsize=10, fontcolor=colour)
            d.edge(res, end, color=colour)
            d.indent -= 1
            d.raw("}")
        d.indent -= 1
        d.raw("}")


def _handlers(p: Cmd):
    """Every handler of a command, outermost first."""
    stack = [p]
    while stack:
        node = stack.pop()
        match node:
            case CLet(_, a, b):
                stack += [b, a]
            case RevHandle(_, _, body, h):
                yield h
                stack += [c.bwd for c in reversed(h.clauses)] + [c.fwd for c in reversed(h.clauses)]
                stack += [h.ret, body]


#: chains longer than this (in nodes) are drawn top to bottom
LONG_CHAIN = 14


def to_dot(prog: Program, title: str = "", backward: bool = False, rankdir: str = "auto") -> str:
    """The program as a Graphviz graph; ``backward``: every handler clause
    drawn in full too.  ``rankdir`` LR, TB, or auto: TB when the longest
    chain of wires has more than :data:`LONG_CHAIN` nodes."""
    d = _Dot()
    out = _cmd(d, prog.main, {}, 0)
    end = d.node("result", shape="doublecircle", width=0.3, fontsize=9)
    d.edge(out, end)
    if backward:
        for h in _handlers(prog.main):
            _clauses(d, h)

    def graph(direction: str) -> str:
        header = ["digraph program {",
                  f'  rankdir={direction}; node [fontname="Helvetica"]; edge [fontname="Helvetica", fontsize=9];']
        if title:
            header.append(f'  labelloc="t"; label="{_esc(title)}";')
        return "\n".join(header + d.lines + ["}"]) + "\n"

    if rankdir == "auto":
        rankdir = _direction(graph, d)
    return graph(rankdir)


#: the width of a page, in pixels (96 per inch): a diagram drawn left to
#: right that is wider goes top to bottom, if that is narrower
PAGE_WIDTH_PX = 1400


def _width_px(dot_text: str) -> float | None:
    """The width of Graphviz's layout of ``dot_text`` in pixels, or None
    without Graphviz."""
    exe = shutil.which("dot")
    if exe is None:
        return None
    proc = subprocess.run([exe, "-Tplain"], input=dot_text, text=True, capture_output=True)
    if proc.returncode != 0 or not proc.stdout.startswith("graph "):
        return None
    return float(proc.stdout.split()[2]) * 96


def _direction(graph, d: _Dot) -> str:
    """LR, unless the diagram is then wider than a page and TB is narrower;
    without Graphviz, TB for a chain longer than :data:`LONG_CHAIN`."""
    wide = _width_px(graph("LR"))
    if wide is None:
        return "TB" if d.longest_chain() > LONG_CHAIN else "LR"
    if wide <= PAGE_WIDTH_PX:
        return "LR"
    tall = _width_px(graph("TB"))
    return "TB" if tall is not None and tall < wide else "LR"


def render(prog: Program, path: Path, title: str = "", backward: bool = False, rankdir: str = "auto") -> None:
    dot = to_dot(prog, title, backward, rankdir)
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
    prog = load(args.file)
    path = Path(args.output)
    path.parent.mkdir(parents=True, exist_ok=True)
    render(prog, path, args.title or Path(args.file).name, args.backward, args.rankdir)
    print(f"diagram: {path}", file=out)
    return 0


def register(sub) -> None:
    t = sub.add_parser("diagram", help="draw the program as a string diagram (Graphviz)")
    t.add_argument("file")
    t.add_argument("-o", "--output", required=True, help="out.svg, out.png, out.pdf or out.dot")
    t.add_argument("--title", default=None)
    t.add_argument("--backward", action="store_true",
                   help="also draw every handler clause in full, its backward part beside its forward part")
    t.add_argument("--rankdir", choices=("auto", "LR", "TB"), default="auto",
                   help="left to right, top to bottom, or auto (default): top to bottom for long chains")
    t.set_defaults(func=cmd_diagram)
