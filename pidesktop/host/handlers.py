"""Imports every module that registers commands, so the registry is complete.

Each module registers its commands with ``@command`` when it is imported; a new
command module is added to ``COMMAND_MODULES`` by name.
"""

import importlib
from types import ModuleType

COMMAND_MODULES = (
    "app_commands",
    "attachments",
    "config_sync",
    "crash_reports",
    "data_commands",
    "data_repair",
    "fork",
    "history",
    "imports",
    "mcp.commands",
    "messages",
    "model_cache",
    "models",
    "native.commands",
    "notifications",
    "plans",
    "project_groups",
    "project_removal",
    "projects",
    "providers",
    "queue",
    "replayed",
    "revisions",
    "scheduled",
    "search",
    "sessions",
    "settings",
    "todo",
    "tools.audit",
    "tools.commands",
    "tools.review",
    "trash",
    "turns",
    "usage",
)

LOADED: tuple[ModuleType, ...] = tuple(importlib.import_module(f"{__package__}.{name}") for name in COMMAND_MODULES)
