"""Finds and imports every module of ``pidesktop.host`` that registers commands, so the registry is complete.

A module registers its commands with ``@command`` when it is imported; nothing
lists it anywhere else. Discovery walks the package (``pkgutil``), looks at
each module without running it and imports, in name order, those that use the
decorator: the source is searched for a line that starts with ``@command(`` or
``command(`` (a file read, no compiling), or, in a frozen build that carries no source, the module's compiled code is
asked whether its top level names ``command``. Modules that register nothing
are not imported here.
"""

from __future__ import annotations

import importlib
import pkgutil
from types import ModuleType

import pidesktop.host

DECORATOR = "command"  # ``from pidesktop.host.commands import command``
# A top-level registration: ``@command(`` above a function, or ``command(...)(handler)`` for a made one
# (plain searches are the cheapest).
REGISTRATIONS = (b"\n@command(", b"\ncommand(")


def command_modules() -> list[str]:
    """The dotted names of the modules that register commands, sorted."""
    found = []
    for info in pkgutil.walk_packages(pidesktop.host.__path__, f"{pidesktop.host.__name__}."):
        if not info.ispkg and _registers(info):
            found.append(info.name)
    return sorted(found)


def _registers(info: pkgutil.ModuleInfo) -> bool:
    spec = info.module_finder.find_spec(info.name, None)
    if spec is None or spec.loader is None:
        return False
    loader = spec.loader
    if spec.has_location and spec.origin is not None and spec.origin.endswith(".py"):
        get_data = getattr(loader, "get_data", None)
        if get_data is not None:
            try:
                source = get_data(spec.origin)
            except OSError:  # a frozen build names a .py it does not carry: its compiled code says, below
                source = None
            if source is not None:
                return any(registration in source for registration in REGISTRATIONS)
    get_code = getattr(loader, "get_code", None)
    try:
        code = get_code(info.name) if get_code is not None else None
    except (OSError, ImportError):  # neither source nor code to look at: it registers nothing we can see
        code = None
    # the registry's own module defines the name and registers nothing
    return code is not None and DECORATOR in code.co_names and info.name != f"{__package__}.commands"


LOADED: tuple[ModuleType, ...] = tuple(importlib.import_module(name) for name in command_modules())
