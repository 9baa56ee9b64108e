"""The HTML documentation of the theories (`make html`, scripts/coqdoc-html.sh)
and the links of docs/paper-map.md into it.

The HTML is generated here, from the sources and .glob files of the built
theories (_build/default/theories/, left by `make proofs`/`make build`,
which `make test` runs first; a few seconds), into a temporary directory:
every link of the paper map must name a page that exists and an anchor
that page defines.  Without built theories the test fails and says so."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAPER_MAP = ROOT / "docs" / "paper-map.md"
LINK = re.compile(r"\[`([A-Za-z_][\w']*)`\]\(html/([\w.]+\.html)#([\w.'']+)\)")


@pytest.fixture(scope="module")
def html(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("html")
    p = subprocess.run(["bash", "scripts/coqdoc-html.sh", str(out)], cwd=ROOT, capture_output=True,
                       text=True, timeout=300)
    assert p.returncode == 0, ("scripts/coqdoc-html.sh failed (are the theories built? make proofs):\n"
                               + p.stderr)
    return out


def theory_names() -> dict[str, str]:
    """directory -> logical name of every theory directory."""
    out = {}
    for dune in sorted((ROOT / "theories").glob("*/dune")):
        m = re.search(r"\(name ([A-Za-z0-9_.]+)\)", dune.read_text())
        assert m, dune
        out[dune.parent.name] = m.group(1)
    return out


def test_every_theory_directory_is_documented(html):
    names = theory_names()
    assert {"rh", "dbr", "pullback"} <= set(names)
    for directory, logical in names.items():
        sources = [p.stem for p in (ROOT / "theories" / directory).glob("*.v") if p.stem != "extraction"]
        for stem in sources:
            assert (html / f"{logical}.{stem}.html").exists(), f"theories/{directory}/{stem}.v has no page"
    assert (html / "index.html").exists() and (html / "toc.html").exists()


def test_every_link_of_the_paper_map_resolves(html):
    links = LINK.findall(PAPER_MAP.read_text())
    assert len(links) >= 400, len(links)
    ids: dict[str, set[str]] = {}
    problems = []
    for name, page, anchor in links:
        if page not in ids:
            path = html / page
            ids[page] = set(re.findall(r'id="([^"]+)"', path.read_text())) if path.exists() else set()
        if not ids[page]:
            problems.append(f"{name}: no page {page}")
        elif anchor not in ids[page]:
            problems.append(f"{name}: {page} has no anchor #{anchor}")
        elif anchor.split(".")[-1] != name:
            problems.append(f"{name}: linked to #{anchor}")
    assert not problems, "\n".join(problems)


def test_the_links_cover_each_theory_of_the_map():
    pages = {page.split(".")[0] for _, page, _ in LINK.findall(PAPER_MAP.read_text())}
    assert {"RevHandlers", "DefineByRun", "Pullback"} <= pages


def test_a_known_link():
    text = PAPER_MAP.read_text()
    assert "[`typed_tm`](html/RevHandlers.typing.html#typed_tm)" in text


def test_the_paper_map_links_are_up_to_date():
    p = subprocess.run([sys.executable, "scripts/paper-map-links.py", "--check"], cwd=ROOT,
                       capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, "run python3 scripts/paper-map-links.py\n" + p.stderr
