"""Imports every module that registers commands, so the registry is complete."""

from .native import commands as _native_commands  # noqa: F401 - native.append
