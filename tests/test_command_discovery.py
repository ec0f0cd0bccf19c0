"""Commands are found where they are defined: every module of the host that registers one is imported, in
name order, with or without its source at hand, and the stdio host serves every registered command."""

from __future__ import annotations

import compileall
import pkgutil
import sys

from pidesktop.host import commands, handlers


def test_the_modules_found_are_exactly_those_that_registered_a_command():
    registering = {commands.lookup(name).__module__ for name in commands.names()}
    found = handlers.command_modules()
    assert set(found) == registering
    assert found == sorted(found) == handlers.command_modules()  # the same order on every start
    assert [module.__name__ for module in handlers.LOADED] == found


def test_a_module_is_recognised_from_its_compiled_code_when_no_source_ships(tmp_path):
    """A frozen build carries bytecode only: the decorator is seen in the code's names."""
    package = tmp_path / "probe_pkg"
    package.mkdir()
    (package / "__init__.py").write_text("")
    (package / "registers.py").write_text(
        'from pidesktop.host.commands import command\n\n\n@command("probe.x")\ndef x(ctx, p):\n    return {}\n'
    )
    (package / "mentions.py").write_text('"""Mentions\n@command( in its text but registers nothing."""\n')
    (package / "plain.py").write_text("VALUE = 1\n")
    assert compileall.compile_dir(str(package), legacy=True, quiet=1)
    for source in package.glob("*.py"):
        source.unlink()
    seen = {
        info.name: handlers._registers(info)
        for info in pkgutil.iter_modules([str(package)], "probe_pkg.")
        if not info.ispkg
    }
    assert seen == {"probe_pkg.registers": True, "probe_pkg.mentions": False, "probe_pkg.plain": False}
    assert "probe_pkg" not in sys.modules  # looked at, never run


def test_a_frozen_loader_that_names_a_source_it_does_not_carry_is_asked_for_its_code(tmp_path):
    """PyInstaller's loader gives each module a ``.py`` origin whose file is not in the bundle: reading it
    fails, and the compiled code answers instead (the bundle's ``pidesktop host --stdio`` once died here)."""
    import importlib.machinery

    (tmp_path / "frozen_probe.py").write_text(
        'from x import command\n\n\n@command("probe.z")\ndef z(ctx, p):\n    return {}\n'
    )
    [info] = [i for i in pkgutil.iter_modules([str(tmp_path)]) if i.name == "frozen_probe"]
    real = importlib.machinery.SourceFileLoader.get_data

    class Frozen(importlib.machinery.SourceFileLoader):
        def get_data(self, path):
            if path.endswith(".py"):
                raise FileNotFoundError(path)
            return real(self, path)

    spec = info.module_finder.find_spec(info.name, None)
    spec.loader = Frozen(spec.name, spec.origin)

    class Finder:
        @staticmethod
        def find_spec(name, target=None):
            return spec

    assert handlers._registers(pkgutil.ModuleInfo(Finder(), info.name, False)) is False  # neither source nor code
    code_spec = spec

    class CodeFrozen(Frozen):
        def get_code(self, fullname):
            return compile((tmp_path / "frozen_probe.py").read_text(), str(tmp_path / "frozen_probe.py"), "exec")

    code_spec.loader = CodeFrozen(spec.name, spec.origin)
    assert handlers._registers(pkgutil.ModuleInfo(Finder(), info.name, False)) is True


def test_a_source_file_counts_only_when_a_function_is_decorated(tmp_path):
    (tmp_path / "decorated.py").write_text(
        'from x import command\n\n\n@command("probe.y")\ndef y(ctx, p):\n    return {}\n'
    )
    (tmp_path / "docstring.py").write_text('"""Register with ``@command("name")``."""\n')
    seen = {info.name: handlers._registers(info) for info in pkgutil.iter_modules([str(tmp_path)])}
    assert seen == {"decorated": True, "docstring": False}


def test_every_registered_command_is_served_by_the_stdio_host(stdio_host, isolated_home):
    host = stdio_host()
    unreached = [
        name
        for name in commands.names()
        if host.request(name, {}).get("error", {}).get("data", {}).get("code") == "METHOD_NOT_FOUND"
    ]
    assert unreached == []
    assert len(commands.names()) >= 100
    missing = host.request("no.suchCommand", {})
    assert missing["error"]["data"]["code"] == "METHOD_NOT_FOUND"  # the probe can see an unserved command
    assert host.close() == 0
