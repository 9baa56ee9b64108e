"""Execute every notebook headlessly.  coq-jupyter reports a failed Coq
sentence as an ordinary output, so each Coq output's `coq_kernel_evaluated`
metadata is checked; a Python cell's error fails the execution itself."""

from __future__ import annotations

import copy
from pathlib import Path

import nbformat
import pytest
from nbclient import NotebookClient
from nbclient.exceptions import CellExecutionError

ROOT = Path(__file__).resolve().parents[1]
NOTEBOOKS = sorted((ROOT / "notebooks").glob("*.ipynb"))


class NotebookFailed(AssertionError):
    pass


def execute(book, timeout: int = 600):
    client = NotebookClient(book, timeout=timeout, kernel_name=book.metadata["kernelspec"]["name"],
                            resources={"metadata": {"path": str(ROOT)}})
    try:
        client.execute()
    except CellExecutionError as e:
        raise NotebookFailed(str(e)) from None
    failures = []
    for i, cell in enumerate(book.cells):
        if cell.cell_type != "code":
            continue
        for out in cell.get("outputs", []):
            meta = out.get("metadata", {})
            if meta.get("coq_kernel_evaluated") is False:
                text = out.get("data", {}).get("text/plain", "")
                failures.append(f"cell {i}: {cell.source!r}\n{text}")
            if out.get("output_type") == "error":
                failures.append(f"cell {i}: {out.get('ename')}: {out.get('evalue')}")
        if book.metadata["kernelspec"]["name"] == "coq-revhandlers" and cell.source.strip() and not cell.outputs:
            failures.append(f"cell {i} produced no output: {cell.source!r}")
    if failures:
        raise NotebookFailed("\n".join(failures))
    return book


def test_all_four_notebooks_exist():
    assert [p.name for p in NOTEBOOKS] == ["01-syntax-and-typing.ipynb", "02-reverse-derivative.ipynb",
                                           "03-reverse-handlers.ipynb", "04-training-from-python.ipynb"]


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_notebook_runs_without_a_failed_cell(path):
    execute(nbformat.read(path, as_version=4))


@pytest.mark.parametrize("notebook,cell,message", [
    ("03-reverse-handlers", "Check no_such_lemma_in_the_theories.", "no_such_lemma_in_the_theories"),
    ("04-training-from-python", "assert 1 == 2, 'deliberately broken'", "deliberately broken"),
], ids=["coq", "python"])
def test_a_broken_cell_is_detected(notebook, cell, message):
    book = nbformat.read(ROOT / "notebooks" / f"{notebook}.ipynb", as_version=4)
    broken = copy.deepcopy(book)
    broken.cells.insert(3, nbformat.v4.new_code_cell(cell))
    with pytest.raises(NotebookFailed, match=message):
        execute(broken)


@pytest.mark.parametrize("path", NOTEBOOKS, ids=lambda p: p.stem)
def test_markdown_cells_are_headed_by_markdown(path):
    """The generator's "#md" marker is removed whole: a heading renders as a
    heading ("# 1. …"), not as "md# 1. …"."""
    book = nbformat.read(path, as_version=4)
    texts = [c.source for c in book.cells if c.cell_type == "markdown"]
    assert texts and texts[0].startswith("# ")
    assert not any(t.startswith("md") for t in texts)
