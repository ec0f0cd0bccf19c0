"""The layer rule: ui and agent reach the host only through the bus; the host never draws."""

import ast
import re
import subprocess
from pathlib import Path

import pytest

from tests.support.repo import REPO


def imported_modules(path: Path, root: Path = REPO) -> set[str]:
    """Absolute names of every module a file below ``root`` imports, relative imports resolved."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(root).with_suffix("").parts)
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


def files_of(layer: str, root: Path = REPO) -> list[Path]:
    return sorted((root / "pidesktop" / layer).rglob("*.py"))


def violations(layers: tuple[str, ...], forbidden: tuple[str, ...], root: Path = REPO) -> list[str]:
    """Every import of a ``forbidden`` module by a file of ``layers`` in the package below ``root``."""
    bad = []
    for layer in layers:
        for path in files_of(layer, root):
            for module in imported_modules(path, root):
                if any(module == f or module.startswith(f + ".") for f in forbidden):
                    bad.append(f"{path.relative_to(root)} imports {module}")
    return bad


def probe_tree(root: Path, files: dict[str, str]) -> Path:
    """A stand-in package below ``root`` holding only ``files`` (path below pidesktop/ -> source).

    The guards are tested on a copy, never by writing into the real package while other tests read it."""
    for name, source in files.items():
        path = root / "pidesktop" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(source, encoding="utf-8")
    return root


def test_ui_and_agent_never_import_apsw_or_the_host():
    assert files_of("ui") and files_of("agent")
    assert violations(("ui", "agent"), ("apsw", "pidesktop.host")) == []


def test_host_and_bus_never_import_qt_ui_or_agent():
    assert files_of("host") and files_of("bus")
    assert violations(("host", "bus"), ("PySide6", "qasync", "pidesktop.ui", "pidesktop.agent")) == []


def test_the_scanner_sees_relative_imports(tmp_path):
    """Guard the guard: a relative import of the host from ui is caught."""
    root = probe_tree(tmp_path, {"ui/_layering_probe.py": "from ..host import core\nimport apsw\n"})
    assert sorted(violations(("ui",), ("apsw", "pidesktop.host"), root)) == [
        "pidesktop/ui/_layering_probe.py imports apsw",
        "pidesktop/ui/_layering_probe.py imports pidesktop.host",
        "pidesktop/ui/_layering_probe.py imports pidesktop.host.core",
    ]


def test_import_linter_contracts_hold():
    linter = Path(__import__("sys").executable).parent / "lint-imports"
    if not linter.exists():
        pytest.skip("import-linter is not installed in this environment")
    result = subprocess.run([str(linter), "--no-cache"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stdout + result.stderr


# -- the UI reaches the data folder only through the host ------------------------------------------
# The storage layer's cold functions are for when no host runs: the start-up window (a pending move, a
# missing default root, before any host opens) and the move wizard (checking a destination and journalling
# the move for the next start). Everything else in the UI asks the host (data.* commands). Exactly these
# names, and no other UI module:
UI_STORAGE_IMPORTS = {
    # Restore writes only a new folder no host has opened.
    "pidesktop/ui/data/backup_dialogs.py": {
        "errors.StorageJobError",
        "snapshot_format",
        "snapshot_restore",
        "vault",
        "blobstore.FolderStore",
        "blobstore.S3Store",
        "s3",
        "errors.Refused",
    },
    "pidesktop/ui/startup/window_base.py": {"recovery", "errors.StorageJobError"},
    "pidesktop/ui/startup/move_window.py": {"move", "recovery", "errors.StorageJobError"},
    "pidesktop/ui/startup/missing_root_window.py": {"recovery"},
    "pidesktop/ui/startup/migration_window.py": {
        "errors.StorageJobError",
        "schema_update.BYTE_PHASES",
        "schema_update.MigrationDone",
        "schema_update.SchemaCheck",
        "schema_update.backups_after_failure",
        "schema_update.main_backup",
        "schema_update.migrate",
    },
    "pidesktop/ui/startup/prepare.py": {"recovery", "schema_update.schema_check"},
    "pidesktop/ui/data/storage_wizard.py": {
        "inventory",
        "journal",
        "move",
        "old_roots",
        "errors.StorageJobError",
        "journal.PendingMove",
    },
}


def storage_names(path: Path) -> set[str]:
    """What ``path`` imports from pidesktop.storage, as ``module`` or ``module.name`` below the package."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parts = list(path.relative_to(REPO).with_suffix("").parts)[:-1]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found |= {alias.name for alias in node.names if alias.name.startswith("pidesktop.storage")}
            continue
        if not isinstance(node, ast.ImportFrom):
            continue
        base = (
            ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
            if node.level
            else (node.module or "")
        )
        if base == "pidesktop.storage":
            found |= {alias.name for alias in node.names}
        elif base.startswith("pidesktop.storage."):
            found |= {f"{base[len('pidesktop.storage.') :]}.{alias.name}" for alias in node.names}
    return found


def test_only_the_startup_window_and_the_move_wizard_import_storage():
    actual = {str(path.relative_to(REPO)): names for path in files_of("ui") if (names := storage_names(path))}
    assert actual == UI_STORAGE_IMPORTS


# -- no import cycles inside a package ----------------------------------------------------------------
def _runtime_imports(tree: ast.AST) -> list[ast.Import | ast.ImportFrom]:
    """Every import statement of a module, lazy ones inside functions included, but not those under
    ``if TYPE_CHECKING:`` (annotations only; they never run)."""
    found = []

    def visit(node: ast.AST) -> None:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                for other in child.orelse:
                    visit(other)
                continue
            if isinstance(child, (ast.Import, ast.ImportFrom)):
                found.append(child)
            visit(child)

    visit(tree)
    return found


def import_graph(package: str, root: Path = REPO) -> dict[str, set[str]]:
    """Module -> the modules of ``package`` it imports at run time (lazy imports included).

    ``from . import x`` is an edge to the submodule ``x`` (not to the package's
    ``__init__``); ``from .m import name`` is an edge to ``m``. Only edges inside
    ``package`` are kept.
    """
    folder = root.joinpath(*package.split("."))
    modules = {}
    for path in sorted(folder.rglob("*.py")):
        parts = list(path.relative_to(root).with_suffix("").parts)
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        modules[name] = path

    def owner(dotted: str) -> str | None:
        while dotted and dotted not in modules:  # "pkg.mod.func" -> "pkg.mod"
            dotted = dotted.rpartition(".")[0]
        return dotted or None

    graph: dict[str, set[str]] = {}
    for name, path in modules.items():
        parts = list(path.relative_to(root).with_suffix("").parts)[:-1]
        targets = []
        for node in _runtime_imports(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets += [owner(alias.name) for alias in node.names]
                continue
            base = (
                ".".join(parts[: len(parts) - node.level + 1] + ([node.module] if node.module else []))
                if node.level
                else (node.module or "")
            )
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                targets.append(sub if sub in modules else owner(base))
        graph[name] = {t for t in targets if t and t != name and (t == package or t.startswith(package + "."))}
    return graph


def find_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every strongly connected group of more than one module (Tarjan), each as a sorted list."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for target in sorted(graph.get(node, ())):
            if target not in index:
                visit(target)
                low[node] = min(low[node], low[target])
            elif target in on_stack:
                low[node] = min(low[node], index[target])
        if low[node] == index[node]:
            group = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.append(member)
                if member == node:
                    break
            if len(group) > 1:
                groups.append(sorted(group))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return sorted(groups)


def assert_no_cycles(package: str) -> None:
    """Fail, naming the modules, if any modules of ``package`` import each other in a circle."""
    graph = import_graph(package)
    assert graph, f"no modules found for {package}"
    cycles = find_cycles(graph)
    assert cycles == [], f"import cycles in {package}: " + "; ".join(" <-> ".join(c) for c in cycles)


@pytest.mark.parametrize(
    "package",
    [
        "pidesktop.ui",
        "pidesktop.host",
        "pidesktop.workflows",
        "pidesktop.agent",
        "pidesktop.storage",
        "pidesktop.bus",
        "pidesktop",
    ],
)
def test_every_package_reads_top_down(package):
    """No modules import each other in a circle, lazily or not, within a package or across the project."""
    assert_no_cycles(package)


def test_the_cycle_finder_sees_a_lazy_circle(tmp_path):
    """Guard the guard: two ui modules that import each other (one inside a function) form a cycle."""
    root = probe_tree(
        tmp_path,
        {
            "ui/__init__.py": "",
            "ui/_cycle_probe_a.py": "from . import _cycle_probe_b\n",
            "ui/_cycle_probe_b.py": "def f():\n    from ._cycle_probe_a import x\n",
        },
    )
    assert find_cycles(import_graph("pidesktop.ui", root)) == [
        ["pidesktop.ui._cycle_probe_a", "pidesktop.ui._cycle_probe_b"]
    ]


# -- no import cycles between packages ------------------------------------------------------------
def package_graph(graph: dict[str, set[str]], root: Path = REPO) -> dict[str, set[str]]:
    """The module graph folded onto folders: package -> the packages its modules import.

    A package and the packages inside it are not an edge either way: a folder's ``__init__`` may name its
    own modules, and its modules may import their folder's shared top-level modules."""

    def folder(module: str) -> str:
        return module if root.joinpath(*module.split("."), "__init__.py").exists() else module.rpartition(".")[0]

    folded: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = folder(module)
        folded.setdefault(source, set())
        for target in map(folder, targets):
            if not (target == source or target.startswith(source + ".") or source.startswith(target + ".")):
                folded[source].add(target)
    return folded


def test_no_two_folders_import_each_other():
    """Every folder of the project reads top down too: no package reaches, through any of its modules, a
    package that reaches back (host <-> storage was one the module-level check could not see)."""
    cycles = find_cycles(package_graph(import_graph("pidesktop")))
    assert cycles == [], "folders importing each other: " + "; ".join(" <-> ".join(c) for c in cycles)


def test_the_folder_check_sees_two_packages_in_a_circle(tmp_path):
    """Guard the guard: two folders whose modules import each other, neither module in a module cycle."""
    root = probe_tree(
        tmp_path,
        {
            "ui/__init__.py": "",
            "ui/_probe_a/__init__.py": "",
            "ui/_probe_a/one.py": "from pidesktop.ui._probe_b import two\n",
            "ui/_probe_a/three.py": "",
            "ui/_probe_b/__init__.py": "",
            "ui/_probe_b/two.py": "",
            "ui/_probe_b/four.py": "def f():\n    from pidesktop.ui._probe_a import three\n",
        },
    )
    graph = import_graph("pidesktop.ui", root)
    assert find_cycles(graph) == []
    assert find_cycles(package_graph(graph, root)) == [["pidesktop.ui._probe_a", "pidesktop.ui._probe_b"]]


# -- docs/architecture.md mirrors the layers contract and the code -------------------------------------
def contract_layers() -> list[set[str]]:
    """The import-linter ``layers`` contract, top down, each layer as the set of its names below ``pidesktop.``."""
    import tomllib

    config = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["tool"]["importlinter"]
    (contract,) = [c for c in config["contracts"] if c["type"] == "layers"]
    return [{part.strip().removeprefix("pidesktop.") for part in layer.split("|")} for layer in contract["layers"]]


def architecture_section() -> str:
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    return text[text.index("## Packages") : text.index("## The bus")]


def documented_layers(section: str) -> list[set[str]]:
    """The numbered list: backticked names, ``|`` between two of one layer, anything else between two layers."""
    listing = re.search(r"^1\. .*?(?=\n\n)", section, re.M | re.S)
    assert listing, "the numbered list of layers is missing"
    pieces = re.split(r"`([^`]+)`", listing.group(0))
    layers: list[set[str]] = []
    for gap, name in zip(pieces[0::2], pieces[1::2]):
        if layers and "|" in gap:
            layers[-1].add(name)
        else:
            layers.append({name})
    return layers


def documented_imports(section: str) -> dict[str, set[str]]:
    """Row -> the project packages its "may import" cell names in backticks (``everything below``: None)."""
    names = set().union(*contract_layers()) | {"bus"}
    rows = {}
    for line in section.splitlines():
        cells = [cell.strip() for cell in line.strip().strip("|").split("|")]
        if len(cells) == 3 and re.fullmatch(r"`[a-z_.]+`", cells[0]):
            rows[cells[0].strip("`")] = (
                None if "everything below" in cells[2] else set(re.findall(r"`([^`]+)`", cells[2])) & names
            )
    return rows


def actual_imports() -> dict[str, set[str]]:
    """Top-level package -> the project packages (bus parts by name) its modules import, outside itself."""

    def unit(module: str) -> str | None:
        parts = module.split(".")[1:]
        if not parts:
            return None  # ``pidesktop`` itself: the version
        return ".".join(parts[:2]) if parts[0] == "bus" and len(parts) > 1 else parts[0]

    found: dict[str, set[str]] = {}
    for module, targets in import_graph("pidesktop").items():
        source = unit(module)
        for target in map(unit, targets):
            if source and target and target.split(".")[0] != source.split(".")[0]:
                found.setdefault(source.split(".")[0], set()).add(target)
    return found


def test_the_documented_layers_are_the_contract():
    assert documented_layers(architecture_section()) == contract_layers()


def test_the_may_import_table_says_what_each_package_imports_and_only_what_lies_below_it():
    layers = contract_layers()

    def depth(name: str) -> list[int]:
        return [i for i, layer in enumerate(layers) for entry in layer if entry == name or entry.startswith(name + ".")]

    table = documented_imports(architecture_section())
    assert set(table) >= {"commands", "app", "ui", "agent", "bus", "workflows", "host", "storage", "formats"}
    actual = actual_imports()
    for package, listed in table.items():
        below = max(depth(package))
        imported = actual.get(package, set())
        assert all(min(depth(name)) > below for name in imported), f"{package} imports a layer above it"
        if listed is None:
            continue
        listed = {name for name in listed if name.split(".")[0] != package}  # the bus's row names its own parts
        uncovered = {t for t in imported if t not in listed and t.split(".")[0] not in listed}
        stale = {n for n in listed if not any(t == n or t.startswith(n + ".") for t in imported)}
        assert (uncovered, stale) == (set(), set()), f"docs/architecture.md's row for {package}"
        assert all(min(depth(name)) > below for name in listed), f"{package}'s row names a layer above it"


def test_the_table_check_sees_a_missing_and_a_stale_entry():
    """Guard the guard: a row is read from its backticks, and ``everything below`` is no list."""
    section = (
        "| `host` | all | `storage`, `bus.errors` (codes), the `data.*` jobs; apsw |\n"
        "| `commands` | cli | everything below |\n"
        "1. `host`, then `storage` | `formats`\n\n"
    )
    assert documented_imports(section) == {"host": {"storage", "bus.errors"}, "commands": None}
    assert documented_layers(section) == [{"host"}, {"storage", "formats"}]


def test_every_module_has_its_place_in_the_layers():
    """The contract states the whole order: each module of the project is inside one of its layers, but for the
    two package ``__init__`` files that only name what is below (``pidesktop``'s version, the bus's exports)."""
    names = set().union(*contract_layers())
    unplaced = {
        module
        for module in import_graph("pidesktop")
        if not any(module == f"pidesktop.{name}" or module.startswith(f"pidesktop.{name}.") for name in names)
    }
    assert unplaced == {"pidesktop", "pidesktop.bus"}
