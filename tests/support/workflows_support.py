"""Shared builders and fixtures for the Pi Workflows state tests (no tests here)."""

from __future__ import annotations

import hashlib
from pathlib import Path

import apsw
import pytest

from pidesktop.workflows import db, definitions, projects, runs, schema
from tests.support.clock import Clock

DEFINITION = {
    "nodes": [
        {"id": "plan", "kind": "agent", "expectedOutput": "a plan as JSON"},
        {"id": "reply", "kind": "agent", "expectedOutput": {"kind": "assistant-message", "maxChars": 40}},
        {"id": "free", "kind": "agent", "expectedOutput": {"kind": "assistant-message"}},
        {"id": "build", "kind": "shell"},
    ]
}


def open_store(path: Path, clock=None) -> db.Store:
    return db.open_writer(path, clock=clock)


def project_and_definition(store, tmp_path: Path, name: str = "flow") -> tuple[str, str]:
    folder = tmp_path / "project"
    folder.mkdir(exist_ok=True)
    project = projects.register(store, folder)
    definition = definitions.register(store, project.project_id, name, 1, DEFINITION)
    return project.project_id, definition.definition_id


def running_run(
    store,
    project_id: str,
    definition_id: str,
    *,
    owner: str = "host-a",
    ttl_ms: int = 60_000,
    pi_session_id: str | None = None,
    input=None,
    bindings=None,
):
    ref = runs.create(
        store,
        project_id=project_id,
        definition_id=definition_id,
        input=input,
        pi_session_id=pi_session_id,
        bindings=bindings,
    )
    return runs.claim(store, ref.run_id, owner, ttl_ms=ttl_ms, expected_revision=ref.revision)


def snapshot(path: Path) -> str:
    """A digest of every row of every table, read through a separate connection."""
    conn = apsw.Connection(f"file:{path}?mode=ro", flags=apsw.SQLITE_OPEN_READONLY | apsw.SQLITE_OPEN_URI)
    try:
        digest = hashlib.sha256()
        for name in schema.table_names():
            for row in conn.execute(f'SELECT * FROM "{name}" ORDER BY rowid'):
                digest.update(repr(row).encode())
        conn.execute("SELECT 1").fetchall()
        return digest.hexdigest()
    finally:
        conn.close()


def count(store, table: str, where: str = "1", params=()) -> int:
    return store.conn.execute(f"SELECT count(*) FROM {table} WHERE {where}", params).fetchone()[0]


# -- fixtures (imported by the test modules) ---------------------------------------


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def path(tmp_path):
    return tmp_path / "workflows" / "state.sqlite"


@pytest.fixture
def store(path, clock):
    opened = open_store(path, clock)
    yield opened
    opened.close()


@pytest.fixture
def flow(store, tmp_path):
    return project_and_definition(store, tmp_path)
