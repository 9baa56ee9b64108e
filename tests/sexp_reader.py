"""A minimal reader of the S-expressions the extracted drivers answer with,
for the tests of those answers: written here, independently of the
package's reader (:mod:`revhandlers.sexpio`), so that a test reads a
driver's answer without the code under test."""

from __future__ import annotations

import re

#: one token after white space: ``(``, ``)``, a quoted atom, or a bare atom
TOKEN = re.compile(r'\s*(?:(\()|(\))|"((?:[^"\\]|\\.)*)"|([^\s()"]+))')


def read_sexp(text: str):
    """The one S-expression of ``text``: nested lists of atoms, each atom a
    string (a quoted atom without its quotes, its escapes undone)."""
    text = text.strip()
    pos, stack = 0, [[]]
    while pos < len(text):
        m = TOKEN.match(text, pos)
        assert m, f"cannot read {text[pos:pos + 50]!r}"
        pos = m.end()
        opening, closing, quoted, bare = m.groups()
        if opening:
            stack.append([])
        elif closing:
            assert len(stack) > 1, f"a ')' closes nothing in {text[:2000]!r}"
            done = stack.pop()
            stack[-1].append(done)
        else:
            stack[-1].append(bare if quoted is None else bytes(quoted, "utf-8").decode("unicode_escape"))
    assert len(stack) == 1 and len(stack[0]) == 1, text[:2000]
    return stack[0][0]
