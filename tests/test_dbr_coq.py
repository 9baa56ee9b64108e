"""Checks of the Coq theory of the define-by-run AD library (theories/dbr,
logical name DefineByRun): closed headline theorems (golden file), every
lemma closed, and a paper-map section that names existing Coq objects in the
files it says.  Proof holes are looked for in every theory by
tests/test_coq.py."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from revhandlers.paths import build_dir
from test_coq import CLOSED, assumptions_blocks, paper_map_rows, strip_comments

ROOT = Path(__file__).resolve().parents[1]
THEORY = ROOT / "theories" / "dbr"
HEADLINE = ROOT / "tests" / "coq" / "dbr_headline.v"
HEADLINE_EXPECTED = ROOT / "tests" / "coq" / "dbr_headline.expected"
LOGICAL_NAME = "DefineByRun"

MODULES = sorted(p.stem for p in THEORY.glob("*.v"))
IMPORT_ALL = f"From {LOGICAL_NAME} Require Import " + " ".join(MODULES) + ".\n"

HEADLINE_NAMES = [
    "diff_correct", "diff_fwd_correct", "diff_tape_correct", "modes_agree",
    "diff_forwards", "diff_n_correct", "grad_correct", "diff_monomial",
    "cube_plus_one_denotes", "diff_cube_plus_one", "diff_diff_cube_plus_one",
    "x_cube_denotes", "diff_x_cube_nat", "diff_diff_x_cube_nat", "monomial_denotes",
]


def run_dbr_coqc(source: str | Path, *, timeout: float = 600.0) -> subprocess.CompletedProcess:
    """Compile ``source`` (a path, or the text of a .v file) against the
    compiled DefineByRun theory, as
    ``coqc -Q _build/default/theories/dbr DefineByRun``."""
    build = build_dir() / "theories" / "dbr"
    if not all((build / f"{m}.vo").exists() for m in MODULES):
        pytest.fail(f"the theory is not compiled in {build}: run `dune build @theories/dbr/default`")
    coqc = shutil.which("coqc")
    if coqc is None:
        pytest.fail("coqc is not on PATH; run `make deps`")
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(source, Path):
            path = source
        else:
            path = Path(tmp) / "Input.v"
            path.write_text(source)
        return subprocess.run(
            [coqc, "-Q", str(build), LOGICAL_NAME, "-o", os.path.join(tmp, path.stem + ".vo"), str(path)],
            capture_output=True, text=True, timeout=timeout,
        )


@pytest.fixture(scope="module")
def headline_output() -> str:
    result = run_dbr_coqc(HEADLINE)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_headline_matches_golden(headline_output):
    expected = HEADLINE_EXPECTED.read_text()
    assert headline_output == expected, (
        "the statements or assumptions of the headline theorems changed; "
        "if intended, update tests/coq/dbr_headline.expected:\n" + headline_output
    )


def test_headline_theorems_are_closed(headline_output):
    """Independent of the golden file: every Print Assumptions answers that
    the theorem depends on no axiom, and the headline theorems are all there."""
    source = HEADLINE.read_text()
    asked = re.findall(r"^Print Assumptions (\w+)\.", source, flags=re.M)
    missing = [n for n in HEADLINE_NAMES if n not in asked]
    assert not missing, missing
    blocks = assumptions_blocks(headline_output)
    assert len(blocks) == len(asked)
    assert all(b == CLOSED for b in blocks), blocks


def lemma_names() -> list[str]:
    names = []
    for path in sorted(THEORY.glob("*.v")):
        code = strip_comments(path.read_text())
        names += re.findall(r"^\s*(?:Lemma|Theorem|Corollary|Proposition|Example)\s+([A-Za-z_][\w']*)",
                            code, flags=re.M)
    return names


def test_every_lemma_is_closed():
    names = lemma_names()
    assert len(names) > 50
    assert len(set(names)) == len(names), "a lemma name is defined twice"
    result = run_dbr_coqc(IMPORT_ALL + "".join(f"Print Assumptions {n}.\n" for n in names))
    assert result.returncode == 0, result.stderr
    blocks = assumptions_blocks(result.stdout)
    assert len(blocks) == len(names)
    bad = [(n, b) for n, b in zip(names, blocks) if b != CLOSED]
    assert not bad, bad


def resolve(names: list[str]) -> list[str | None]:
    """The qualified name of each Coq name, or None when it does not exist."""
    result = run_dbr_coqc(IMPORT_ALL + "".join(f"About {n}.\n" for n in names))
    assert result.returncode == 0, result.stderr
    answers: list[str | None] = []
    for line in result.stdout.splitlines():
        if line.startswith("Expands to:"):
            answers.append(line.split()[-1])
        elif line.endswith("not a defined object."):
            answers.append(None)
    assert len(answers) == len(names), result.stdout
    return answers


def test_paper_map_names_exist_where_the_map_says():
    rows = paper_map_rows(LOGICAL_NAME)
    assert len(rows) >= 25
    for must in HEADLINE_NAMES + ["denotes", "denotes_ext", "num_spec", "handle1", "wp"]:
        assert any(must in names for _, names, _ in rows), must
    queries = [(item, name, files) for item, names, files in rows for name in names]
    problems = []
    for (item, name, files), qualified in zip(queries, resolve([n for _, n, _ in queries])):
        if qualified is None:
            problems.append(f"{name} ({item}): no such Coq object")
            continue
        parts = qualified.split(".")
        if parts[0] != LOGICAL_NAME or parts[-1] != name or parts[1] not in files:
            problems.append(f"{name} ({item}): is {qualified}, the map says {files}")
    assert not problems, "\n".join(problems)


def test_paper_map_sections_are_separate():
    """The DefineByRun rows are not resolved against RevHandlers, and the
    other way round."""
    dbr = {n for _, names, _ in paper_map_rows(LOGICAL_NAME) for n in names}
    rh = {n for _, names, _ in paper_map_rows() for n in names}
    assert "diff_correct" in dbr and "diff_correct" not in rh
    assert "rh_typed" in rh and "rh_typed" not in dbr


def test_paper_map_check_detects_missing_names():
    assert resolve(["diff_correct_does_not_exist", "diff_correct"]) == [
        None, f"{LOGICAL_NAME}.reverse.diff_correct"]
