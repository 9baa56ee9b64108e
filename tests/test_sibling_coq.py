"""Checks of the Coq theories of the sibling systems, each under its own
logical name: the define-by-run AD library (theories/dbr, DefineByRun) and
the pullback language (theories/pullback, Pullback).  For each: closed
headline theorems (golden file), every lemma closed, and a paper-map section
that names existing Coq objects in the files it says.  Proof holes are
looked for in every theory by tests/test_coq.py."""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from revhandlers.coq import CoqResult, about_answers, run_coqc

from test_coq import CLOSED, assumptions_blocks, paper_map_rows, strip_comments

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Theory:
    directory: str                 # under theories/
    logical: str                   # its logical name
    headline_names: list[str]      # must be in the golden file, closed
    min_lemmas: int
    min_map_rows: int
    also_mapped: list[str] = field(default_factory=list)
    witness: tuple[str, str] = ("", "")   # a name of this theory and its file, not in RevHandlers

    @property
    def path(self) -> Path:
        return ROOT / "theories" / self.directory

    @property
    def modules(self) -> list[str]:
        # extraction.v is compiled apart, where the driver is extracted (extracted/dune)
        return sorted(p.stem for p in self.path.glob("*.v") if p.stem != "extraction")

    @property
    def headline(self) -> Path:
        return ROOT / "tests" / "coq" / f"{self.directory}_headline.v"

    def import_all(self) -> str:
        return f"From {self.logical} Require Import " + " ".join(self.modules) + ".\n"


THEORIES = {
    "dbr": Theory(
        "dbr", "DefineByRun",
        ["diff_correct", "diff_fwd_correct", "diff_tape_correct", "modes_agree",
         "diff_forwards", "diff_n_correct", "grad_correct", "diff_monomial",
         "cube_plus_one_denotes", "diff_cube_plus_one", "diff_diff_cube_plus_one",
         "x_cube_denotes", "diff_x_cube_nat", "diff_diff_x_cube_nat", "monomial_denotes"],
        min_lemmas=50, min_map_rows=25,
        also_mapped=["denotes", "denotes_ext", "num_spec", "handle1", "wp"],
        witness=("diff_correct", "reverse")),
    "pullback": Theory(
        "pullback", "Pullback",
        ["astep_typed", "adecompose", "adecompose_unique", "astep_wf", "anf_exists", "anf_unique", "adecompose_all", "anf_exists_all",
         "step_steps_preserve", "step_typed", "decompose", "decompose_unique", "progress_premise",
         "wf_tmb_spec", "pb_param_okb_spec", "wf_queryb_spec", "svalue_value", "progress_num", "nfrag_safety", "fo_progress", "fo_safety", "fo_query_ndual", "stuck_fun_sum", "stuck_remark36", "value_not_step", "bp_transpose", "step_bp_transpose", "chain_reverse", "query_660_528",
         "step_fn_sound", "step_fn_complete", "step_det", "normalize_sound", "infer_sound",
         "cps_run_complete", "cps_normalize_complete", "cps_normalize_same", "query_transpose",
         "query_transpose_fo", "infer_complete", "check_complete", "typed_check",
         "fq_step", "fq_norm", "fo_query_norm", "fq_sn", "fo_normalize_sound",
         "nzqb_spec", "lastvb_spec", "fo_progressb_spec", "fun_sum_not_nzq", "remark36_not_nzq", "nzq_not_kept",
         "fo_gradb_ndual", "exec_fo_gradb_ndual", "ztyped_typed", "fun_sum_not_ztyped", "remark36_not_ztyped",
         "pair_const_ztyped", "step_steps_zpreserve", "ztyped_preservation", "ztyped_steps",
         "zinfer_sound", "zcheck_sound", "ztyped_annotated", "zinfer_complete", "zcheck_complete",
         "ztyped_zcheck", "zcheck_decides", "zprogress_no_pb", "zno_pb_safety", "exec_zno_pb_safety",
         "zfo_progress", "zfo_safety", "zfo_svalue_norm", "exec_zfo_safety"],
        min_lemmas=50, min_map_rows=20,
        also_mapped=["typed", "step", "lin", "bp"],
        witness=("query_660_528", "examples")),
}
IDS = list(THEORIES)


def run_theory_coqc(th: Theory, source: str | Path, *, timeout: float = 600.0) -> CoqResult:
    """Compile ``source`` against the compiled theory ``th``."""
    return run_coqc(source, timeout=timeout, theory=th.directory, logical=th.logical)


@pytest.fixture(scope="module", params=IDS)
def theory(request) -> Theory:
    return THEORIES[request.param]


_HEADLINES: dict[str, str] = {}


def headline_output(th: Theory) -> str:
    if th.directory not in _HEADLINES:
        result = run_theory_coqc(th, th.headline)
        assert result.returncode == 0, result.stderr
        _HEADLINES[th.directory] = result.stdout
    return _HEADLINES[th.directory]


def test_headline_matches_golden(theory):
    expected = theory.headline.with_suffix(".expected").read_text()
    assert headline_output(theory) == expected, (
        "the statements or assumptions of the headline theorems changed; if intended, update "
        f"{theory.headline.with_suffix('.expected').relative_to(ROOT)}:\n" + headline_output(theory)
    )


def test_headline_theorems_are_closed(theory):
    """Independent of the golden file: every Print Assumptions answers that
    the theorem depends on no axiom, and the headline theorems are all there."""
    source = theory.headline.read_text()
    asked = re.findall(r"^Print Assumptions (\w+)\.", source, flags=re.M)
    missing = [n for n in theory.headline_names if n not in asked]
    assert not missing, missing
    blocks = assumptions_blocks(headline_output(theory))
    assert len(blocks) == len(asked)
    assert all(b == CLOSED for b in blocks), blocks


def lemma_names(th: Theory) -> list[str]:
    names = []
    for path in sorted(th.path.glob("*.v")):
        code = strip_comments(path.read_text())
        names += re.findall(r"^\s*(?:Lemma|Theorem|Corollary|Proposition|Example)\s+([A-Za-z_][\w']*)",
                            code, flags=re.M)
    return names


def test_every_lemma_is_closed(theory):
    names = lemma_names(theory)
    assert len(names) > theory.min_lemmas
    assert len(set(names)) == len(names), "a lemma name is defined twice"
    result = run_theory_coqc(theory, theory.import_all() + "".join(f"Print Assumptions {n}.\n" for n in names))
    assert result.returncode == 0, result.stderr
    blocks = assumptions_blocks(result.stdout)
    assert len(blocks) == len(names)
    bad = [(n, b) for n, b in zip(names, blocks) if b != CLOSED]
    assert not bad, bad


def resolve(th: Theory, names: list[str]) -> list[str | None]:
    """The qualified name of each Coq name, or None when it does not exist."""
    result = run_theory_coqc(th, th.import_all() + "".join(f"About {n}.\n" for n in names))
    assert result.returncode == 0, result.stderr
    answers = about_answers(result.stdout)
    assert len(answers) == len(names), result.stdout
    return answers


def test_paper_map_names_exist_where_the_map_says(theory):
    rows = paper_map_rows(theory.logical)
    assert len(rows) >= theory.min_map_rows
    for must in theory.headline_names + theory.also_mapped:
        assert any(must in names for _, names, _ in rows), must
    queries = [(item, name, files) for item, names, files in rows for name in names]
    problems = []
    for (item, name, files), qualified in zip(queries, resolve(theory, [n for _, n, _ in queries])):
        if qualified is None:
            problems.append(f"{name} ({item}): no such Coq object")
            continue
        parts = qualified.split(".")
        if parts[0] != theory.logical or parts[-1] != name or parts[1] not in files:
            problems.append(f"{name} ({item}): is {qualified}, the map says {files}")
    assert not problems, "\n".join(problems)


def test_paper_map_sections_are_separate(theory):
    """A sibling's rows are not resolved against RevHandlers, and the other
    way round."""
    own = {n for _, names, _ in paper_map_rows(theory.logical) for n in names}
    rh = {n for _, names, _ in paper_map_rows() for n in names}
    name = theory.witness[0]
    assert name in own and name not in rh
    assert "rh_typed" in rh and "rh_typed" not in own


def test_paper_map_check_detects_missing_names(theory):
    name, module = theory.witness
    assert resolve(theory, [name + "_does_not_exist", name]) == [None, f"{theory.logical}.{module}.{name}"]
