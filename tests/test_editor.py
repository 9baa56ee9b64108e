"""_CoqProject serves an editor (coqtop, VSCoq, Proof General): with its
flags, after `make proofs`, every theory's files compile with coqc, so
stepping through them in an editor finds what they import."""

from __future__ import annotations

import shlex
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def coqproject_flags() -> list[str]:
    words = shlex.split((ROOT / "_CoqProject").read_text(), comments=True)
    flags, i = [], 0
    while i < len(words):
        if words[i] == "-arg":
            flags.append(words[i + 1])
            i += 2
        elif words[i] in ("-R", "-Q"):
            flags += [words[i], str(ROOT / words[i + 1]), words[i + 2]]
            i += 3
        else:
            flags.append(words[i])
            i += 1
    return flags


@pytest.mark.parametrize("theory, logical, module", [
    ("rh", "RevHandlers", "progress"), ("dbr", "DefineByRun", "reverse"), ("pullback", "Pullback", "progress"),
    ("analysis", "RevHandlers.Analysis", "templates")])
def test_a_theory_file_compiles_with_the_coqproject_flags(tmp_path, theory, logical, module):
    flags = coqproject_flags()
    assert logical in flags, flags
    assert (ROOT / "_build" / "default" / "theories" / theory).is_dir(), "run `make proofs` first"
    src = tmp_path / f"{module}.v"
    shutil.copy(ROOT / "theories" / theory / f"{module}.v", src)
    r = subprocess.run(["coqc", *flags, str(src)], capture_output=True, text=True, cwd=tmp_path, timeout=600)
    assert r.returncode == 0, r.stdout + r.stderr
