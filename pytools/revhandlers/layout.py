"""Laying out a program's text again from its tokens, keeping every
token and comment: the lines and comments of a formatter (``revhandlers
fmt``, ``revhandlers pullback fmt``), and the check that a layout changed
only whitespace."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any

from lark import Token, Tree

from .errors import BadInput
from .tree import leaves

#: a token of a parse with positions (lark :class:`~lark.Token`, whose
#: ``start_pos``, ``line``, ``end_line`` and ``column`` such a parse sets)
Tok = Any


def tree_tokens(node: Tree[Token] | Token) -> list[Tok]:
    """The tokens below ``node``, in order (without recursion)."""
    def parts(n: Any) -> list[Any] | None:
        return None if isinstance(n, Token) else n.children if isinstance(n, Tree) else []
    return leaves(node, parts)


class Layout:
    """The text being written, line by line, and the comments of the source
    still to place.  It knows tokens only by their text and position (lark
    :class:`~lark.Token`: ``value``, ``start_pos``, ``line``, ``end_line``,
    ``column``), so that another language's formatter (the pullback
    language's, :mod:`revhandlers.pullback.fmt`) lays its tokens out with it;
    ``space(prev, tok)`` says whether one space separates two tokens on a
    line (``tight``: tokens never preceded by one)."""

    def __init__(self, comments: list[Tok], tight: Iterable[int] = frozenset(), *, space: Callable[[Tok, Tok], bool]) -> None:
        self.lines = [""]
        self.tight = set(tight)
        self.space = space
        self.comments = comments
        self.next_comment = 0
        self.prev: Tok | None = None     # the last token written
        self.last_line = 0                 # the source line where the last thing written ends
        self.need_break = False            # a comment ends the current line

    # ---- the output
    @property
    def col(self) -> int:
        return len(self.lines[-1])

    def _newline(self, col: int, blank: bool = False) -> None:
        if self.lines[-1].strip():
            self.lines[-1] = self.lines[-1].rstrip()
            self.lines.append("")
        if blank and len(self.lines) >= 2 and self.lines[-2].strip():
            self.lines[-1] = ""
            self.lines.append("")
        self.lines[-1] = " " * max(col, 0)
        self.need_break = False

    def _at_line_start(self) -> bool:
        return not self.lines[-1].strip()

    def _blank_before(self, line: int) -> bool:
        return self.last_line > 0 and line - self.last_line >= 2

    # ---- comments
    def _comments_before(self, pos: int | None, col_for: Callable[[Tok], int]) -> None:
        """Write the comments that start before offset ``pos`` (all if None);
        ``col_for(comment)`` is the column of one on its own line."""
        while self.next_comment < len(self.comments) and (pos is None or self.comments[self.next_comment].start_pos < pos):
            c = self.comments[self.next_comment]
            self.next_comment += 1
            text = c.value.rstrip()
            if self.prev is not None and c.line == self.last_line and not self._at_line_start():
                gap = (c.column - 1) - self.col
                self.lines[-1] += " " * (gap if gap >= 1 else 2) + text
            else:
                self._newline(col_for(c), blank=self._blank_before(c.line))
                self.lines[-1] += text
            self.last_line = c.end_line
            self.need_break = True

    # ---- tokens
    def token(self, tok: Tok, brk: int | None = None, seg: tuple[int, int, int] | None = None,
              comment_col: int | None = None) -> int:
        """Write ``tok``: on a new line at column ``brk`` if given; else on
        the current line, unless the source breaks the line before it inside
        the segment ``seg`` (or a comment ends the line), where it goes at
        its source column moved as the segment moved.  Returns the column."""
        def seg_col(t: Tok) -> int:
            if seg is None:
                return self.col if brk is None else brk
            src0, new0, least = seg
            column: int = t.column
            return max(least, (column - 1) - src0 + new0)

        self._comments_before(tok.start_pos, lambda c: comment_col if comment_col is not None
                              else brk if brk is not None else seg_col(c))
        if brk is not None:
            self._newline(brk, blank=self._blank_before(tok.line))
        elif self.need_break or (seg is not None and self.prev is not None and tok.line > self.last_line):
            self._newline(seg_col(tok) if seg is not None else self._continuation())
        elif self.prev is not None and not self._at_line_start() and id(tok) not in self.tight and self.space(self.prev, tok):
            self.lines[-1] += " "
        col = self.col
        self.lines[-1] += tok.value
        self.prev = tok
        self.last_line = tok.end_line
        return col

    def indent(self) -> int:
        """The indentation of the current line."""
        return len(self.lines[-1]) - len(self.lines[-1].lstrip())

    def _continuation(self) -> int:
        return self.indent() + 4

    def inline(self, node: Tree[Token] | Token, brk: int | None = None, least: int = 0) -> int:
        """Every token of ``node`` as one segment (line breaks as in the
        source); returns the column of its first token."""
        return self.segment(tree_tokens(node), brk, least)

    def segment(self, toks: list[Tok], brk: int | None = None, least: int = 0) -> int:
        """``toks`` as one segment: on the line of the first (a new line at
        ``brk`` if given), then line breaks where the source has them, each
        continuation line at its source column moved as the first token
        moved (``least`` at least); returns the column of the first."""
        if not toks:
            return self.col
        first = toks[0]
        col = self.token(first, brk)
        seg = (first.column - 1, col, least)
        for t in toks[1:]:
            self.token(t, seg=seg)
        return col

    def finish(self) -> str:
        self._comments_before(None, lambda c: 0)
        lines = [line.rstrip() for line in self.lines]
        while lines and not lines[-1]:
            lines.pop()
        return "\n".join(lines) + "\n"


def checked_layout(text: str, out: str, tokens: Callable[[str], list[str]], program: object,
                   parse: Callable[[str], object]) -> str:
    """``out``, the layout of ``text``, if ``tokens`` (a function of a text:
    its tokens and comments, as the layout must keep them) gives the same
    for both and ``parse(out)`` is ``program``; else :class:`BadInput`
    (``fmt``)."""
    if tokens(out) != tokens(text):
        raise BadInput("fmt", "fmt cannot lay this program out without changing its tokens or comments; "
                              "the file is left as it is")
    try:
        same = parse(out) == program
    except BadInput:
        same = False
    if not same:
        raise BadInput("fmt", "fmt's layout of this program parses to another program; the file is left as it is")
    return out
