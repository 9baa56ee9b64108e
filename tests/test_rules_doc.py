"""docs/rules.md, the rules the main calculus's theorems speak of, is
generated from the Coq sources by scripts/gen-rules.py (`make rules`).

Checked here: the document is current (the sources give the same text),
and for every relation it covers, the constructors it names are exactly
the constructors Coq itself reports for that relation (`Print`, on the
compiled theories that `make test` builds first), in Coq's order: a rule
added to or removed from the proofs without the document following fails
here, and so does a rule the document names that does not exist."""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path

import pytest

from revhandlers.coq import run_coqc

ROOT = Path(__file__).resolve().parents[1]
DOC = ROOT / "docs" / "rules.md"
SCRIPT = ROOT / "scripts" / "gen-rules.py"


def _gen():
    spec = importlib.util.spec_from_file_location("gen_rules", SCRIPT)
    assert spec is not None and spec.loader is not None
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod   # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


def test_rules_doc_is_current():
    p = subprocess.run([sys.executable, str(SCRIPT), "--check"], cwd=ROOT, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr + "\n(run `make rules` and commit docs/rules.md)"


def _doc_constructors() -> dict[str, list[str]]:
    """Relation name -> constructor names, as the document lists them."""
    found: dict[str, list[str]] = {}
    current = None
    for line in DOC.read_text().splitlines():
        m = re.match(r"^## .*: `(\w+)`$", line)
        if m:
            current = m.group(1)
            found[current] = []
            continue
        m = re.match(r"^### `([\w']+)`", line)
        if m:
            assert current is not None, line
            found[current].append(m.group(1))
    return found


@pytest.fixture(scope="module")
def coq_constructors() -> dict[str, list[str]]:
    """Relation name -> constructor names, as Coq prints the relation."""
    gen = _gen()
    names = [name for _, name, _ in gen.RELATIONS]
    src = ("From RevHandlers Require Import typing term_sem rdr_rel rh cmd_sem.\n"
           "Set Printing Width 100000.\n"
           + "".join(f"Print {n}.\n" for n in names))
    res = run_coqc(src, timeout=300)
    assert res.ok, res.stderr
    out: dict[str, list[str]] = {}
    # With a wide printing width, each block of an inductive is one line:
    # `Inductive NAME (params) : arity :=  c1 : T1 | c2 : T2 …`, and
    # `  with NAME' (params) : arity := …` for each mutual relation.
    for line in res.stdout.splitlines():
        m = re.match(r"^(?:Inductive|\s+with)\s+([\w']+)\s*[(:]", line)
        if not m:
            continue
        body = line.split(":=", 1)[1]
        out[m.group(1)] = re.findall(r"(?:^|\|)\s*([\w']+)\s*:", body)
    return out


def test_every_relation_is_documented(coq_constructors):
    doc = _doc_constructors()
    gen = _gen()
    for _, name, _ in gen.RELATIONS:
        assert name in coq_constructors, f"Coq printed no relation {name}"
        assert coq_constructors[name], f"no constructor read for {name}"
        assert doc.get(name) == coq_constructors[name], (
            f"{name}: docs/rules.md lists {doc.get(name)}, Coq has {coq_constructors[name]}")


def test_document_names_no_other_relation():
    gen = _gen()
    assert set(_doc_constructors()) == {name for _, name, _ in gen.RELATIONS}


def test_every_rule_has_a_drawing_and_a_name():
    """Each constructor of the document shows an inference rule (or the
    relation's own table of rules, for the head reductions) and a name."""
    text = DOC.read_text()
    sections = re.split(r"(?m)^### ", text)[1:]
    for sec in sections:
        title = sec.splitlines()[0]
        assert re.match(r"`[\w']+`: \S", title), f"rule without the paper's name: {title}"
        assert "```coq" in sec, f"no Coq statement under {title}"


def test_departures_point_to_existing_sections():
    """Every link of the document into docs/decisions.md names a heading there."""
    text = DOC.read_text()
    decisions = (ROOT / "docs" / "decisions.md").read_text()

    def slug(h: str) -> str:
        h = h.strip().lower()
        h = re.sub(r"[^\w\- ]", "", h)
        return h.replace(" ", "-")

    anchors = {slug(m.group(1)) for m in re.finditer(r"(?m)^#+\s+(.*)$", decisions)}
    links = re.findall(r"\(decisions\.md#([\w\-]+)\)", text)
    assert links
    for a in links:
        assert a in anchors, f"docs/rules.md links to decisions.md#{a}, which has no such heading"


def test_the_generator_refuses_a_note_on_no_rule(monkeypatch):
    gen = _gen()
    monkeypatch.setitem(gen.NOTES, "typed_tm_nonexistent", "x")
    with pytest.raises(gen.RulesError, match="typed_tm_nonexistent"):
        gen.render(gen.read_all())
