"""Checks of the Coq development: no proof holes, closed headline theorems
(golden file), every lemma closed, and a paper map that names existing Coq
objects in the files it says."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from revhandlers.coq import about_answers, run_coqc

ROOT = Path(__file__).resolve().parents[1]
THEORIES = ROOT / "theories" / "rh"
HEADLINE = ROOT / "tests" / "coq" / "headline.v"
HEADLINE_EXPECTED = ROOT / "tests" / "coq" / "headline.expected"
PAPER_MAP = ROOT / "docs" / "paper-map.md"
CLOSED = "Closed under the global context"

# extraction.v is compiled apart, where the evaluator is extracted (extracted/dune).
MODULES = sorted(p.stem for p in THEORIES.glob("*.v") if p.stem != "extraction")
IMPORT_ALL = "From RevHandlers Require Import " + " ".join(MODULES) + ".\n"


def strip_comments(text: str) -> str:
    """Remove (possibly nested) Coq comments."""
    out, depth, i = [], 0, 0
    while i < len(text):
        if text.startswith("(*", i):
            depth += 1
            i += 2
        elif text.startswith("*)", i) and depth:
            depth -= 1
            i += 2
        else:
            if depth == 0:
                out.append(text[i])
            i += 1
    return "".join(out)


def assumptions_blocks(output: str) -> list[str]:
    """Split the output of a sequence of `Print Assumptions` into one answer
    each: either the closed line, or an "Axioms:" block."""
    blocks: list[str] = []
    current: list[str] | None = None
    for line in output.splitlines():
        if line.startswith(CLOSED):
            if current is not None:
                blocks.append("\n".join(current))
                current = None
            blocks.append(CLOSED)
        elif line.startswith("Axioms:"):
            if current is not None:
                blocks.append("\n".join(current))
            current = [line]
        elif current is not None:
            current.append(line)
    if current is not None:
        blocks.append("\n".join(current))
    return blocks


def test_no_proof_holes_in_theories():
    """In every theory under theories/ (every system's)."""
    offenders = []
    pattern = re.compile(r"\b(Admitted|admit|Abort|Axiom|Axioms|Conjecture|Parameter|Parameters)\b")
    for path in sorted((ROOT / "theories").rglob("*.v")):
        code = strip_comments(path.read_text())
        for lineno, line in enumerate(code.splitlines(), 1):
            if pattern.search(line):
                offenders.append(f"{path.name}:{lineno}: {line.strip()}")
    assert not offenders, "proof holes or axioms in theories/:\n" + "\n".join(offenders)


def test_headline_matches_golden():
    result = run_coqc(HEADLINE)
    assert result.ok, result.stderr
    expected = HEADLINE_EXPECTED.read_text()
    assert result.stdout == expected, (
        "the statements or assumptions of the headline theorems changed; "
        "if intended, update tests/coq/headline.expected:\n" + result.stdout
    )


def test_headline_theorems_are_closed():
    """Independent of the golden file: every Print Assumptions of the
    headline file answers that the theorem depends on no axiom."""
    source = HEADLINE.read_text()
    asked = len(re.findall(r"^Print Assumptions ", source, flags=re.M))
    assert asked >= 10
    result = run_coqc(HEADLINE)
    assert result.ok, result.stderr
    blocks = assumptions_blocks(result.stdout)
    assert len(blocks) == asked
    assert all(b == CLOSED for b in blocks), blocks


def lemma_names() -> list[str]:
    names = []
    for path in sorted(THEORIES.glob("*.v")):
        code = strip_comments(path.read_text())
        names += re.findall(r"^\s*(?:Lemma|Theorem|Corollary|Proposition)\s+([A-Za-z_][\w']*)", code, flags=re.M)
    return names


def test_every_lemma_is_closed():
    names = lemma_names()
    assert len(names) > 50
    source = IMPORT_ALL + "".join(f"Print Assumptions {n}.\n" for n in names)
    # Several hundred Print Assumptions: minutes on a loaded machine.
    result = run_coqc(source, timeout=1800.0)
    assert result.ok, result.stderr
    blocks = assumptions_blocks(result.stdout)
    assert len(blocks) == len(names)
    bad = [(n, b) for n, b in zip(names, blocks) if b != CLOSED]
    assert not bad, bad


def test_assumption_check_detects_an_axiom():
    """The checks above would notice a theorem that rests on an axiom."""
    source = (
        "Axiom cheat : forall P : Prop, P.\n"
        "Lemma uses_cheat : 0 = 1. Proof. apply cheat. Qed.\n"
        "Lemma honest : 0 = 0. Proof. reflexivity. Qed.\n"
        "Print Assumptions uses_cheat.\nPrint Assumptions honest.\n"
    )
    result = run_coqc(source)
    assert result.ok, result.stderr
    blocks = assumptions_blocks(result.stdout)
    assert len(blocks) == 2
    assert blocks[0].startswith("Axioms:") and "cheat" in blocks[0]
    assert blocks[1] == CLOSED


# Sections of the paper map that map another theory (another system's, or
# the real analysis of this one): the start of their heading, and that
# theory's logical name.  Every other section maps
# RevHandlers.
OTHER_THEORIES = {"## The define-by-run AD library": "DefineByRun", "## The pullback language": "Pullback",
                  "## The real model of the primitives": "RevHandlers.Analysis"}


def section_theory(heading: str) -> str:
    return next((t for h, t in OTHER_THEORIES.items() if heading.startswith(h)), "RevHandlers")


def paper_map_rows(theory: str = "RevHandlers") -> list[tuple[str, list[str], list[str]]]:
    """(paper item, Coq names, files) for each table row that names Coq
    objects, in the sections that map ``theory``."""
    rows = []
    current = "RevHandlers"
    for line in PAPER_MAP.read_text().splitlines():
        if line.startswith("## "):
            current = section_theory(line)
            continue
        if current != theory or not line.startswith("|") or line.startswith("|---"):
            continue
        cells = [c.strip() for c in re.split(r"(?<!\\)\|", line.strip())[1:-1]]
        if len(cells) != 4 or cells[0] == "Paper":
            continue
        names = re.findall(r"`([A-Za-z_][\w']*)`", cells[2])
        files = re.findall(r"`([\w]+)\.v`", cells[3])
        if names:
            rows.append((cells[0] + " " + cells[1], names, files))
    return rows


def test_paper_map_names_exist_where_the_map_says():
    rows = paper_map_rows()
    assert len(rows) >= 50
    for must in ["decomposition", "rh_depth_lt", "rh_typed", "step_conf_preservation",
                 "step_cmd_preservation", "rd_rewrite_typed", "one_layer_step"]:
        assert any(must in names for _, names, _ in rows), must
    queries = [(item, name, files) for item, names, files in rows for name in names]
    source = IMPORT_ALL + "".join(f"About {name}.\n" for _, name, _ in queries)
    result = run_coqc(source)
    assert result.ok, result.stderr
    answers = about_answers(result.stdout)
    assert len(answers) == len(queries), result.stdout
    problems = []
    for (item, name, files), qualified in zip(queries, answers):
        if qualified is None:
            problems.append(f"{name} ({item}): no such Coq object")
            continue
        parts = qualified.split(".")
        if parts[0] != "RevHandlers" or parts[-1] != name or parts[1] not in files:
            problems.append(f"{name} ({item}): is {qualified}, the map says {files}")
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("name", ["ctx_typo_does_not_exist", "rh_typed_nope"])
def test_paper_map_check_detects_missing_names(name):
    result = run_coqc(IMPORT_ALL + f"About {name}.\n")
    assert result.ok
    assert result.stdout.strip().endswith("not a defined object.")
