"""The real analysis of the instance (theories/analysis, logical name
RevHandlers.Analysis): its headline theorems match the golden file, and
they rest only on the axioms of Coq's standard real numbers and the
excluded middle (Coquelicot's), none of the project's own."""

from __future__ import annotations

import re
from pathlib import Path

from revhandlers.coq import run_coqc

ROOT = Path(__file__).resolve().parents[1]
HEADLINE = ROOT / "tests" / "coq" / "analysis_headline.v"
HEADLINE_EXPECTED = ROOT / "tests" / "coq" / "analysis_headline.expected"
CLOSED = "Closed under the global context"
ANALYSIS = {"theory": "analysis", "logical": "RevHandlers.Analysis", "needs": [("rh", "RevHandlers")]}

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
    answers: list[set[str] | None] = []
    current: set[str] | None = None
    for line in output.splitlines():
        if line.startswith(CLOSED):
            if current is not None:
                answers.append(current)
                current = None
            answers.append(None)
        elif line.startswith("Axioms:"):
            if current is not None:
                answers.append(current)
            current = set()
        elif current is not None and line and not line[0].isspace():
            current.add(line.split()[0])
    if current is not None:
        answers.append(current)
    return answers


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
