"""The pi folders are resolved once and kept, and any change to what they were resolved from is still seen."""

from __future__ import annotations

import os
import time
from pathlib import Path

import orjson
import pytest

from pidesktop.host.native.roots_cache import RootsCache
from tests.test_native_discovery import native_rows, session_file


@pytest.fixture
def agent(isolated_home) -> Path:
    folder = Path(os.environ["PI_CODING_AGENT_DIR"])
    (folder / "sessions").mkdir(parents=True)
    return folder


def settled(path: Path) -> None:
    """Dated a minute back, as a settings file untouched for a while is (a fresh one is never kept)."""
    past = time.time() - 60
    os.utime(path, (past, past))


def write_settings(path: Path, session_dir: str) -> None:
    path.write_bytes(orjson.dumps({"sessionDir": session_dir}))
    settled(path)


def folder_with(root: Path, name: str, prompt: str) -> Path:
    root.mkdir(parents=True)
    (root / f"{name}.jsonl").write_bytes(session_file(name, "/somewhere", prompt))
    return root


def test_the_roots_are_kept_while_nothing_they_come_from_changes(agent, tmp_path):
    write_settings(agent / "settings.json", str(folder_with(tmp_path / "one", "one", "first")))
    cache = RootsCache()
    first = cache.roots([])
    assert first.extra == (str(tmp_path / "one"),)
    assert cache.roots([]) is first  # kept: not resolved again


def test_a_rewritten_settings_file_is_seen(agent, tmp_path):
    write_settings(agent / "settings.json", str(folder_with(tmp_path / "one", "one", "first")))
    cache = RootsCache()
    assert cache.roots([]).extra == (str(tmp_path / "one"),)
    (agent / "settings.json").write_bytes(orjson.dumps({"sessionDir": str(tmp_path / "two")}))
    assert cache.roots([]).extra == (str(tmp_path / "two"),)
    (agent / "settings.json").unlink()
    assert cache.roots([]).extra == ()


def test_a_project_settings_file_and_a_new_project_are_seen(agent, tmp_path):
    project = tmp_path / "proj"
    (project / ".pi").mkdir(parents=True)
    write_settings(project / ".pi" / "settings.json", "mine")
    cache = RootsCache()
    assert cache.roots([]).extra == ()
    assert cache.roots([str(project)]).extra == (str(project / "mine"),)
    write_settings(project / ".pi" / "settings.json", "theirs")  # the same size, the mtime moved
    assert cache.roots([str(project)]).extra == (str(project / "theirs"),)


def test_a_folder_swapped_for_another_behind_a_link_is_seen(agent, tmp_path):
    folder_with(tmp_path / "a", "a", "in a")
    folder_with(tmp_path / "b", "b", "in b")
    link = tmp_path / "current"
    link.symlink_to(tmp_path / "a", target_is_directory=True)
    write_settings(agent / "settings.json", str(link))
    cache = RootsCache()
    assert cache.roots([]).extra == (str(tmp_path / "a"),)
    link.unlink()
    link.symlink_to(tmp_path / "b", target_is_directory=True)
    assert cache.roots([]).extra == (str(tmp_path / "b"),)


def test_the_default_root_moved_by_the_environment_is_seen(agent, tmp_path, monkeypatch):
    cache = RootsCache()
    assert cache.roots([]).default == str(agent / "sessions")
    elsewhere = tmp_path / "other-agent"
    (elsewhere / "sessions").mkdir(parents=True)
    monkeypatch.setenv("PI_CODING_AGENT_DIR", str(elsewhere))
    assert cache.roots([]).default == str(elsewhere / "sessions")


def test_search_and_list_see_a_settings_change_after_the_roots_were_kept(host, agent, tmp_path):
    write_settings(agent / "settings.json", str(folder_with(tmp_path / "one", "one", "persimmon first")))
    assert [r["title"] for r in native_rows(host)] == ["persimmon first"]
    found = host.call("search.sessions", {"query": "persimmon"})["results"]
    assert [r["title"] for r in found] == ["persimmon first"]
    folder_with(tmp_path / "two", "two", "persimmon second")
    write_settings(agent / "settings.json", str(tmp_path / "two"))
    found = host.call("search.sessions", {"query": "persimmon"})["results"]
    assert [r["title"] for r in found] == ["persimmon second"]
    assert [r["title"] for r in native_rows(host)] == ["persimmon second"]
