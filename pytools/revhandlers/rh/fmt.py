"""``revhandlers fmt`` on a ``.rh`` file: the program laid out again from
its own text, keeping everything that is not whitespace.

The formatter works on the parse tree of the surface syntax (the grammar of
:mod:`revhandlers.rh.surface`) with every token kept as written: comments,
``param`` declarations and the parameter names used in types and
primitives, numbers as written (``1`` stays ``1``), the notation chosen
(ASCII or Unicode), residual types written or left out.  Only whitespace
changes:

* one declaration per line, at column 0, with canonical spacing inside;
* a command ``let x <= P in Q`` puts ``Q`` under its ``let`` (or keeps it
  after ``in`` when the text has it on that line and it is a simple
  command); ``rev handle(M)<x>.`` puts its body two columns in and
  ``with {`` under ``rev``; a handler has one clause a line, two columns in,
  with the backward part ``| y, z -> …`` of a clause under its forward part;
* inside a term or a simple command, line breaks stay where the text has
  them, continuation lines keeping their indentation relative to the start
  of the term;
* a comment stays after the token it follows on its line (at its column
  when there is room), or on its own line before the token it precedes;
  blank lines stay (several become one).

:func:`format_source` checks its result: the same tokens and comments in
the same order, and a program equal to the original when parsed again;
otherwise :class:`~revhandlers.errors.BadInput` (``fmt``), and the file is
not rewritten."""

from __future__ import annotations

from lark import Lark, Token, Tree
from lark.exceptions import UnexpectedInput

from ..errors import BadInput
from ..layout import Layout, checked_layout, tree_tokens
from .nesting import room
from .surface import GRAMMAR, parse

__all__ = ["format_source", "source_tokens", "has_params", "Layout", "checked_layout"]


class _Sink:
    """Where the lexer puts the comments of the text being parsed."""

    def __init__(self):
        self.comments: list[Token] = []

    def __call__(self, tok):
        self.comments.append(tok)
        return tok


_SINK = _Sink()
_PARSER = None


def _parser() -> Lark:
    global _PARSER
    if _PARSER is None:
        _PARSER = Lark(GRAMMAR, parser="lalr", keep_all_tokens=True, propagate_positions=True,
                       maybe_placeholders=True, lexer_callbacks={"COMMENT": _SINK})
    return _PARSER


def _concrete(text: str):
    """The parse tree of ``text`` with all its tokens, and its comments."""
    _SINK.comments = []
    try:
        tree = _parser().parse(text)
    except UnexpectedInput as e:      # surface.parse has already reported a better message
        raise BadInput("parse", f"cannot parse the program again: {str(e).splitlines()[0]}") from None
    return tree, sorted(_SINK.comments, key=lambda t: t.start_pos)


def source_tokens(text: str) -> list[str]:
    """Every token and comment of a ``.rh`` text, in order (comments without
    trailing whitespace): what :func:`format_source` keeps."""
    tree, comments = _concrete(text)
    toks = [(t.start_pos, t.value) for t in tree_tokens(tree)]
    toks += [(c.start_pos, c.value.rstrip()) for c in comments]
    return [v for _, v in sorted(toks)]


def has_params(text: str) -> bool:
    """Whether a ``.rh`` text declares a ``param``."""
    tree, _ = _concrete(text)
    return any(_is_tree(d, "param_decl") for d in tree.children)


_OPENERS = {"(", "[", "<", "⟨", "⌊"}
_CLOSERS = {")", "]", ",", ">", "⟩", ".", ";", "⌋"}


def _space(prev: Token, tok: Token) -> bool:
    """Whether one space separates ``prev`` and ``tok`` on a line."""
    p, t = prev.value, tok.value
    if p in _OPENERS or t in _CLOSERS:
        return False
    if t == "(" and (prev.type in ("NAME", "PROJ") or p in (")", "]", "handle", "Real", "Prod")):
        return False
    if t == "[" and (prev.type == "NAME" or p in ("rd", "Get", "Put")):
        return False
    if t in ("<", "⟨") and p == ")":          # rev handle(M)<x>
        return False
    if p == "." and t == "rd":
        return False
    return True


_STRUCTURED = ("clet", "revhandle", "acmd")


def _is_tree(node, *names) -> bool:
    return isinstance(node, Tree) and node.data in names


class _Printer:
    def __init__(self, layout: Layout):
        self.out = layout

    def program(self, tree: Tree):
        *decls, main = [c for c in tree.children if c is not None]
        for d in decls:
            self.out.inline(d, brk=0, least=2)
        self.cmd(main, brk=0)

    def cmd(self, node, brk: int | None):
        """A command starting on a new line at ``brk``, or after what is
        written (``brk`` None)."""
        out = self.out
        if _is_tree(node, "clet"):
            let, name, arrow, bound, in_, body = node.children
            col = out.token(let, brk)
            out.token(name)
            out.token(arrow)
            self.cmd(bound, None)
            out.token(in_)
            first = tree_tokens(body)[0]
            if not _is_tree(body, *_STRUCTURED) and first.line == in_.line:
                self.cmd(body, None)
            else:
                self.cmd(body, col)
        elif _is_tree(node, "revhandle"):
            kids = [c for c in node.children if c is not None]
            dot = next(i for i, c in enumerate(kids) if isinstance(c, Token) and c.value == ".")
            head, body, with_, handler = kids[:dot + 1], kids[dot + 1], kids[dot + 2], kids[dot + 3]
            col = out.inline(Tree("head", head), brk, least=(brk if brk is not None else out.col) + 2)
            dot_line = head[-1].line
            if not _is_tree(body, *_STRUCTURED) and tree_tokens(body)[0].line == dot_line:
                self.cmd(body, None)          # a short body stays on the line of rev handle
                out.token(with_, None if with_.line == tree_tokens(body)[-1].end_line else col)
            else:
                self.cmd(body, col + 2)
                out.token(with_, col)
            self.handler(handler, col)
        elif _is_tree(node, "acmd"):
            lpar, inner, rpar = node.children
            out.token(lpar, brk)
            self.cmd(inner, None)
            out.token(rpar)
        else:
            out.inline(node, brk, least=(brk if brk is not None else out.indent()) + 2)

    def handler(self, node: Tree, col: int):
        out = self.out
        kids = [c for c in node.children if c is not None]
        lbrace, ret, var, arrow, body, *rest = kids
        out.token(lbrace)
        out.token(ret, col + 2)
        out.token(var)
        out.token(arrow)
        self.cmd(body, None)
        for k in rest:
            if _is_tree(k, "clause"):
                self.clause(k, col + 2)
            elif k.value == "}":
                out.token(k, col, comment_col=col + 2)     # a comment before } is in the handler
            else:
                out.token(k)

    def clause(self, node: Tree, col: int):
        out = self.out
        kids = [c for c in node.children if c is not None]
        opref, colon, lpar, x, arrow, fwd, bar, *rest = kids
        out.inline(opref, col, least=col + 2)
        out.token(colon)
        paren = out.token(lpar)
        out.token(x)
        out.token(arrow)
        self.cmd(fwd, None)
        out.token(bar, max(paren - 1, col + 1))
        *head, bwd, rpar = rest            # y , z [: D] ->   P   )
        for k in head:
            for t in tree_tokens(k):
                out.token(t)
        self.cmd(bwd, None)
        out.token(rpar)


def _tight(tree: Tree) -> set[int]:
    """The tokens of operation names after their first (``FC[l0]`` is
    written without spaces, as the program names it)."""
    ids: set[int] = set()
    for node in tree.iter_subtrees():
        if node.data == "opname":
            ids.update(id(t) for t in tree_tokens(node)[1:])
    return ids


def _layout(text: str) -> str:
    tree, comments = _concrete(text)
    layout = Layout(comments, _tight(tree), space=_space)
    _Printer(layout).program(tree)
    return layout.finish()


def format_source(text: str, params: dict[str, int] | None = None) -> str:
    """The text of a ``.rh`` program laid out again (see the module's
    documentation): a syntax error as :func:`revhandlers.rh.surface.parse`
    reports it; :class:`BadInput` (``fmt``) if the result would not keep
    every token and comment of ``text`` or would parse to another program."""
    program = parse(text, params)
    with room():
        out = _layout(text)
    return checked_layout(text, out, source_tokens, program, lambda t: parse(t, params))
