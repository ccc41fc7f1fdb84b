"""The import contract: what import-linter checks (pyproject's [tool.importlinter]) and what it
cannot: no private name imported across modules, no cycle between modules, no numba.cuda under
cpu_reference."""

from __future__ import annotations

import ast
import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("cli", "gpu_anneal", "cpu_reference")


def _modules():
    for package in PACKAGES:
        for path in sorted((ROOT / package).rglob("*.py")):
            yield path, ast.parse(path.read_text(encoding="utf-8"), str(path))


def _imports(tree: ast.AST):
    """(line, imported module, names) of every import statement, at any depth."""
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.lineno, node.module, [a.name for a in node.names]
        elif isinstance(node, ast.Import):
            for alias in node.names:
                yield node.lineno, alias.name, []


def private_imports() -> list[str]:
    """'path:line: from module import _name' for every private name imported across modules."""
    found = []
    for path, tree in _modules():
        for line, module, names in _imports(tree):
            if module.split(".")[0] not in PACKAGES:
                continue
            for name in names:
                if name.startswith("_") and not name.startswith("__"):
                    found.append(f"{path.relative_to(ROOT)}:{line}: from {module} import {name}")
    return found


def test_no_private_name_is_imported_across_modules():
    """`from x import _name` between the project's modules: none."""
    assert private_imports() == []


def test_the_private_import_check_can_fail(tmp_path):
    """The check sees a private import in source it parses (so an empty list means something)."""
    tree = ast.parse("from cpu_reference.sudoku.exact import _secret\n")
    names = [n for _, m, ns in _imports(tree) if m.startswith("cpu_reference") for n in ns]
    assert names == ["_secret"]


def test_cpu_reference_never_imports_cuda_or_cupy():
    """numba.cuda and cupy stay out of cpu_reference (import-linter cannot name numba.cuda)."""
    bad = [
        f"{path.relative_to(ROOT)}:{line}: {module}"
        for path, tree in _modules()
        if path.relative_to(ROOT).parts[0] == "cpu_reference"
        for line, module, names in _imports(tree)
        if module.startswith(("numba.cuda", "cupy")) or (module == "numba" and "cuda" in names)
    ]
    assert bad == []


def test_no_import_cycle_between_modules():
    """The module import graph (function-level imports included) has no cycle."""
    graph: dict[str, set[str]] = {}
    for path, tree in _modules():
        rel = path.relative_to(ROOT).with_suffix("")
        name = ".".join(rel.parts[:-1] if rel.name == "__init__" else rel.parts)
        graph[name] = set()
        graph[name] = {(module, tuple(names)) for _, module, names in _imports(tree)}
    for name, imports in graph.items():  # `from package import module` names the module only
        targets = set()
        for module, names in imports:
            subs = {f"{module}.{n}" for n in names} & graph.keys()
            targets |= subs if subs and len(subs) == len(names) else {module}
        graph[name] = targets
    graph = {m: {t for t in targets if t in graph and t != m} for m, targets in graph.items()}
    assert _cycle(graph) is None


def _cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of the graph as a list of modules, or None (iterative depth-first search)."""
    state: dict[str, int] = {}
    for start in graph:
        if start in state:
            continue
        stack = [(start, iter(sorted(graph[start])))]
        path = [start]
        state[start] = 1
        while stack:
            node, children = stack[-1]
            child = next(children, None)
            if child is None:
                state[node] = 2
                stack.pop()
                path.pop()
            elif state.get(child) == 1:
                return path[path.index(child) :] + [child]
            elif child not in state:
                state[child] = 1
                path.append(child)
                stack.append((child, iter(sorted(graph[child]))))
    return None


def test_the_cycle_finder_finds_a_cycle():
    """_cycle reports a three-module loop and nothing for a chain."""
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}}) == ["a", "b", "c", "a"]
    assert _cycle({"a": {"b"}, "b": {"c"}, "c": set()}) is None


@pytest.mark.skipif(shutil.which("lint-imports") is None, reason="import-linter not installed")
def test_import_linter_contracts_are_kept():
    """lint-imports (layers cli > gpu_anneal > cpu_reference, independent puzzles) passes."""
    proc = subprocess.run(["lint-imports"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:]
