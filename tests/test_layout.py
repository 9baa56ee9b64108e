"""The package's layout (docs/decisions.md, "One layout for three
systems"): the modules' own imports, read from their source, form no
cycle; the shared layer at the package root imports nothing from the
systems (``rh``, ``pullback``, ``dbr``) or the command line; no module
imports another's private (underscore) name; and imports are at the top of
a file, except those of an optional dependency."""

from __future__ import annotations

import ast
import functools
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parent.parent / "pytools" / "revhandlers"
SYSTEMS = ("rh", "pullback", "dbr")
#: the modules above the shared layer: the package's entry points
TOP = {"revhandlers", "revhandlers.cli", "revhandlers.__main__"}
#: optional dependencies (extras of pyproject.toml), imported where they
#: are used; and matplotlib, whose pyplot takes longer to import than the
#: rest of the command line and is needed only to write a plot
OPTIONAL = {"hypothesis", "sympy", "dask", "distributed", "torch", "matplotlib"}


def _name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _resolve(module: str, is_package: bool, node: ast.ImportFrom) -> str:
    base = module.split(".")
    if not is_package:
        base = base[:-1]
    base = base[:len(base) - (node.level - 1)] if node.level else []
    return ".".join(base + ([node.module] if node.module else []))


MODULES = {_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


@functools.cache
def _imports(module: str):
    """``(target, names, top_level, lineno)`` for each import of ``module``
    of a module of the package (targets resolved to module names)."""
    path = MODULES[module]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    top = _module_level(tree)
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            target = _resolve(module, path.name == "__init__.py", node) if node.level else node.module
            names = [a.name for a in node.names]
            for n in names:          # `from . import x` names a module
                if f"{target}.{n}" in MODULES:
                    out.append((f"{target}.{n}", [], id(node) in top, node.lineno))
            rest = [n for n in names if f"{target}.{n}" not in MODULES]
            if rest:
                out.append((target, rest, id(node) in top, node.lineno))
        elif isinstance(node, ast.Import):
            for a in node.names:
                out.append((a.name, [], id(node) in top, node.lineno))
    return out


def _module_level(tree: ast.Module) -> set[int]:
    """The statements run when the module is imported: its body and the
    bodies of its ``try`` and ``if`` statements, not those of functions."""
    found, todo = set(), list(tree.body)
    while todo:
        n = todo.pop()
        found.add(id(n))
        if not isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda)):
            todo.extend(c for c in ast.iter_child_nodes(n) if isinstance(c, (ast.stmt, ast.excepthandler)))
    return found


@functools.cache
def _graph() -> dict[str, set[str]]:
    return {m: {t for t, _, _, _ in _imports(m) if t in MODULES and t != m} for m in MODULES}


def test_the_package_has_the_three_systems_and_their_common_module_names():
    for system in SYSTEMS:
        assert f"revhandlers.{system}.command" in MODULES
        assert f"revhandlers.{system}.engine" in MODULES
        assert f"revhandlers.{system}.campaign" in MODULES
        assert f"revhandlers.{system}.syntax" in MODULES
    for role in ("surface", "sexp", "typecheck", "reference", "gen"):
        assert {f"revhandlers.{s}.{role}" for s in ("rh", "pullback")} <= set(MODULES)


def test_no_import_cycle():
    graph = _graph()
    state: dict[str, int] = {}
    path: list[str] = []

    def visit(m: str) -> list[str] | None:
        state[m] = 1
        path.append(m)
        for t in sorted(graph[m]):
            # a package's __init__ runs before its modules: importing the
            # package from one of its modules is not a cycle unless the
            # __init__ imports that module back
            if state.get(t) == 1:
                return path[path.index(t):] + [t]
            if t not in state:
                found = visit(t)
                if found:
                    return found
        state[m] = 2
        path.pop()
        return None

    for m in sorted(graph):
        if m not in state:
            cycle = visit(m)
            assert cycle is None, " -> ".join(cycle)


def test_the_shared_layer_imports_nothing_above_it():
    for m in MODULES:
        if m in TOP or m.split(".")[1] in SYSTEMS:
            continue
        above = sorted(t for t in _graph()[m] if t in TOP or t.split(".")[1] in SYSTEMS)
        assert not above, f"{m} imports {above}"


def test_the_systems_import_no_other_system_and_not_the_command_line():
    for m in MODULES:
        if m in TOP or m.split(".")[1] not in SYSTEMS:
            continue
        own = m.split(".")[1]
        bad = sorted(t for t in _graph()[m] if t in TOP or (t.split(".")[1] in SYSTEMS and t.split(".")[1] != own))
        assert not bad, f"{m} imports {bad}"


@pytest.mark.parametrize("module", sorted(MODULES))
def test_no_private_name_is_imported_from_another_module(module):
    private = [(t, n, line) for t, names, _, line in _imports(module) for n in names
               if t.startswith("revhandlers") and n.startswith("_") and not n.startswith("__")]
    assert not private, private


def _on_optional() -> set[str]:
    """The modules of the package built on an optional dependency (one of
    their own imports is one): imported where they are used, like it."""
    return {m for m in MODULES if any(top and t.split(".")[0] in OPTIONAL for t, _, top, _ in _imports(m))}


@pytest.mark.parametrize("module", sorted(MODULES))
def test_imports_are_at_the_top_except_optional_dependencies(module):
    optional = _on_optional()
    inner = [(t, line) for t, _, top, line in _imports(module)
             if not top and t.split(".")[0] not in OPTIONAL and t not in optional]
    assert not inner, inner


def test_the_command_line_needs_no_optional_dependency():
    """What ``revhandlers`` imports to start imports no optional dependency
    (a campaign says which extra it needs, exit code 2, rather than failing
    to start)."""
    seen: set[str] = set()
    todo = ["revhandlers.cli", "revhandlers"]
    while todo:
        m = todo.pop()
        if m in seen:
            continue
        seen.add(m)
        todo.extend(t for t, _, top, _ in _imports(m) if top and t in MODULES)
    needing = sorted(m for m in seen if m in _on_optional())
    assert not needing, needing
