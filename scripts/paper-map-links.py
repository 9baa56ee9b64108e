#!/usr/bin/env python3
"""Link the Coq names of docs/paper-map.md to the theories' HTML
documentation (`make html`, docs/html/): in every table row, each name of
the Coq column defined in one of the files of its File column (in the
theory of the section: the one its text names, "logical name `NAME`",
before its first table, else RevHandlers) becomes
[`name`](html/LOGICAL.FILE.html#ANCHOR), the anchor coqdoc gives it.  The
definitions are read from the .glob files of _build/default/theories/ (run
`make proofs` first).  Names already linked are left as they are; a name
not found in its files stays plain text (listed on standard error).

    python3 scripts/paper-map-links.py [--check]

With --check, nothing is written; the exit code is 1 if a link would be
added or changed."""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PAPER_MAP = ROOT / "docs" / "paper-map.md"
BUILD = ROOT / "_build" / "default" / "theories"

#: the sections of the paper map about other theories than RevHandlers (as tests/test_coq.py reads them)
SECTIONS = {"## The define-by-run AD library": "DefineByRun", "## The pullback language": "Pullback",
            "## The real model of the primitives": "RevHandlers.Analysis"}
#: the kinds of .glob entries that define something coqdoc anchors
DEFINING = {"def", "prf", "ind", "constr", "rec", "corec", "proj", "abbrev", "class", "inst", "coe",
            "thm", "lemma", "ax", "scheme", "meth", "vardef", "defax", "prfax", "inductive",
            "indrec", "instance", "coind", "syndef", "mod"}


def theory_dirs() -> dict[str, Path]:
    """Logical name -> compiled directory, from theories/*/dune."""
    out = {}
    for dune in sorted((ROOT / "theories").glob("*/dune")):
        m = re.search(r"\(name ([A-Za-z0-9_.]+)\)", dune.read_text())
        if m:
            out[m.group(1)] = BUILD / dune.parent.name
    return out


def definitions(glob: Path) -> dict[str, str]:
    """name -> anchor for what ``glob`` defines."""
    found: dict[str, str] = {}
    for line in glob.read_text(errors="replace").splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[0] in DEFINING:
            _, _, path, name = parts
            found.setdefault(name, name if path == "<>" else f"{path}.{name}")
    return found


def link_line(line: str, theory: str, dirs: dict[str, Path], missing: list[str]) -> str:
    raw = re.split(r"(?<!\\)\|", line)
    cells = [c.strip() for c in raw[1:-1]]
    if len(cells) != 4 or cells[0] == "Paper" or line.startswith("|---"):
        return line
    files = re.findall(r"`([\w]+)\.v`", cells[3])
    directory = dirs.get(theory)
    if directory is None:
        return line

    def link(m: re.Match) -> str:
        name = m.group(1)
        for f in files:
            glob = directory / f"{f}.glob"
            if glob.exists():
                anchor = definitions_cache(glob).get(name)
                if anchor:
                    return f"[`{name}`](html/{theory}.{f}.html#{anchor})"
        missing.append(f"{theory}: {name} ({', '.join(files)})")
        return m.group(0)

    raw[3] = re.sub(r"(?<!\[)`([A-Za-z_][\w']*)`(?!\])", link, raw[3])
    return "|".join(raw)


_CACHE: dict[Path, dict[str, str]] = {}


def definitions_cache(glob: Path) -> dict[str, str]:
    if glob not in _CACHE:
        _CACHE[glob] = definitions(glob)
    return _CACHE[glob]


def main(argv: list[str]) -> int:
    dirs = theory_dirs()
    if not any(d.is_dir() for d in dirs.values()):
        print(f"paper-map-links: no compiled theories in {BUILD} (run make proofs)", file=sys.stderr)
        return 2
    text = PAPER_MAP.read_text()
    theory, missing, out, named = "RevHandlers", [], [], False
    for line in text.splitlines():
        if line.startswith("## "):
            theory = next((t for h, t in SECTIONS.items() if line.startswith(h)), "RevHandlers")
            named = False
        elif not line.startswith("|") and not named:
            # a section about another theory says so before its tables: (logical name `NAME`)
            m = re.search(r"logical name `([A-Za-z0-9_.]+)`", line)
            if m and m.group(1) in dirs:
                theory, named = m.group(1), True
        out.append(link_line(line, theory, dirs, missing) if line.startswith("|") else line)
    new = "\n".join(out) + ("\n" if text.endswith("\n") else "")
    for m in missing:
        print(f"paper-map-links: not found: {m}", file=sys.stderr)
    if "--check" in argv:
        return 0 if new == text else 1
    PAPER_MAP.write_text(new)
    print(f"paper-map-links: {new.count('](html/')} links in {PAPER_MAP.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
