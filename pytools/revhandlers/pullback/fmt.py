"""``revhandlers pullback fmt`` on a file of the surface syntax: the term
laid out again from its own text, keeping every token and comment.

Like the main language's formatter (:mod:`revhandlers.rh.fmt`; the
:class:`~revhandlers.layout.Layout` it shares writes the lines and places the comments
here too), only whitespace changes: the names, the numbers as written, the
tuple patterns of binders and the notation stay (``--ascii`` and
``--unicode`` change the spelling of the symbols, nothing else):

* the term starts at column 0; line breaks stay where the text has them,
  each line keeping its indentation relative to the term's first token;
* on a line, one space between tokens, none inside brackets (``(x)``,
  ``⟨1, 2⟩``, ``[1]*``), before ``,``, around ``:`` and ``^``, after ``λ``,
  before a postfix ``*`` or the ``.`` that ends a binder, between a
  function symbol or a projection and its ``(``: ``λ⟨x, y⟩:R^2. sin(x)``;
* a comment stays after the token it follows on its line (at its column
  when there is room), or on its own line before the token it precedes;
  blank lines stay (several become one).

:func:`format_source` checks its result: the same tokens (up to their
spelling) and comments in the same order, and the same term when parsed
again; otherwise :class:`~revhandlers.errors.BadInput` (``fmt``), and the
file is not rewritten."""

from __future__ import annotations

from lark import Token

from ..depth import room
from ..layout import Layout, checked_layout
from .surface import parse, scan
from .syntax import FUNCTIONS

__all__ = ["format_source", "source_tokens"]

#: the ASCII spelling of each symbol (by its canonical kind), and the
#: Unicode one; a binder's ``.`` is ``.`` in both
_ASCII = {"λ": "\\", "Ω": "Omega", "⟨": "<", "⟩": ">", "·": ".", "⇒": "->", "π1": "pi1", "π2": "pi2", "×": "*"}
_UNICODE = {k: k for k in _ASCII}
NOTATIONS = {"ascii": _ASCII, "unicode": _UNICODE}

_OPENERS = {"(", "⟨", "["}
_NO_SPACE_BEFORE = {")", "⟩", "]", ",", ":", "^", "*", "binder ."}


def _kind(tok, i: int, roles: dict[int, str]) -> str:
    """A token's kind, told apart where its spelling does not: ``binder .``
    (the ``.`` after a binder's type), ``×`` (a product, ``*`` in ASCII),
    ``fsym`` (a function symbol)."""
    role = roles.get(i)
    if role == "binder":
        return "binder ."
    if role == "product":
        return "×"
    if tok.kind == "name" and tok.text in FUNCTIONS:
        return "fsym"
    return tok.kind


def _space(prev: Token, tok: Token) -> bool:
    """Whether one space separates ``prev`` and ``tok`` on a line."""
    p, t = prev.type, tok.type
    if p in _OPENERS or t in _NO_SPACE_BEFORE or p in ("λ", ":", "^"):
        return False
    if t == "(" and p in ("fsym", "π1", "π2"):
        return False
    return True


def _spelling(tok, kind: str, notation: str | None) -> str:
    if notation is None:
        return tok.text
    if kind == "binder .":
        return "."
    return NOTATIONS[notation].get(kind, tok.text)


def _layout(text: str, notation: str | None) -> str:
    _, toks, comments, roles = scan(text)
    out = []
    for i, t in enumerate(toks):
        kind = _kind(t, i, roles)
        out.append(Token(kind, _spelling(t, kind, notation), start_pos=t.pos, line=t.line, column=t.col,
                         end_line=t.line))
    notes = [Token("COMMENT", c.text, start_pos=c.pos, line=c.line, column=c.col, end_line=c.line)
             for c in comments]
    layout = Layout(notes, space=_space)
    layout.segment(out, brk=0)
    return layout.finish()


def source_tokens(text: str) -> list[str]:
    """Every token of a term's text by its kind (names and numbers by their
    text; symbols whatever their spelling) and every comment (without
    trailing whitespace), in order: what :func:`format_source` keeps."""
    _, toks, comments, roles = scan(text)
    items = [(t.pos, t.text if t.kind in ("name", "num") else _kind(t, i, roles)) for i, t in enumerate(toks)]
    items += [(c.pos, c.text.rstrip()) for c in comments]
    return [v for _, v in sorted(items)]


def format_source(text: str, notation: str | None = None) -> str:
    """The text of a term laid out again (see the module's documentation),
    its symbols spelled in ``notation`` (``"ascii"``, ``"unicode"``; None:
    as written): a syntax error as :func:`.surface.parse` reports it;
    :class:`BadInput` (``fmt``) if the result would not keep every token and
    comment of ``text`` or would parse to another term."""
    if notation not in (None, *NOTATIONS):
        raise ValueError(f"not a notation: {notation!r}")
    term = parse(text)
    with room():
        out = _layout(text, notation)
    return checked_layout(text, out, source_tokens, term, parse)
