"""Imports every module that registers commands, so the registry is complete."""

from . import app_commands, attachments, messages, models, notifications, projects, providers, search, sessions, settings, turns, usage, queue, history, revisions, fork, data_commands, project_groups, project_removal, scheduled, plans, todo, imports, trash  # noqa: F401,E501
from .native import commands as _native_commands  # noqa: F401,E402 - native.append
