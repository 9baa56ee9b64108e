"""The real analysis of the instance (theories/analysis, logical name
RevHandlers.Analysis): its headline theorems match the golden file, and
they rest only on the axioms of Coq's standard real numbers and the
excluded middle (Coquelicot's), none of the project's own."""

from __future__ import annotations

import re
from pathlib import Path

from revhandlers.coq import about_answers, run_coqc
from test_coq import CLOSED, assumptions_blocks, paper_map_rows

ROOT = Path(__file__).resolve().parents[1]
HEADLINE = ROOT / "tests" / "coq" / "analysis_headline.v"
HEADLINE_EXPECTED = ROOT / "tests" / "coq" / "analysis_headline.expected"
MODULES = sorted(p.stem for p in (ROOT / "theories" / "analysis").glob("*.v"))
# pullback_real.v reads the pullback language's queries in the real model; the
# headline prints many statements over Coquelicot: give coqc time on a busy machine.
ANALYSIS = {"theory": "analysis", "logical": "RevHandlers.Analysis",
            "needs": [("rh", "RevHandlers"), ("pullback", "Pullback")], "timeout": 1800}

# The axioms of Coq's standard real numbers (Reals), and the excluded middle
# that Coquelicot's lemmas use.
STANDARD = {
    "ClassicalDedekindReals.sig_forall_dec",
    "ClassicalDedekindReals.sig_not_dec",
    "FunctionalExtensionality.functional_extensionality_dep",
    "Classical_Prop.classic",
}


def assumptions(output: str) -> list[set[str] | None]:
    """The answers of a file of `Print Assumptions` only, one per command:
    ``None`` if closed, else the names of the axioms listed (an axiom starts
    a line, ``name`` or ``name : type``; the rest of its type is indented)."""
    return [None if block == CLOSED else
            {line.split()[0] for line in block.splitlines()[1:] if line and not line[0].isspace()}
            for block in assumptions_blocks(output)]


def only_assumptions(source: str) -> str:
    """The headline file with its `Require`s, scopes and `Print Assumptions`
    only (no `Check`, whose output would mix with the axioms listed)."""
    keep = [line for line in source.splitlines()
            if line.startswith(("From ", "Require ", "Open Scope", "Print Assumptions "))]
    return "\n".join(keep) + "\n"


def test_analysis_headline_matches_golden():
    result = run_coqc(HEADLINE, **ANALYSIS)
    assert result.ok, result.stderr
    assert result.stdout == HEADLINE_EXPECTED.read_text(), (
        "the statements or assumptions of the analysis headline theorems changed; "
        "if intended, update tests/coq/analysis_headline.expected:\n" + result.stdout
    )


def test_analysis_headline_rests_on_the_standard_axioms_only():
    """Independent of the golden file."""
    asked = len(re.findall(r"^Print Assumptions ", HEADLINE.read_text(), flags=re.M))
    assert asked >= 20
    result = run_coqc(only_assumptions(HEADLINE.read_text()), **ANALYSIS)
    assert result.ok, result.stderr
    answers = assumptions(result.stdout)
    assert len(answers) == asked, answers
    for names in answers:
        assert names is None or names <= STANDARD, names - STANDARD


def test_assumption_check_detects_a_project_axiom():
    """The check above fails on an axiom that is not a standard one."""
    source = (
        "From RevHandlers.Analysis Require Import vec.\n"
        "Axiom bogus : forall v : vec, v = v.\n"
        "Lemma uses_bogus : forall v : vec, v = v. Proof. exact bogus. Qed.\n"
        "Print Assumptions uses_bogus.\n"
    )
    result = run_coqc(source, **ANALYSIS)
    assert result.ok, result.stderr
    answers = assumptions(result.stdout)
    assert len(answers) == 1 and answers[0] is not None
    assert "bogus" in answers[0] and not answers[0] <= STANDARD


def resolve(names: list[str]) -> list[str | None]:
    """The qualified name of each name, with every analysis module imported
    (``None`` if there is no such object)."""
    source = ("From RevHandlers.Analysis Require Import " + " ".join(MODULES) + ".\n"
              + "".join(f"About {name}.\n" for name in names))
    result = run_coqc(source, **ANALYSIS)
    assert result.ok, result.stderr
    answers = about_answers(result.stdout)
    assert len(answers) == len(names), result.stdout
    return answers


def test_paper_map_names_exist_where_the_map_says():
    rows = paper_map_rows("RevHandlers.Analysis")
    assert len(rows) >= 15
    for must in ["prim_rd_correct", "smooth_prim", "pw_rd0", "mul_rd0", "sum_rd0", "den_rd_prim"]:
        assert any(must in names for _, names, _ in rows), must
    queries = [(item, name, files) for item, names, files in rows for name in names]
    problems = []
    for (item, name, files), qualified in zip(queries, resolve([n for _, n, _ in queries])):
        if qualified is None:
            problems.append(f"{name} ({item}): no such Coq object")
            continue
        parts = qualified.split(".")
        if parts[:2] != ["RevHandlers", "Analysis"] or parts[-1] != name or parts[2] not in files:
            problems.append(f"{name} ({item}): is {qualified}, the map says {files}")
    assert not problems, "\n".join(problems)


def test_paper_map_check_detects_missing_names():
    assert resolve(["prim_rd_correct_does_not_exist", "prim_rd_correct"]) == [
        None, "RevHandlers.Analysis.prims.prim_rd_correct"]


def test_about_answers_reads_a_name_coq_wrapped():
    """Coq puts a long qualified name on the line after ``Expands to:``."""
    stdout = ("rd_step_sound_smooth_all : forall x, x = x\n"
              "Expands to: Constant\n"
              "RevHandlers.Analysis.rdsound_all.rd_step_sound_smooth_all\n"
              "prim_rd_correct : True\n"
              "Expands to: Constant RevHandlers.Analysis.prims.prim_rd_correct\n"
              "nope not a defined object.\n")
    assert about_answers(stdout) == [
        "RevHandlers.Analysis.rdsound_all.rd_step_sound_smooth_all",
        "RevHandlers.Analysis.prims.prim_rd_correct", None]
