"""Run Coq against the compiled theories of this repository.

The theories are compiled by dune into ``_build/default/theories/rh`` under the
logical name ``RevHandlers``.  :func:`run_coqc` compiles one file against them
and returns what Coq printed, so that tests and tools can inspect the output
of ``Check`` and ``Print Assumptions``.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Sequence

from .paths import build_dir, repo_root, theories_build_dir

LOGICAL_NAME = "RevHandlers"


class CoqNotBuilt(RuntimeError):
    """The theories have not been compiled (run ``make proofs``)."""


@dataclass(frozen=True)
class CoqResult:
    returncode: int
    stdout: str
    stderr: str

    @property
    def ok(self) -> bool:
        return self.returncode == 0


def _compiled_theory(theory: str) -> Path:
    """The build directory of ``theories/<theory>``, checked to be compiled."""
    build = theories_build_dir() if theory == "rh" else build_dir() / "theories" / theory
    sources = sorted((repo_root() / "theories" / theory).glob("*.v"))
    if not build.is_dir() or not all((build / f"{v.stem}.vo").exists() for v in sources if v.stem != "extraction"):
        raise CoqNotBuilt(f"no compiled theories in {build}; run `make proofs` first")
    return build


def run_coqc(source: str | Path, *, timeout: float = 600.0, theory: str = "rh",
             logical: str = LOGICAL_NAME,
             needs: Sequence[tuple[str, str]] = ()) -> CoqResult:
    """Compile ``source`` (a path, or the text of a .v file) against a
    compiled theory: ``theories/<theory>`` under the logical name
    ``logical`` (by default this calculus, ``RevHandlers``).  ``needs``
    lists the compiled theories that one imports, as ``(theory, logical)``
    pairs, loaded too: the real analysis is
    ``theory="analysis", logical="RevHandlers.Analysis",
    needs=[("rh", "RevHandlers")]``."""
    loadpath: list[str] = []
    for th, lg in [*needs, (theory, logical)]:
        loadpath += ["-Q", str(_compiled_theory(th)), lg]
    coqc = shutil.which("coqc")
    if coqc is None:
        raise CoqNotBuilt("coqc is not on PATH; run `make deps`")
    with tempfile.TemporaryDirectory() as tmp:
        if isinstance(source, Path):
            path = source
        else:
            path = Path(tmp) / "Input.v"
            path.write_text(source)
        proc = subprocess.run(
            [coqc, *loadpath, "-o", os.path.join(tmp, path.stem + ".vo"), str(path)],
            capture_output=True,
            text=True,
            timeout=timeout,
        )
    return CoqResult(proc.returncode, proc.stdout, proc.stderr)


def about_answers(stdout: str) -> list[str | None]:
    """The answers of the ``About NAME.`` commands of a compiled file, in
    order: the qualified name (``Expands to: … Q``), or ``None`` for a name
    that is not a defined object."""
    answers: list[str | None] = []
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("Expands to:"):
            words = line.split()
            # A long name goes to the next line: "Expands to: Constant" then
            # the qualified name.
            if len(words) == 3 and i + 1 < len(lines) and lines[i + 1].strip():
                words.append(lines[i + 1].split()[0])
            answers.append(words[-1])
        elif line.endswith("not a defined object."):
            answers.append(None)
    return answers
