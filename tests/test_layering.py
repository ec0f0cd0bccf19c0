"""The layer rule: ui and agent reach the host only through the bus; the host never draws."""

import ast
import subprocess
from pathlib import Path

import pytest

from .conftest import REPO

PACKAGE = REPO / "pidesktop"


def imported_modules(path: Path) -> set[str]:
    """Absolute names of every module a file imports, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(REPO).with_suffix("").parts)
    package = parts[:-1] if parts[-1] != "__init__" else parts[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package[: len(package) - node.level + 1]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            found.add(module)
            found |= {f"{module}.{alias.name}" for alias in node.names}
    return found


def files_of(layer: str) -> list[Path]:
    return sorted((PACKAGE / layer).rglob("*.py"))


def violations(layers: tuple[str, ...], forbidden: tuple[str, ...]) -> list[str]:
    bad = []
    for layer in layers:
        for path in files_of(layer):
            for module in imported_modules(path):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    bad.append(f"{path.relative_to(REPO)} imports {module}")
    return bad


def test_ui_and_agent_never_import_apsw_or_the_host():
    assert files_of("ui") and files_of("agent")
    assert violations(("ui", "agent"), ("apsw", "pidesktop.host")) == []


def test_host_and_bus_never_import_qt_ui_or_agent():
    assert files_of("host") and files_of("bus")
    assert violations(("host", "bus"), ("PySide6", "qasync", "pidesktop.ui", "pidesktop.agent")) == []


def test_the_scanner_sees_relative_imports(tmp_path):
    """Guard the guard: a relative import of the host from ui is caught."""
    sample = PACKAGE / "ui" / "_layering_probe.py"
    sample.write_text("from ..host import db\nimport apsw\n")
    try:
        assert sorted(violations(("ui",), ("apsw", "pidesktop.host"))) == [
            "pidesktop/ui/_layering_probe.py imports apsw",
            "pidesktop/ui/_layering_probe.py imports pidesktop.host",
            "pidesktop/ui/_layering_probe.py imports pidesktop.host.db",
        ]
    finally:
        sample.unlink()


def test_import_linter_contracts_hold():
    linter = Path(__import__("sys").executable).parent / "lint-imports"
    if not linter.exists():
        pytest.skip("import-linter is not installed in this environment")
    result = subprocess.run([str(linter), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr
