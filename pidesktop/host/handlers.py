"""Imports every module that registers commands, so the registry is complete."""

from . import app_commands, messages, notifications, projects, search, sessions, settings, turns  # noqa: F401
