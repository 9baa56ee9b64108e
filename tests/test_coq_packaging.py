"""The Coq-only path: `coq-revhandlers.opam`, and `make proofs` (and
`make html`) needing Coq, dune and Coquelicot but no pip, torch or Python
package (`make deps-coq`), while `make build`, `demo` and `test` still run
the full `make deps`."""

from __future__ import annotations

import os
import re
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
OPAM = ROOT / "coq-revhandlers.opam"
MAKEFILE = ROOT / "Makefile"


def theories() -> dict[str, str]:
    """directory -> logical name, from theories/*/dune."""
    out = {}
    for dune in sorted((ROOT / "theories").glob("*/dune")):
        out[dune.parent.name] = re.search(r"\(name ([A-Za-z0-9_.]+)\)", dune.read_text()).group(1)
    return out


def rules() -> dict[str, tuple[list[str], str]]:
    """target -> (prerequisites, recipe) of the Makefile."""
    out, current = {}, None
    for line in MAKEFILE.read_text().splitlines():
        m = re.match(r"^([A-Za-z][\w-]*):(?!=)\s*(.*)$", line)
        if m:
            current = m.group(1)
            out[current] = (m.group(2).split(), "")
        elif line.startswith("\t") and current:
            prereqs, recipe = out[current]
            out[current] = (prereqs, recipe + line + "\n")
        elif not line.strip() or line.startswith("#"):
            continue
        else:
            current = None
    return out


def closure(target: str) -> set[str]:
    r, seen, todo = rules(), set(), [target]
    while todo:
        t = todo.pop()
        if t in seen:
            continue
        seen.add(t)
        todo += r.get(t, ([], ""))[0]
    return seen


def test_opam_depends_on_coq_8_16_coquelicot_and_dune():
    text = OPAM.read_text()
    assert re.search(r'^opam-version: "2\.0"$', text, re.M)
    depends = re.search(r"depends: \[(.*?)\n\]", text, re.S).group(1)
    assert re.search(r'"coq" \{>= "8\.16" & < "8\.17~"\}', depends)
    assert '"coq-coquelicot"' in depends and '"dune" {>= "2.9"}' in depends
    # nothing of the Python side or the drivers' OCaml libraries
    assert not re.search(r"sexplib|zarith|python|torch", depends)


def test_opam_builds_what_make_proofs_builds():
    build = re.search(r"build: \[(.*?)\n\]", OPAM.read_text(), re.S).group(1)
    target = re.search(r'"dune" "build" "-j" jobs "(@[\w/]+)"', build).group(1)
    assert target == "@theories/default"
    assert f"dune build {target}" in rules()["proofs"][1]


def test_opam_installs_every_theory_under_its_logical_name():
    install = re.search(r"install: \[(.*?)\n\]", OPAM.read_text(), re.S).group(1)
    names = theories()
    assert {"rh": "RevHandlers", "dbr": "DefineByRun", "pullback": "Pullback"}.items() <= names.items()
    for directory, logical in names.items():
        dest = logical.replace(".", "/")
        if directory == "analysis":
            assert "_build/default/theories/analysis/." in install and "RevHandlers/Analysis" in install
        else:
            assert f'"_build/default/theories/{directory}/." "%{{lib}}%/coq/user-contrib/{dest}/"' in install, \
                directory
    if "analysis" not in names:      # the analysis theory, when it comes, is RevHandlers.Analysis
        assert "RevHandlers/Analysis" in install


def test_make_proofs_and_html_need_only_the_coq_dependencies():
    for target in ("proofs", "html", "headline"):
        needed = closure(target)
        assert "deps" not in needed and "deps-coq" in needed, (target, needed)
        for t in needed:
            assert "$(PY)" not in rules()[t][1] and "pip" not in rules()[t][1], t


def test_build_demo_and_test_still_install_everything():
    for target in ("build", "demo", "test"):
        assert {"deps", "proofs"} <= closure(target), target


def test_install_and_wheel_change_no_python_environment():
    """``make install`` and ``make wheel`` build only the drivers: Debian's
    toolchain (``deps-tools``), never ``make deps``, which installs the
    editable package and re-points the Jupyter kernel."""
    for target in ("install", "wheel"):
        needed = closure(target)
        assert "deps" not in needed and "deps-tools" in needed and "drivers" in needed, (target, needed)


@pytest.mark.parametrize("part", ["--tools", "--coq"])
def test_install_deps_part_runs_no_python_and_no_pip(part, tmp_path):
    # fake python3, pip and apt-get that leave a mark; the tools, coqc and dune are installed
    # here, so `--tools` and `--coq` have nothing to install and must not touch any of them
    marks = tmp_path / "marks"
    fake = tmp_path / "bin"
    fake.mkdir()
    for name in ("python3", "pip", "pip3", "apt-get", "sudo"):
        (fake / name).write_text(f"#!/bin/sh\necho {name} >> {marks}\nexit 1\n")
        (fake / name).chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}", PY=str(fake / "python3"))
    p = subprocess.run(["bash", "scripts/install-deps.sh", part], cwd=ROOT, env=env, capture_output=True,
                       text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert not marks.exists(), marks.read_text()
