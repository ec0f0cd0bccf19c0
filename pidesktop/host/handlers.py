"""Imports every module that registers commands, so the registry is complete."""

from . import (
    app_commands,
    attachments,
    config_sync,
    data_commands,
    fork,
    history,
    imports,
    messages,
    models,
    notifications,
    plans,
    project_groups,
    project_removal,
    projects,
    providers,
    queue,
    revisions,
    scheduled,
    search,
    sessions,
    settings,
    todo,
    trash,
    turns,
    usage,
)
from .mcp import commands as mcp_commands
from .native import commands as native_commands
from .tools import audit as tool_audit
from .tools import commands as tool_commands
from .tools import review as tool_review

# Named here so that the imports (done for their ``@command`` registrations) count as used.
REGISTERING = (
    app_commands,
    attachments,
    config_sync,
    data_commands,
    fork,
    history,
    imports,
    messages,
    models,
    notifications,
    plans,
    project_groups,
    project_removal,
    projects,
    providers,
    queue,
    revisions,
    scheduled,
    search,
    sessions,
    settings,
    todo,
    trash,
    turns,
    usage,
    mcp_commands,
    native_commands,
    tool_audit,
    tool_commands,
    tool_review,
)
