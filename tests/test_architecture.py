"""The package layout: layers point down, no import cycle, machinery names no claim.

The module import graph is read from the source with :mod:`ast`, *every* import included
(function-level and conditional ones too), so an import made inside a function to dodge
a cycle still counts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = ("bounds", "simulate", "verify")
#: the layers, top first: a module may import only from its own layer or those below it
LAYERS = ("verify", "simulate", "bounds")


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for p in (ROOT / pkg).rglob("*.py"):
            parts = list(p.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts = parts[:-1]
            out[".".join(parts)] = p
    return out


def _resolve(mod: str, node: ast.ImportFrom, is_pkg: bool) -> str:
    if not node.level:
        return node.module or ""
    base = mod.split(".") if is_pkg else mod.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (at any depth of its code)."""
    mods = _modules()
    graph: dict[str, set[str]] = {m: set() for m in mods}
    for m, path in mods.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        is_pkg = path.name == "__init__.py"
        for node in ast.walk(tree):
            targets = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = _resolve(m, node, is_pkg)
                targets = [f"{base}.{a.name}" for a in node.names] + [base]
            for t in targets:
                # the longest project module that the name denotes (a submodule, or the module of a name)
                while t and t not in mods:
                    t = t.rpartition(".")[0]
                if t and t != m and t.split(".")[0] in PACKAGES:
                    graph[m].add(t)
    # a package's __init__ is imported by its submodules' import: not an edge of the code itself
    for m in graph:
        graph[m] = {t for t in graph[m] if not m.startswith(t + ".")}
    return graph


def _cycles(graph) -> list[list[str]]:
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def strong(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in sorted(graph.get(v, ())):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    import sys

    sys.setrecursionlimit(10000)
    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_the_graph_sees_function_level_imports():
    g = import_graph()
    # verify.cli imports verify.report inside a function only: the graph must see it
    assert "verify.report" in g["verify.cli"]
    assert g["verify.documents.kim2022.theorems"] >= {"verify.core", "simulate.finite", "bounds"}


def test_no_import_cycle_function_level_imports_included():
    assert _cycles(import_graph()) == []


def test_a_cycle_would_be_found():  # the detector has power
    assert _cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == [["a", "b", "c"]]


def test_layers_point_down():
    up = []
    for m, targets in import_graph().items():
        lm = LAYERS.index(m.split(".")[0])
        for t in targets:
            if LAYERS.index(t.split(".")[0]) < lm:
                up.append(f"{m} -> {t}")
    assert up == []


def test_machinery_never_imports_a_claim_package():
    """Claims are found through entry points (verify.registry); no machinery module
    imports verify.documents.*, and nothing outside verify.claims does."""
    bad = [f"{m} -> {t}" for m, ts in import_graph().items() if not m.startswith("verify.documents")
           for t in ts if t.startswith("verify.documents")]
    assert bad == []


def _claim_ids() -> list[str]:
    import verify

    return list(verify.claims())


MACHINERY = [p for p in (ROOT / "verify").rglob("*.py") if "documents" not in p.parts]


@pytest.mark.parametrize("path", MACHINERY, ids=lambda p: str(p.relative_to(ROOT)))
def test_machinery_never_names_a_claim(path):
    """Readings, grid aliases, display names and figure branches are fields of a claim's
    definition; the machinery's code names no claim id (docstrings and usage text aside)."""
    tree = ast.parse(path.read_text())
    doc_nodes = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.ClassDef, ast.AsyncFunctionDef)):
            if node.body and isinstance(node.body[0], ast.Expr) and isinstance(node.body[0].value, ast.Constant):
                doc_nodes.add(id(node.body[0].value))
    ids = _claim_ids()
    named = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in doc_nodes:
            for cid in ids:
                if re.fullmatch(re.escape(cid), node.value):  # a claim id used as a value
                    named.append((node.lineno, cid))
    assert named == []
