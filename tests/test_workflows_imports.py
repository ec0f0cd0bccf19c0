"""The Pi Workflows package imports top-down: no import cycles (nor host history <-> revisions).

The graph is read from the source with ``ast``, so an import inside a function
counts as much as one at the top of a module: a cycle hidden in a function
body is still a cycle between the two modules.
"""

from __future__ import annotations

import ast
from pathlib import Path

from .conftest import REPO


def module_name(root: Path, package: str, path: Path) -> str:
    parts = list(path.relative_to(root).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join([package, *parts]) if parts else package


def import_graph(package: str) -> dict[str, set[str]]:
    """module -> the modules of ``package`` it imports (every import statement, at any depth)."""
    root = REPO.joinpath(*package.split("."))
    files = {module_name(root, package, p): p for p in sorted(root.rglob("*.py"))}
    graph: dict[str, set[str]] = {}
    for name, path in files.items():
        is_package = path.name == "__init__.py"
        here = name if is_package else name.rpartition(".")[0]
        edges: set[str] = set()
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = here.split(".")
                    base = base[: len(base) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                # ``from . import x`` names the submodule x; ``from .m import f`` names module m.
                targets = [f"{origin}.{a.name}" if f"{origin}.{a.name}" in files else origin for a in node.names]
            else:
                continue
            for target in targets:
                while target and target not in files:
                    target = target.rpartition(".")[0]
                # Importing a submodule runs its package's __init__ first, but the
                # package does not depend on the module that imports it: only the
                # named module is an edge. A module never depends on itself.
                if target and target != name and target.startswith(package):
                    edges.add(target)
        graph[name] = edges
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = 0

    def visit(node: str) -> None:
        nonlocal counter
        index[node] = low[node] = counter
        counter += 1
        stack.append(node)
        on_stack.add(node)
        for child in sorted(graph.get(node, ())):
            if child not in index:
                visit(child)
                low[node] = min(low[node], low[child])
            elif child in on_stack:
                low[node] = min(low[node], index[child])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(found)


def test_the_graph_sees_function_level_imports():
    # The reader itself: a function-level import is an edge like any other.
    graph = import_graph("pidesktop.workflows")
    assert "pidesktop.workflows.status" in graph["pidesktop.workflows.cli"]
    assert "pidesktop.workflows.db" in graph["pidesktop.workflows.status"]
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_the_workflows_package_has_no_import_cycle():
    assert cycles(import_graph("pidesktop.workflows")) == []


def test_host_history_and_revisions_are_in_no_import_cycle():
    # Only these two: other host modules are being changed by other work, and
    # a circle elsewhere in the host is reported there, not here.
    mine = {"pidesktop.host.history", "pidesktop.host.revisions"}
    graph = import_graph("pidesktop.host")
    assert "pidesktop.host.revisions" in graph["pidesktop.host.history"]
    assert [group for group in cycles(graph) if mine & set(group)] == []
