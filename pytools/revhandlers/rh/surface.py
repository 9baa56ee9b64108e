"""The surface syntax of ``.rh`` files, close to the paper, in ASCII or
Unicode, parsed with Lark; and a pretty-printer, with
``parse(pretty(p)) == p``.  The reference is ``docs/surface-syntax.md``.

A file is declarations followed by one command; ``examples/one_layer.rh``
is the paper's §5.2 layer in full, and a short one reads::

    op FC : Real(2) ~> Real(3)            # or ▷
    loc l :: (2, 3)
    heap l = [1, 2, 3, 4, 5, 6]
    let w <= Get[l]() in [| matmul[3,2,1](<w, [0.5, -1.0]>) |]

| construct | ASCII | Unicode |
|---|---|---|
| term let | ``let x <- M in N`` | ``let x ← M in N`` |
| command let | ``let x <= P in Q`` | ``let x ⇐ P in Q`` |
| return | ``[| M |]`` | ``⌊M⌋`` |
| tuple | ``<M1, M2>`` | ``⟨M1, M2⟩`` |
| clause arrow | ``->`` | ``↦`` or ``→`` |
| operation type | ``A ~> B`` | ``A ▷ B`` |
| product type | ``A * B`` | ``A × B`` |

Constants are vectors ``[1.0, -2]`` (``[]`` is ``0 : Real(0)``); projections
count from 1 as in the paper (``proj_1``); function symbols carry their
parameters (``matmul[4,3,1](<w, x>)``, ``rd[swish[3]](<x, u>)``);
``M.rd(x. N)(L)`` is the reverse derivative; ``Get[l]()``, ``Put[l](M)``.
In a clause the residual type of ``z`` may be written (``y, z : D -> …``)
or left to be inferred from the forward clause.

Every term, command, clause, handler and declaration read records where it
starts (``pos``, outside equality), so that errors name the line and column
of the offending node; parse errors say what is missing for the common
mistakes (a primitive without ``[…]``, a missing ``in``, ``|]``, ``>``, ``;``).
"""

from __future__ import annotations

import math
import re

from lark import Lark, Token, Transformer, v_args

try:
    from lark.lexer import LexerThread
except ImportError:                         # another version of Lark: _lex asks the parser
    LexerThread = None
from dataclasses import replace

from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken, VisitError

from ..errors import BadInput, RevHandlersError, TypeCheckError
from . import nesting
from .prims import PRIM_PARAMS
from .printer import (  # noqa: F401  (re-exported)
    is_printable_name,
    pretty,
    pretty_cmd,
    pretty_fsym,
    pretty_handler,
    pretty_op,
    pretty_tm,
    pretty_ty,
    show_tm,
    show_ty,
)
from .sexp import MAX_NAT
from .syntax import (Add, App, CCons, CLet, Cmd, Const, FSym, Handler, Let, LocDecl, Op, OpDecl, OpGet, OpPut, OpUser,
                     Prim, Program, Proj, Rd, Ret, RevHandle, TBase, TProd, Tuple, Var)
from .typecheck import ar, check_cmd, check_cmd_names, check_op_known, coar, did_you_mean, op_signature, show_op

GRAMMAR = r"""
start: decl* cmd

decl: "op" opname ":" ty OPARROW ty           -> op_decl
    | "loc" NAME "::" "(" [nat ("," nat)*] ")"  -> loc_decl
    | "heap" NAME "=" vector                   -> heap_decl
    | "fuel" nat                               -> fuel_decl
    | "param" NAME "=" INT                     -> param_decl

?nat: nat_prod | nat "+" nat_prod              -> nat_add
    | nat "-" nat_prod                         -> nat_sub
?nat_prod: nat_atom | nat_prod TIMES nat_atom  -> nat_mul
?nat_atom: INT                                 -> nat_int
         | NAME                                -> nat_param
         | "(" nat ")"

?ty: prodty
?prodty: aty | aty (TIMES aty)+                -> tprod_infix
?aty: "Real" "(" nat ")"                       -> treal
    | "Prod" "(" [ty ("," ty)*] ")"            -> tprod
    | "(" ty ")"

?cmd: "let" NAME CLARROW cmd "in" cmd          -> clet
    | "rev" "handle" "(" term ")" TUPL [NAME ("," NAME)*] TUPR "." cmd "with" handler -> revhandle
    | acmd

?acmd: RETL term RETR                          -> ret
    | "Get" "[" NAME "]" "(" [term] ")"        -> get
    | "Put" "[" NAME "]" "(" term ")"          -> put
    | opname "(" term ")"                      -> op
    | "(" cmd ")"

handler: "{" "return" NAME ARROW cmd (";" clause)* [";"] "}"
clause: opref ":" "(" NAME ARROW cmd "|" NAME "," NAME [":" ty] ARROW cmd ")"
opref: "Get" "[" NAME "]"                      -> opget
     | "Put" "[" NAME "]"                      -> opput
     | opname                                  -> opuser
opname: NAME ["[" NAME ("," NAME)* "]"]

?term: "let" NAME TLARROW term "in" term       -> tlet
     | sum
?sum: postfix | sum "+" postfix                -> add
?postfix: atom
        | postfix "." "rd" "(" NAME "." term ")" "(" term ")" -> rd
?atom: NAME                                    -> var
     | vector                                  -> const
     | TUPL [term ("," term)*] TUPR            -> tuple
     | fsym "(" term ")"                       -> app
     | PROJ "(" term ")"                       -> proj
     | "(" term ")"
vector: "[" [number ("," number)*] "]"
number: SIGNED_NUMBER
fsym: NAME "[" nat ("," nat)* "]"              -> prim
    | "rd" "[" fsym "]"                        -> rdsym

PROJ.2: /proj_[0-9]+/
NAME: /(?!proj_[0-9])[A-Za-z_][A-Za-z0-9_']*/
OPARROW: "~>" | "▷"
TIMES: "*" | "×"
CLARROW: "<=" | "⇐"
TLARROW: "<-" | "←"
ARROW: "->" | "↦" | "→"
RETL: "[|" | "⌊"
RETR: "|]" | "⌋"
TUPL: "<" | "⟨"
TUPR: ">" | "⟩"

%import common.INT
%import common.SIGNED_NUMBER
%import common.WS
COMMENT: /#[^\n]*/
%ignore WS
%ignore COMMENT
"""

_PARSER = Lark(GRAMMAR, parser="lalr", propagate_positions=True, maybe_placeholders=True)

def _at(meta):
    """The (line, column) where a parse-tree node starts, or None."""
    if meta is None or getattr(meta, "empty", True):
        return None
    return (meta.line, meta.column)


def _tok_at(tok):
    return (tok.line, tok.column) if getattr(tok, "line", None) is not None else None


class _Build(Transformer):
    def __init__(self, params: dict[str, int]):
        super().__init__()
        self.params = params

    # ---- natural numbers: literals, parameters, sums and products
    def nat_int(self, a):
        return _nat_literal(a[0])

    def nat_param(self, a):
        name = str(a[0])
        if name not in self.params:
            raise BadInput("unbound", f"unknown parameter {name} (declare it with `param {name} = N`)"
                           + did_you_mean(name, self.params), pos=_tok_at(a[0]), checker="parser")
        return self.params[name]

    def nat_add(self, a):
        return a[0] + a[1]

    def nat_sub(self, a):
        return max(a[0] - a[1], 0)

    def nat_mul(self, a):
        return a[0] * a[2]

    def param_decl(self, a):
        return ("param", None)

    # ---- declarations
    @v_args(meta=True)
    def op_decl(self, meta, a):
        return ("op", OpDecl(a[0], a[1], a[3], pos=_at(meta)))

    @v_args(meta=True)
    def loc_decl(self, meta, a):
        return ("loc", LocDecl(str(a[0]), tuple(int(x) for x in a[1:] if x is not None), pos=_at(meta)))

    def heap_decl(self, a):
        return ("heap", (str(a[0]), a[1]))

    def fuel_decl(self, a):
        return ("fuel", a[0])

    def start(self, a):
        *decls, main = a
        decls = [d for d in decls if d[0] != "param"]
        ops = tuple(d for k, d in decls if k == "op")
        locs = tuple(d for k, d in decls if k == "loc")
        heap = tuple(d for k, d in decls if k == "heap")
        fuels = [d for k, d in decls if k == "fuel"]
        return Program(main, ops, locs, heap, fuels[-1] if fuels else None)

    # ---- types
    def treal(self, a):
        return TBase(a[0])

    def tprod(self, a):
        return TProd(tuple(x for x in a if x is not None))

    def tprod_infix(self, a):
        return TProd(tuple(x for x in a if not isinstance(x, Token)))

    # ---- commands
    @v_args(meta=True)
    def clet(self, meta, a):
        return CLet(str(a[0]), a[2], a[3], pos=_at(meta))

    @v_args(meta=True)
    def revhandle(self, meta, a):
        # a = [arg, TUPL, name or None, ..., TUPR, body, handler]
        arg, body, handler = a[0], a[-2], a[-1]
        names = tuple(str(t) for t in a[2:-3] if t is not None)
        return RevHandle(arg, names, body, handler, pos=_at(meta))

    @v_args(meta=True)
    def ret(self, meta, a):
        return Ret(a[1], pos=_at(meta))

    @v_args(meta=True)
    def get(self, meta, a):
        return Op(OpGet(str(a[0])), a[1] if a[1] is not None else Const(()), pos=_at(meta))

    @v_args(meta=True)
    def put(self, meta, a):
        return Op(OpPut(str(a[0])), a[1], pos=_at(meta))

    @v_args(meta=True)
    def op(self, meta, a):
        return Op(OpUser(a[0]), a[1], pos=_at(meta))

    @v_args(meta=True)
    def handler(self, meta, a):
        var, _arrow, ret, *clauses = a
        return Handler(str(var), ret, tuple(c for c in clauses if c is not None), pos=_at(meta))

    @v_args(meta=True)
    def clause(self, meta, a):
        op, x, _a1, fwd, y, z, residual, _a2, bwd = a
        return (op, residual, str(x), fwd, str(y), str(z), bwd, _at(meta))

    def opget(self, a):
        return OpGet(str(a[0]))

    def opput(self, a):
        return OpPut(str(a[0]))

    def opuser(self, a):
        return OpUser(a[0])

    def opname(self, a):
        base, *idx = a
        idx = [str(x) for x in idx if x is not None]
        return str(base) + (f"[{','.join(idx)}]" if idx else "")

    # ---- terms
    @v_args(meta=True)
    def tlet(self, meta, a):
        return Let(str(a[0]), a[2], a[3], pos=_at(meta))

    @v_args(meta=True)
    def add(self, meta, a):
        return Add(a[0], a[1], pos=_at(meta))

    @v_args(meta=True)
    def rd(self, meta, a):
        return Rd(a[0], str(a[1]), a[2], a[3], pos=_at(meta))

    @v_args(meta=True)
    def var(self, meta, a):
        return Var(str(a[0]), pos=_at(meta))

    @v_args(meta=True)
    def const(self, meta, a):
        return Const(a[0], pos=_at(meta))

    @v_args(meta=True)
    def tuple(self, meta, a):
        return Tuple(tuple(x for x in a[1:-1] if x is not None), pos=_at(meta))

    @v_args(meta=True)
    def app(self, meta, a):
        return App(a[0], a[1], pos=_at(meta))

    @v_args(meta=True)
    def proj(self, meta, a):
        i = _nat_literal(str(a[0])[len("proj_"):])
        if i < 1:
            raise BadInput("syntax", f"projections count from 1: proj_1, proj_2, … ({a[0]} does not exist; "
                           f"proj_1 is the first component)", pos=_at(meta), checker="parser")
        return Proj(i - 1, a[1], pos=_at(meta))

    def vector(self, a):
        return tuple(x for x in a if x is not None)

    def number(self, a):
        x = float(a[0])
        if not math.isfinite(x):
            raise BadInput("number", f"not a finite number: {a[0]}", pos=_tok_at(a[0]), checker="parser")
        return x

    def prim(self, a):
        name, *params = a
        return FSym(0, Prim(str(name), tuple(params)))

    def rdsym(self, a):
        return nesting.rd_fsym(a[0])


def _nat_literal(text) -> int:
    """A natural-number literal, at most rh-eval's bound (before any arithmetic
    on it: a literal of a million digits is not converted)."""
    t = str(text).lstrip("0") or "0"
    if len(t) > len(str(MAX_NAT)) or int(t) > MAX_NAT:
        raise BadInput("syntax", f"expected a natural number (0 to {MAX_NAT}), found {str(text)[:40]}")
    return int(t)


def _elaborate_residuals(prog: Program) -> Program:
    """Fill in every clause's residual type that the text leaves out: the
    second component of the forward clause's type."""


    def fix_cmd(p: Cmd) -> Cmd:
        match p:
            case CLet(_, b, body):
                return replace(p, bound=fix_cmd(b), body=fix_cmd(body))
            case RevHandle(_, _, body, h):
                return replace(p, body=fix_cmd(body), handler=fix_handler(h))
        return p

    def fix_handler(h: Handler) -> Handler:
        clauses = []
        for c in h.clauses:
            op, residual, x, fwd, y, z, bwd, pos = c
            fwd, bwd = fix_cmd(fwd), fix_cmd(bwd)
            if residual is None:
                check_op_known(op, prog, pos)
                check_cmd_names(fwd, (x,), prog, 1)
                t = check_cmd(((x, coar(op, prog)),), fwd, prog)
                if not (isinstance(t, TProd) and len(t.items) == 2):
                    raise TypeCheckError(
                        "typed_clauses_cons",
                        f"the forward clause of {show_op(op)} has type {show_ty(t)}, expected {show_ty(ar(op, prog))} "
                        f"* D: a pair of the result of {op_signature(op, prog)} and a residual D (its type, left out, "
                        f"is inferred from this pair)", pos=fwd.pos or pos, checker="python")
                residual = t.items[1]
            clauses.append(CCons(op, residual, x, fwd, y, z, bwd, pos=pos))
        return replace(h, ret=fix_cmd(h.ret), clauses=tuple(clauses))

    return replace(prog, main=fix_cmd(prog.main))


def parse(text: str, params: dict[str, int] | None = None) -> Program:
    """A program from its surface syntax; syntax errors name the line and
    column.  ``param NAME = N`` declarations name natural numbers used in
    types, shapes and primitive parameters; ``params`` overrides them.
    Residual types left out are inferred (which may raise a type error of
    the forward clause)."""
    try:
        tree = _PARSER.parse(text)
        values = {str(d.children[0]): _nat_literal(d.children[1]) for d in tree.children
                  if getattr(d, "data", None) == "param_decl"}
        for name, value in (params or {}).items():
            if name not in values:
                raise BadInput("unbound", f"the program declares no parameter {name}")
            values[name] = int(value)
        if _tree_depth(tree) > 4 * nesting.MAX_NESTING:     # surely too deep: do not recurse on it
            raise nesting.too_deep()
        with nesting.room():
            prog = _Build(values).transform(tree)
    except UnexpectedInput as e:
        pos, detail = _describe(e, text)
        raise BadInput("parse", detail, pos=pos, checker="parser") from None
    except VisitError as e:
        if isinstance(e.orig_exc, RevHandlersError):
            raise e.orig_exc from None
        raise
    with nesting.room():
        return nesting.check_depth(_elaborate_residuals(prog))


def _tree_depth(tree) -> int:
    """The depth of a parse tree, without recursion."""
    deepest, stack = 0, [(tree, 1)]
    while stack:
        t, d = stack.pop()
        deepest = max(deepest, d)
        stack.extend((c, d + 1) for c in getattr(t, "children", ()) if hasattr(c, "children"))
    return deepest


def _terminal_text(name: str) -> str:
    try:
        pattern = _PARSER.get_terminal(name).pattern
    except KeyError:
        return name
    if pattern.type == "str":
        return repr(pattern.value)
    return {"NAME": "a name", "INT": "a natural number", "SIGNED_NUMBER": "a number",
            "PROJ": "proj_i", "RETR": "'|]'", "RETL": "'[|'", "TUPL": "'<'", "TUPR": "'>'",
            "ARROW": "'->'", "CLARROW": "'<='", "TLARROW": "'<-'", "OPARROW": "'~>'",
            "TIMES": "'*'"}.get(name, name.lower())


_OPENERS = {"[|": "|]", "⌊": "⌋", "<": ">", "⟨": "⟩", "(": ")", "[": "]", "{": "}", "let": "in"}
_CLOSER_TYPES = {"|]": "RETR", "⌋": "RETR", ">": "TUPR", "⟩": "TUPR", ")": "RPAR", "]": "RSQB", "}": "RBRACE",
                 "in": "IN"}
_WHAT = {"[|": "the return `[|`", "⌊": "the return `⌊`", "<": "the tuple `<`", "⟨": "the tuple `⟨`",
         "(": "the `(`", "[": "the `[`", "{": "the handler's `{`"}


_LEXER = []


def _lex(text: str):
    """``_PARSER.lex(text)``, with one lexer built once (``Lark.lex`` builds
    a new one, and its scanner, at every call when the parser's lexer is
    the contextual one)."""
    if LexerThread is None:                  # another version of Lark
        return _PARSER.lex(text)
    try:
        if not _LEXER:
            _LEXER.append(_PARSER._build_lexer())
        return LexerThread.from_text(_LEXER[0], text).lex(None)
    except (ImportError, AttributeError):      # another version of Lark
        return _PARSER.lex(text)


def _tokens_before(text: str, end: int | None):
    """The tokens of ``text`` that start before offset ``end`` (all if None),
    as far as the lexer gets."""
    out = []
    try:
        for tok in _lex(text):
            if end is not None and tok.start_pos >= end:
                break
            out.append(tok)
    except Exception:                 # a lexing error further on: the tokens so far
        pass
    return out


def _open_constructs(tokens) -> list:
    """The brackets and ``let``s still open after ``tokens``: a stack of
    tokens, innermost last."""
    stack: list = []
    for tok in tokens:
        v = str(tok)
        if v in _OPENERS:
            stack.append(tok)
        elif v in _CLOSER_TYPES:
            for i in range(len(stack) - 1, -1, -1):
                if _OPENERS[str(stack[i])] == v or (v in (">", "⟩") and str(stack[i]) in ("<", "⟨")) \
                        or (v in ("|]", "⌋") and str(stack[i]) in ("[|", "⌊")):
                    del stack[i:]
                    break
                if str(stack[i]) != "let":          # a closer never skips an open bracket
                    break
    return stack


def _declared_ops(text: str) -> set[str]:
    return set(re.findall(r"^[ \t]*op[ \t]+([A-Za-z_][A-Za-z0-9_']*)", text, re.M))


def _describe(e: UnexpectedInput, text: str):
    """``(pos, message)`` for a parse error: specific for the common
    mistakes (a primitive without ``[…]``, a missing ``in``, ``|]``, ``>``,
    ``)``, ``;``, the two let arrows, ``->`` for ``~>``), else what was found
    and what was expected."""
    if isinstance(e, UnexpectedCharacters):
        ch = text[e.pos_in_stream]
        hint = ""
        if ch == "=" and text[e.pos_in_stream:e.pos_in_stream + 2] != "==":
            hint = " (a command let binds with `<=`, a term let with `<-`; `=` appears only in heap and param)"
        elif ch == "|":
            hint = " (a return is `[| M |]`; `|` alone separates the two parts of a handler clause)"
        return (e.line, e.column), f"unexpected character {ch!r}{hint}"
    if isinstance(e, UnexpectedEOF) or not isinstance(e, UnexpectedToken):
        return (e.line, e.column) if getattr(e, "line", -1) > 0 else None, \
            ("unexpected end of input" if isinstance(e, UnexpectedEOF) else str(e).splitlines()[0])
    tok = e.token
    expected = set(e.expected)
    eof = tok.type == "$END"
    before = _tokens_before(text, None if eof else tok.start_pos)
    if eof:
        last = before[-1] if before else None
        pos = (last.end_line, last.end_column) if last is not None and last.end_line else (e.line, e.column)
        found = "the end of the input"
    else:
        pos = (tok.line, tok.column)
        found = repr(str(tok))

    # 1. something applied in a term that is not a primitive with [params]
    if tok.type == "LPAR" and before and before[-1].type == "NAME" and "LSQB" in expected:
        name = str(before[-1])
        pos = (before[-1].line, before[-1].column)
        if name in PRIM_PARAMS:
            return pos, f"the primitive {name} needs its parameters in brackets: {name}[{PRIM_PARAMS[name]}](…)"
        if name in _declared_ops(text):
            return pos, (f"{name} is an operation: perform it in a command, `let y <= {name}(…) in …`, "
                         "not inside a term")
        return pos, (f"{name}(…) inside a term: only a primitive is applied there, written with its "
                     f"parameters, name[params](…)" + did_you_mean(name, PRIM_PARAMS))
    # 2. the two lets, and the arrow of an operation's type
    if tok.type == "TLARROW" and "CLARROW" in expected:
        return pos, ("a command let binds with `<=` (`let x <= P in Q`); `<-` binds in a term let, "
                     "inside [| … |]")
    if tok.type == "CLARROW" and "TLARROW" in expected:
        return pos, ("a term let binds with `<-` (`let x <- M in N`); `<=` binds a command, "
                     "outside [| … |]")
    if tok.type == "ARROW" and "OPARROW" in expected:
        return pos, "an operation's type is written A ~> B (or A ▷ B), not with ->"
    # 3. a construct left open: say which and where it opened
    stack = _open_constructs(before)
    if stack:
        top = stack[-1]
        opened = f"line {top.line}, column {top.column}"
        closer = _OPENERS[str(top)]
        if str(top) == "let" and "IN" in expected:
            return pos, f"missing `in` after the let at {opened} (`let x <= P in Q`); found {found}"
        if str(top) == "{" and "SEMICOLON" in expected and not eof and tok.type in ("NAME", "GET", "PUT"):
            return pos, "missing `;` before this clause (the clauses of a handler are separated by `;`)"
        if str(top) != "let" and _CLOSER_TYPES.get(closer) in expected:
            return pos, f"missing `{closer}` to close {_WHAT[str(top)]} at {opened}; found {found}"
    if tok.type == "RBRACE" and "SEMICOLON" not in expected and before and str(before[-1]) == "{":
        return pos, "a handler starts with its return clause: { return x -> P; … }"
    # 4. a few more shapes of the same mistakes
    if expected == {"VBAR"}:
        return pos, (f"missing `|` between the forward and the backward part of a clause "
                     f"(OP : (x -> Pf | y, z -> Pb)); found {found}")
    if expected == {"LPAR"} and len(before) >= 4 and str(before[-4]) in ("Get", "Put"):
        return pos, f"{before[-4]}[{before[-2]}] takes its argument in parentheses: Get[l](), Put[l](M)"
    if expected == {"RD"} and tok.type in ("INT", "SIGNED_NUMBER"):
        return pos, "a projection is written proj_1(M) (counting from 1), not M.1"
    if eof and {"RETL", "LET", "REV"} <= expected:
        return pos, "missing the main command: a program is declarations followed by one command"
    if eof:
        return pos, "unexpected end of input" + _expected(expected)
    return pos, f"unexpected {found}" + _expected(expected)


def _expected(expected) -> str:
    names = sorted({_terminal_text(t) for t in expected if t != "$END"})[:10]
    return f"; expected one of {' '.join(names)}" if names else ""
