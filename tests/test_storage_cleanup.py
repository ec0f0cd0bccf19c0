"""Cache cleanup never follows a link or leaves the allowlist; backup cleanup never deletes active data."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import orjson
import pytest

from pidesktop import paths
from pidesktop.storage import cache, cleanup, move, old_roots
from pidesktop.storage.errors import Refused
from tests.support.cli import run_cli
from tests.support.hosts import InProcessHost
from tests.test_storage_seed import seed, snapshot


def fill(folder: Path, tag: str) -> None:
    (folder / "nested" / "deeper").mkdir(parents=True, exist_ok=True)
    (folder / f"{tag}.bin").write_bytes(b"x" * 100)
    (folder / "nested" / "deeper" / f"{tag}.txt").write_text(tag)


@pytest.fixture
def profile(tmp_path):
    location = paths.resolve()
    paths.prepare_data_root(location)
    root = location.data_root
    (root / "sessions" / "keep.jsonl").write_text('{"type":"session"}\n')
    (root / "attachments" / "blob").write_bytes(b"attachment")
    outside = tmp_path / "outside"
    fill(outside, "outside")
    return location, outside


def removed_only_inside(before: dict, after: dict, allowed: list[Path]) -> None:
    """Every entry that changed or vanished lies inside a real (not linked) allowlisted folder."""
    for path, entry in before.items():
        if after.get(path) != entry:
            assert any(Path(path).is_relative_to(folder) and Path(path) != folder for folder in allowed), path
    assert set(after) <= set(before)


def test_links_planted_everywhere_redirect_nothing(profile, tmp_path, isolated_home):
    location, outside = profile
    root, ui = location.data_root, location.ui_root
    for folder in (
        root / "cache",
        root / "plugins" / "cache" / "download",
        root / "openable-attachments",
        ui / "cache",
    ):
        folder.mkdir(parents=True, exist_ok=True)
        fill(folder, folder.name)
        os.symlink(outside, folder / "link-out")  # a link to a folder elsewhere
        os.symlink(root / "sessions", folder / "link-in")  # a link to a folder of the same profile
        os.symlink(root / "attachments" / "blob", folder / "file-link")
        os.symlink(outside, folder / "nested" / "deep-link")
    os.symlink(outside, root / "plugins" / "cache" / "backup")  # the cache folder itself is a link
    before = snapshot(isolated_home, tmp_path)

    report = cache.clean(location)

    after = snapshot(isolated_home, tmp_path)
    real = [root / "cache", root / "plugins" / "cache" / "download", root / "openable-attachments", ui / "cache"]
    removed_only_inside(before, after, real)
    for folder in real:
        assert folder.is_dir() and list(folder.iterdir()) == []
    assert (root / "plugins" / "cache" / "backup").is_symlink()
    assert snapshot(outside) == {k: v for k, v in before.items() if k.startswith(str(outside) + "/")}
    assert (root / "sessions" / "keep.jsonl").exists() and (root / "attachments" / "blob").exists()
    states = {str(f.path): f.state for f in report.folders}
    assert states[str(root / "plugins" / "cache" / "backup")] == cache.LINK
    assert report.ok and report.removed_files == 4 * 6


def test_an_intermediate_link_is_not_followed(profile, tmp_path, isolated_home):
    location, outside = profile
    root = location.data_root
    fake = tmp_path / "lookalike"
    fill(fake / "download", "download")
    fill(fake / "backup", "backup")
    (root / "plugins").mkdir()
    os.symlink(fake, root / "plugins" / "cache")  # plugins/cache -> elsewhere
    location.ui_root.mkdir(parents=True)
    os.symlink(outside, location.ui_root / "cache")  # the front-end cache is a link elsewhere
    (root / "openable-attachments").symlink_to(root / "sessions")  # a same-profile redirect
    before = snapshot(isolated_home, tmp_path)
    sizes = {str(f.path): f.state for f in cache.sizes(location)}
    assert sizes[str(root / "plugins" / "cache" / "download")] == cache.LINK
    assert sizes[str(root / "openable-attachments")] == cache.LINK
    report = cache.clean(location)
    assert snapshot(isolated_home, tmp_path) == {
        k: v for k, v in before.items() if not k.startswith(str(root / "cache") + "/")
    }
    assert {f.state for f in report.folders if f.path != root / "cache"} <= {cache.LINK, cache.ABSENT}


def test_cache_cleanup_is_refused_while_a_host_runs(profile):
    location, _ = profile
    (location.data_root / "cache" / "x").write_text("x")
    host = InProcessHost(location)
    try:
        with pytest.raises(Refused, match="Close pidesktop first"):
            cache.clean(location)
        done = run_cli("data", "clean-cache")
        assert done.returncode == 2
    finally:
        host.stop()
    assert (location.data_root / "cache" / "x").exists()
    done = run_cli("data", "clean-cache")
    assert done.returncode == 0 and not (location.data_root / "cache" / "x").exists()


# -- kept old roots -------------------------------------------------------------------------
@pytest.fixture
def moved(tmp_path):
    seeded = seed(paths.resolve(), tmp_path / "external")
    result = move.run(tmp_path / "new")
    return seeded, result


def test_kept_roots_are_listed_and_deleted_only_with_yes(moved):
    seeded, result = moved
    [info] = cleanup.list_kept()
    assert info.present and info.bytes > 0 and info.problems == []
    listing = run_cli("data", "clean-backups")
    assert listing.returncode == 0 and result.kept.id in listing.stdout
    refused = run_cli("data", "clean-backups", result.kept.id)
    assert refused.returncode == 2 and "--yes" in refused.stderr and seeded.root.exists()
    active = snapshot(result.data_root, result.ui_root)
    done = run_cli("data", "clean-backups", result.kept.id, "--yes")
    assert done.returncode == 0, done.stderr
    assert not seeded.root.exists() and not seeded.location.ui_root.exists()
    assert old_roots.entries() == []
    assert snapshot(result.data_root, result.ui_root) == active
    assert paths.pointer_path().exists()


def forge(entry_paths: list[Path], container: Path | None = None) -> str:
    old_roots.add(old_roots.KeptRoot("forged", tuple(entry_paths), container, Path("/nowhere"), 1))
    return "forged"


@pytest.mark.parametrize("target", ["active-data", "inside-active", "active-ui", "anchor", "pointer-file", "home"])
def test_preflight_protects_active_data_and_the_anchor(moved, target):
    seeded, result = moved
    chosen = {
        "active-data": result.data_root,
        "inside-active": result.data_root / "sessions",
        "active-ui": result.ui_root,
        "anchor": paths.anchor_dir(),
        "pointer-file": paths.pointer_path(),
        "home": Path.home(),
    }[target]
    entry = forge([chosen])
    before = snapshot(result.data_root, result.ui_root, paths.anchor_dir())
    with pytest.raises(Refused, match="Not deleting anything"):
        cleanup.delete(entry)
    assert snapshot(result.data_root, result.ui_root, paths.anchor_dir()) == before
    assert any(item.id == entry for item in old_roots.entries())


def test_a_root_in_use_is_not_deleted(moved):
    seeded, _ = moved
    host = InProcessHost(paths.resolve(data_dir=seeded.root))
    try:
        [info] = cleanup.list_kept()
        assert any("in use" in p for p in info.problems)
        with pytest.raises(Refused, match="in use"):
            cleanup.delete(info.entry.id)
    finally:
        host.stop()
    assert seeded.root.exists()


def test_partial_failure_is_reported_and_a_retry_finishes(moved, tmp_path):
    seeded, result = moved
    if os.geteuid() == 0 and (
        shutil.which("chattr") is None or subprocess.run(["chattr", "+i", str(seeded.location.ui_root)]).returncode != 0
    ):
        pytest.skip("cannot make a folder undeletable here")
    if os.geteuid() != 0:
        seeded.location.ui_root.parent.chmod(0o500)
    try:
        outcome = cleanup.delete(result.kept.id)
        assert not outcome.ok and outcome.deleted == [seeded.root]
        assert [e.id for e in old_roots.entries()] == [result.kept.id]
    finally:
        if os.geteuid() == 0:
            subprocess.run(["chattr", "-i", str(seeded.location.ui_root)], check=True)
        else:
            seeded.location.ui_root.parent.chmod(0o700)
    retry = cleanup.delete(result.kept.id)
    assert retry.ok and retry.already_gone == [seeded.root] and retry.deleted == [seeded.location.ui_root]
    assert old_roots.entries() == []


def test_a_moved_location_is_removed_with_its_marker_once_empty(moved, tmp_path):
    _, first = moved
    second = move.run(tmp_path / "second")
    kept = [e for e in old_roots.entries() if e.id == second.kept.id][0]
    assert kept.container == first.destination and kept.paths == (first.data_root, first.ui_root)
    outcome = cleanup.delete(kept.id)
    assert outcome.ok and not first.destination.exists()
    assert second.data_root.is_dir()
    listed = orjson.loads(old_roots.path().read_bytes())["backups"]
    assert [item["id"] for item in listed] == [first.kept.id]
