"""Imports every module that registers commands, so the registry is complete."""

from . import app_commands, projects, sessions, settings  # noqa: F401
