"""The v27 DDL, shipped as a SQL file next to this module."""

from importlib import resources

SCHEMA_VERSION = 27


def ddl() -> str:
    return resources.files(__package__).joinpath("v27.sql").read_text(encoding="utf-8")
