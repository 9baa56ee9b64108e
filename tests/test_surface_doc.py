"""docs/surface-syntax.md: every ```rh example parses and type-checks (a
program, or a term wrapped in a returning program), and the primitives'
table names every primitive of the instance."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import revhandlers as rh
from revhandlers.rh.prims import PRIMS

DOC = Path(__file__).resolve().parents[1] / "docs" / "surface-syntax.md"
BLOCKS = re.findall(r"```rh\n(.*?)```", DOC.read_text(), re.S)


def test_the_page_has_examples():
    assert len(BLOCKS) >= 4


@pytest.mark.parametrize("i", range(len(BLOCKS)))
def test_example_parses_and_checks(i):
    text = BLOCKS[i]
    try:
        prog = rh.parse(text)
    except rh.BadInput:
        prog = rh.parse(f"[| {text.strip()} |]")      # a term
    rh.check(prog, engine="reference")
    from revhandlers.rh.surface import pretty
    assert rh.parse(pretty(prog)) == prog


def test_every_primitive_is_documented():
    table = DOC.read_text()
    for name in PRIMS:
        assert f"`{name}[" in table, name
