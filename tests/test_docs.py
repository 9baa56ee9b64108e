"""The README and the guides as a newcomer reads them: every command shown
in a ``sh`` block runs as shown (exit code 0, or 2 where the block shows an
error answer), every ``python`` block runs, every relative link of the
README and the guides names a file of the repository, and the README stays
at most 200 lines.

Commands run from a scratch directory holding a copy of ``examples/`` and
a link to the checkout's ``_build`` (so ``revhandlers fmt -i`` and
``train --plot`` write there, not into the checkout), with this checkout's
package on ``PYTHONPATH``.  A few commands are not run here, each for the
reason given in :data:`NOT_RUN` (set-up of a whole machine, the test suite
itself, an interactive server); a test checks that each of them is still
shown, so the list cannot go stale."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["README.md", "docs/user-guide.md", "docs/proof-guide.md", "docs/testing-guide.md", "docs/performance.md"]

#: commands shown but not run by this test, and why
NOT_RUN = {
    "make demo": "sets up the machine (Debian packages) and is what the suite's set-up runs",
    "make test": "is the test suite itself",
    "make wheel": "builds the wheel: tests/test_install.py does, in a copy of the checkout",
    "python3 -m venv ~/rh && ~/rh/bin/pip install dist/revhandlers-*.whl":
        "installs into the home directory: tests/test_install.py does it in a temporary venv",
    "make install": "installs system-wide: tests/test_install.py runs it into a temporary directory",
    "make install PREFIX=$HOME/.local": "installs into the home directory (as above)",
    "make install PIP=\"$HOME/venv/bin/python -m pip\"": "installs into a virtual environment in the home directory (as above)",
    "make install PIP= DESTDIR=/tmp/stage": "tests/test_install.py runs it with a temporary DESTDIR",
    "opam install --deps-only ./coq-revhandlers.opam": "needs opam and the network",
    "opam install ./coq-revhandlers.opam": "needs opam and installs into its switch",
    "pip install jupyterlab && jupyter lab notebooks/": "starts an interactive server",
}


def _strip_comment(line: str) -> str:
    """A shell line without its trailing comment (``#`` after blanks,
    outside quotes)."""
    quote = None
    for i, c in enumerate(line):
        if quote:
            if c == quote:
                quote = None
        elif c in "'\"":
            quote = c
        elif c == "#" and (i == 0 or line[i - 1] in " \t"):
            return line[:i].rstrip()
    return line.rstrip()


def shown_commands() -> list[tuple[str, str, int]]:
    """``(page, command, expected exit code)`` of every command in a ``sh``
    block: the lines after ``$ `` in a transcript, else every line that is
    not a comment."""
    found = []
    for page in PAGES:
        for body in re.findall(r"```sh\n(.*?)```", (ROOT / page).read_text(), re.S):
            lines = body.splitlines()
            transcript = any(line.startswith("$ ") for line in lines)
            for k, line in enumerate(lines):
                if transcript:
                    if not line.startswith("$ "):
                        continue
                    cmd = _strip_comment(line[2:])
                    shown = lines[k + 1] if k + 1 < len(lines) else ""
                    code = 2 if shown.startswith("(error") or shown.startswith("error") else 0
                else:
                    cmd, code = _strip_comment(line), 0
                if cmd:
                    found.append((page, cmd, code))
    return found


def python_blocks() -> list[tuple[str, str]]:
    return [(page, body) for page in PAGES
            for body in re.findall(r"```python\n(.*?)```", (ROOT / page).read_text(), re.S)]


COMMANDS = shown_commands()
TO_RUN = [c for c in COMMANDS if c[1] not in NOT_RUN]


@pytest.fixture(scope="module")
def scratch(tmp_path_factory) -> Path:
    d = tmp_path_factory.mktemp("docs")
    shutil.copytree(ROOT / "examples", d / "examples")
    (d / "_build").symlink_to(ROOT / "_build")
    for name in ("rh-eval", "dbr-eval", "pullback-eval"):
        if not (ROOT / "_build" / "default" / "extracted" / name).is_file():
            pytest.fail(f"_build/default/extracted/{name} is missing: run `dune build` first")
    return d


def _env(tmp: Path) -> dict[str, str]:
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT / "pytools")
    env["MPLBACKEND"] = "Agg"
    env["MPLCONFIGDIR"] = str(tmp / "mpl")
    for k in ("RH_EVAL", "DBR_EVAL", "PULLBACK_EVAL"):
        env.pop(k, None)
    # `revhandlers` as the command: this checkout's package, whatever is installed
    bindir = tmp / "bin"
    bindir.mkdir(exist_ok=True)
    exe = bindir / "revhandlers"
    exe.write_text(f"#!/bin/sh\nexec {sys.executable} -m revhandlers \"$@\"\n")
    exe.chmod(0o755)
    env["PATH"] = f"{bindir}{os.pathsep}{env.get('PATH', '')}"
    return env


def test_the_pages_show_commands():
    assert len(TO_RUN) >= 20, TO_RUN


def test_every_command_not_run_is_still_shown():
    shown = {c for _, c, _ in COMMANDS}
    assert not set(NOT_RUN) - shown, set(NOT_RUN) - shown


@pytest.mark.parametrize("page, command, code", TO_RUN, ids=[f"{p}: {c[:60]}" for p, c, _ in TO_RUN])
def test_command_runs_as_shown(scratch, page, command, code):
    p = subprocess.run(["bash", "-c", command], cwd=scratch, env=_env(scratch), capture_output=True,
                       text=True, timeout=600)
    assert "Traceback" not in p.stderr, p.stderr
    assert p.returncode == code, (page, command, p.returncode, p.stdout[-2000:], p.stderr[-2000:])


@pytest.mark.parametrize("i", range(len(python_blocks())))
def test_python_block_runs(scratch, i):
    page, body = python_blocks()[i]
    p = subprocess.run([sys.executable, "-c", body], cwd=scratch, env=_env(scratch), capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, (page, body, p.stderr[-3000:])


def test_readme_is_short():
    assert len((ROOT / "README.md").read_text().splitlines()) <= 200


@pytest.mark.parametrize("page", PAGES)
def test_links_resolve(page):
    text = re.sub(r"```.*?```", "", (ROOT / page).read_text(), flags=re.S)
    text = re.sub(r"`[^`]*`", "", text)                 # code, e.g. FC[l](x), is not a link
    links = re.findall(r"\]\(([^)\s]+)\)", text)
    assert links or page != "README.md", page
    for link in links:
        if re.match(r"[a-z]+:", link):
            continue
        target = link.split("#")[0]
        if not target:
            continue
        if target.startswith("html/"):         # coqdoc output of `make html`, not committed
            continue
        path = (ROOT / page).parent / target
        assert path.exists(), f"{page}: {link} does not resolve"
        anchor = link.split("#")[1] if "#" in link else None
        if anchor and path.suffix == ".md":
            heads = re.findall(r"^#+ (.*)$", path.read_text(), re.M)
            slugs = {re.sub(r"[^\w\- ]", "", h.lower()).replace(" ", "-") for h in heads}
            assert anchor in slugs, f"{page}: {link}: no heading #{anchor} in {target}"
