"""The host's file tools: workspace paths, limits, review snapshots and Revert, audit and artifacts rows."""

import os
import shutil

import pytest

from pidesktop.bus import HostError
from tests.support.host_helpers import append, new_session


@pytest.fixture
def project(tmp_path):
    folder = tmp_path / "proj"
    folder.mkdir()
    (folder / "README.md").write_text("# Demo\nhello world\n")
    return folder


def run(host, sid, tool, args, **extra):
    return host.call(
        "tools.run", {"sessionId": sid, "turnId": "t1", "callId": "c1", "tool": tool, "args": args, **extra}
    )


def test_workspace_is_the_project_folder_or_the_chats_scratch(host, project):
    sid = new_session(host, projectPath=str(project))
    info = host.call("tools.workspace", {"sessionId": sid})
    assert info["workspace"] == str(project.resolve())
    assert info["scratch"] is False
    assert info["permissionMode"] == "ask" and info["storedPermissionMode"] == "inherit"
    lone = new_session(host)
    scratch = host.call("tools.workspace", {"sessionId": lone})
    assert scratch["scratch"] is True
    assert scratch["workspace"] == str((host.location.data_root / "scratch" / lone).resolve())
    assert os.path.isdir(scratch["workspace"])


def test_a_workspace_asked_for_without_create_names_the_scratch_folder_and_makes_nothing(host):
    lone = new_session(host)
    asked = host.call("tools.workspace", {"sessionId": lone, "create": False})
    assert asked["scratch"] is True and not os.path.exists(asked["workspace"])
    made = host.call("tools.workspace", {"sessionId": lone})
    assert made["workspace"] == asked["workspace"] and os.path.isdir(made["workspace"])
    with pytest.raises(HostError, match="create"):
        host.call("tools.workspace", {"sessionId": lone, "create": "no"})


def test_permission_mode_follows_the_settings_default_unless_the_chat_sets_one(host, project):
    sid = new_session(host, projectPath=str(project))
    host.call("settings.set", {"patch": {"permissionMode": "accept-edits"}})
    assert host.call("tools.workspace", {"sessionId": sid})["permissionMode"] == "accept-edits"
    host.call("session.update", {"sessionId": sid, "permissionMode": "auto"})
    assert host.call("tools.workspace", {"sessionId": sid})["permissionMode"] == "auto"
    error = host.error("settings.set", {"patch": {"permissionMode": "yolo"}})
    assert error.code == "INVALID_PARAMS" and "permissionMode" in error.message


def test_read_numbers_lines_and_says_where_to_go_on(host, project):
    sid = new_session(host, projectPath=str(project))
    (project / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 3001)))
    first = run(host, sid, "read", {"path": "README.md"})
    assert (first["ok"], first["result"]) == (True, "     1\t# Demo\n     2\thello world\n")
    page = run(host, sid, "read", {"path": "long.txt", "offset": 10, "limit": 2})
    assert page["result"].startswith("    10\tline 10\n    11\tline 11\n")
    assert "Continue with offset=12" in page["result"]
    whole = run(host, sid, "read", {"path": "long.txt"})
    assert whole["result"].count("\n") < 2010 and "Lines 1-2000 of 3000" in whole["result"]


def test_a_path_outside_the_workspace_is_refused_unless_allowed(host, project, tmp_path):
    sid = new_session(host, projectPath=str(project))
    secret = tmp_path / "secret.txt"
    secret.write_text("top secret\n")
    (project / "link").symlink_to(secret)
    for raw in ("../secret.txt", str(secret), "link"):
        answer = run(host, sid, "read", {"path": raw})
        assert answer["ok"] is False and answer["outsideWorkspace"] is True, raw
        assert "outside the workspace" in answer["result"] and "top secret" not in answer["result"]
    written = run(host, sid, "write", {"path": "../evil.txt", "content": "x"})
    assert written["outsideWorkspace"] is True and not (tmp_path / "evil.txt").exists()
    allowed = run(host, sid, "read", {"path": "link"}, allowOutside=True)
    assert "top secret" in allowed["result"]


def test_write_and_edit_keep_a_snapshot_and_revert_restores_the_bytes(host, project):
    sid = new_session(host, projectPath=str(project))
    original = b"\xef\xbb\xbfone\r\ntwo\r\nthree\r\n"
    (project / "notes.txt").write_bytes(original)
    edited = run(host, sid, "edit", {"path": "notes.txt", "oldText": "two\nthree", "newText": "2\n3"})
    assert edited["ok"] is True, edited
    assert (project / "notes.txt").read_bytes() == b"\xef\xbb\xbfone\r\n2\r\n3\r\n"  # BOM and CRLF kept
    review = edited["details"]["review"]
    assert review["op"] == "edit" and review["reversible"] is True and review["reverted"] is False
    assert "-two" in edited["details"]["diff"] and "+2" in edited["details"]["diff"]
    created = run(host, sid, "write", {"path": "sub/dir/new.txt", "content": "fresh\n"})
    assert (project / "sub/dir/new.txt").read_text() == "fresh\n"
    listed = host.call("review.list", {"sessionId": sid})["snapshots"]
    assert [s["path"] for s in listed] == [str(project / "notes.txt"), str(project / "sub/dir/new.txt")]
    assert host.call("review.revert", {"sessionId": sid, "snapshotId": review["snapshotId"]}) == {"reverted": True}
    assert (project / "notes.txt").read_bytes() == original
    assert host.call("review.revert", {"sessionId": sid, "snapshotId": created["details"]["review"]["snapshotId"]})
    assert not (project / "sub/dir/new.txt").exists()
    assert all(s["reverted"] for s in host.call("review.list", {"sessionId": sid})["snapshots"])
    kinds = [e["kind"] for e in host.call("audit.list", {"sessionId": sid})["entries"]]
    assert kinds == ["review_revert", "review_revert"]  # the calls' own rows come with their stored results
    assert (
        edited["audit"]["kind"] == "tool_execute" and edited["audit"]["payload"]["snapshotId"] == review["snapshotId"]
    )


def test_revert_is_refused_when_the_file_changed_since_and_nothing_changes(host, project):
    sid = new_session(host, projectPath=str(project))
    done = run(host, sid, "write", {"path": "README.md", "content": "new\n"})
    (project / "README.md").write_text("changed by hand\n")
    error = host.error("review.revert", {"sessionId": sid, "snapshotId": done["details"]["review"]["snapshotId"]})
    assert error.code == "CONFLICT" and "changed since" in error.message
    assert (project / "README.md").read_text() == "changed by hand\n"


def test_a_large_file_changes_but_is_not_reversible(host, project):
    sid = new_session(host, projectPath=str(project))
    (project / "big.bin").write_bytes(b"a" * (1024 * 1024 + 1))
    done = run(host, sid, "write", {"path": "big.bin", "content": "small"})
    assert done["details"]["review"]["reversible"] is False
    error = host.error("review.revert", {"sessionId": sid, "snapshotId": done["details"]["review"]["snapshotId"]})
    assert error.code == "CONFLICT" and (project / "big.bin").read_text() == "small"


def test_edit_explains_a_missing_or_repeated_old_text(host, project):
    sid = new_session(host, projectPath=str(project))
    (project / "a.txt").write_text("x\nx\n")
    twice = run(host, sid, "edit", {"path": "a.txt", "oldText": "x", "newText": "y"})
    assert twice["ok"] is False and "found 2 times" in twice["result"]
    missing = run(host, sid, "edit", {"path": "a.txt", "oldText": "zzz", "newText": "y"})
    assert missing["ok"] is False and "not found" in missing["result"]
    assert (project / "a.txt").read_text() == "x\nx\n"
    assert host.call("review.list", {"sessionId": sid})["snapshots"] == []


def test_bad_arguments_name_the_field(host, project):
    sid = new_session(host, projectPath=str(project))
    with pytest.raises(HostError) as info:
        run(host, sid, "edit", {"path": "a.txt", "newText": "y"})
    assert info.value.code == "INVALID_PARAMS" and "oldText" in info.value.message


def stored(host, sid, mid, *answers):
    """Store a round whose tool calls carry these ``tools.run`` answers, as the runner does."""
    blocks = [
        {"type": "tool_call", "callId": f"c{n}", "name": "write", "args": {}, "status": "ok", "result": a["result"]}
        | {"audit": a["audit"]}
        for n, a in enumerate(answers)
    ]
    append(host, sid, {"id": mid, "role": "assistant", "blocks": blocks, "meta": {"status": "completed"}})


def test_artifacts_list_the_workspace_files_changed_not_scratch(host, project):
    sid = new_session(host, projectPath=str(project))
    written = run(host, sid, "write", {"path": "a.txt", "content": "1"})
    edited = run(host, sid, "edit", {"path": "a.txt", "oldText": "1", "newText": "2"})
    assert host.call("artifacts.list", {"sessionId": sid})["artifacts"] == []  # not before the results are stored
    stored(host, sid, "a1", written, edited)
    artifacts = host.call("artifacts.list", {"sessionId": sid})["artifacts"]
    assert [(a["path"], a["op"]) for a in artifacts] == [(str(project.resolve() / "a.txt"), "edit")]
    lone = new_session(host)
    stored(host, lone, "b1", run(host, lone, "write", {"path": "scratch.txt", "content": "1"}))
    assert host.call("artifacts.list", {"sessionId": lone})["artifacts"] == []
    assert len(host.call("audit.list", {"sessionId": lone})["entries"]) == 1  # audited all the same


def test_a_round_stored_after_its_change_was_reverted_leaves_the_revert_listed(ticking_host, project):
    # the artifacts row keeps the newest change: on the real clock the write and its revert may share a millisecond
    host = ticking_host
    sid = new_session(host, projectPath=str(project))
    written = run(host, sid, "write", {"path": "new.txt", "content": "1"})
    host.call("review.revert", {"sessionId": sid, "snapshotId": written["details"]["review"]["snapshotId"]})
    stored(host, sid, "a1", written)
    [artifact] = host.call("artifacts.list", {"sessionId": sid})["artifacts"]
    assert artifact["op"] == "delete" and not (project / "new.txt").exists()


def test_ls_find_and_grep(host, project):
    sid = new_session(host, projectPath=str(project))
    (project / "src").mkdir()
    (project / "src" / "app.py").write_text("def main():\n    return 'Hello'\n")
    (project / ".git").mkdir()
    (project / ".git" / "config").write_text("hello from git\n")
    assert run(host, sid, "ls", {})["result"].splitlines() == [".git/", "README.md", "src/"]
    assert run(host, sid, "find", {"pattern": "*.py"})["result"] == "src/app.py"
    assert run(host, sid, "find", {"pattern": "src/**/*.py"})["result"] == "src/app.py"
    hits = run(host, sid, "grep", {"pattern": "hello", "ignoreCase": True})["result"].splitlines()
    assert sorted(hits) == ["README.md:2:hello world", "src/app.py:2:    return 'Hello'"]
    assert run(host, sid, "grep", {"pattern": "(", "literal": False})["ok"] is False
    assert run(host, sid, "grep", {"pattern": "main(", "literal": True})["result"] == "src/app.py:1:def main():"


def test_grep_without_ripgrep_walks_in_python(host, project, monkeypatch):
    monkeypatch.setenv("PATH", "/nonexistent")  # no rg on the PATH the host thread reads
    sid = new_session(host, projectPath=str(project))
    assert run(host, sid, "grep", {"pattern": "hello"})["result"] == "README.md:2:hello world"


def test_grep_leaves_out_hidden_files_and_folders_with_or_without_ripgrep(host, project, monkeypatch):
    (project / ".env").write_text("needle=1\n")
    (project / ".cache").mkdir()
    (project / ".cache" / "x.txt").write_text("needle\n")
    (project / "seen.txt").write_text("needle\n")
    sid = new_session(host, projectPath=str(project))

    def hits(**extra):
        return run(host, sid, "grep", {"pattern": "needle", **extra})["result"]

    if shutil.which("rg"):
        assert hits() == "seen.txt:1:needle"  # ripgrep itself
        assert hits(path=".env") == ".env:1:needle=1"  # a hidden file named is searched
    monkeypatch.setenv("PATH", "/nonexistent")  # the built-in walk
    assert hits() == "seen.txt:1:needle"
    assert hits(path=".env") == ".env:1:needle=1"


def test_grep_and_find_leave_out_what_gitignore_ignores_with_or_without_ripgrep(host, project, monkeypatch):
    (project / ".git").mkdir()  # a repository: its .gitignore files count, as they do for ripgrep
    (project / ".gitignore").write_text("# built files\nbuild/\n*.log\n!keep.log\n/top.txt\n")
    for rel in ("a.txt", "keep.log", "debug.log", "top.txt", "deep/top.txt", "build/x.txt", "sub/b.txt"):
        (project / rel).parent.mkdir(parents=True, exist_ok=True)
        (project / rel).write_text("needle\n")
    (project / "sub" / ".gitignore").write_text("local.txt\n")
    (project / "sub" / "local.txt").write_text("needle\n")
    sid = new_session(host, projectPath=str(project))
    wanted = ["a.txt", "deep/top.txt", "keep.log", "sub/b.txt"]

    def both():
        hits = run(host, sid, "grep", {"pattern": "needle"})["result"].splitlines()
        found = run(host, sid, "find", {"pattern": "*"})["result"].splitlines()
        return sorted(hit.split(":", 1)[0] for hit in hits), sorted(f for f in found if not f.endswith("README.md"))

    if shutil.which("rg"):
        assert both()[0] == wanted  # ripgrep itself
    monkeypatch.setenv("PATH", "/nonexistent")  # the built-in walk
    hits, found = both()
    assert hits == wanted
    assert found == sorted([*wanted, ".gitignore", "sub/.gitignore"])
    (project / ".git").rmdir()  # not a repository: nothing is left out
    assert len(both()[0]) == 8


def test_a_long_output_is_cut_and_kept_whole_in_scratch(host, project):
    sid = new_session(host, projectPath=str(project))
    for n in range(2500):
        (project / f"f{n:04}.txt").write_text("x")
    listing = run(host, sid, "ls", {"limit": 5000})["result"]
    assert "[Output cut: showing the first 2000 of 2501 lines" in listing
    kept = listing.rsplit("The whole output is in ", 1)[1].split(";", 1)[0]
    assert kept.startswith(str(host.location.data_root / "scratch" / sid / "tool-output"))
    assert len(open(kept).read().splitlines()) == 2501
    again = run(host, sid, "read", {"path": kept})
    assert again["ok"] is True and "outsideWorkspace" not in again  # the chat's own cut outputs are readable


def test_shell_output_is_recorded_cut_from_the_tail_and_denials_get_their_record(host, project):
    sid = new_session(host, projectPath=str(project))
    output = "".join(f"out {n}\n" for n in range(3000))
    recorded = host.call(
        "tools.recordShell",
        {"sessionId": sid, "turnId": "t", "callId": "c", "command": "seq", "output": output, "exitCode": 3},
    )
    assert recorded["ok"] is False and "out 2999" in recorded["result"] and "out 0\n" not in recorded["result"]
    assert recorded["result"].endswith("[Exit code 3]")
    assert recorded["audit"]["kind"] == "tool_execute" and recorded["audit"]["payload"]["exitCode"] == 3
    denied = host.call("tools.deny", {"sessionId": sid, "tool": "bash", "callId": "c2", "reason": "not now"})["audit"]
    assert denied["kind"] == "tool_denied"
    assert denied["payload"]["reason"] == "not now" and denied["payload"]["tool"] == "bash"
    assert host.call("audit.list", {"sessionId": sid})["entries"] == []  # written with the stored results


def test_prepare_shows_the_diff_without_changing_anything(host, project):
    sid = new_session(host, projectPath=str(project))
    card = host.call(
        "tools.prepare",
        {"sessionId": sid, "tool": "edit", "args": {"path": "README.md", "oldText": "hello", "newText": "bye"}},
    )
    assert card["title"] == "Edit README.md" and "-hello world" in card["detail"] and "+bye world" in card["detail"]
    assert card["outsideWorkspace"] is False
    assert (project / "README.md").read_text() == "# Demo\nhello world\n"
    shell = host.call("tools.prepare", {"sessionId": sid, "tool": "bash", "args": {"command": "make test"}})
    assert shell["title"] == "Run make test" and shell["detail"] == "make test"


def test_snapshots_stay_while_the_chat_is_in_the_trash_and_go_with_it(host, project):
    sid = new_session(host, projectPath=str(project))
    written = run(host, sid, "write", {"path": "a.txt", "content": "1"})
    folder = host.location.data_root / "review-changes" / sid
    assert folder.is_dir()
    host.call("session.delete", {"sessionId": sid})  # to the trash: a restored chat can still revert
    assert folder.is_dir()
    host.call("session.restore", {"sessionId": sid})
    snapshot = written["details"]["review"]["snapshotId"]
    assert host.call("review.revert", {"sessionId": sid, "snapshotId": snapshot}) == {"reverted": True}
    assert not (project / "a.txt").exists()
    host.call("session.delete", {"sessionId": sid, "forGood": True})
    assert not folder.exists()


@pytest.mark.parametrize("command", ["session.delete", "session.purge", "session.emptyTrash"])
def test_snapshots_go_when_the_trashed_chat_does(host, project, command):
    sid = new_session(host, projectPath=str(project))
    run(host, sid, "write", {"path": "a.txt", "content": "1"})
    folder = host.location.data_root / "review-changes" / sid
    host.call("session.delete", {"sessionId": sid})
    assert folder.is_dir()
    host.call(command, {} if command == "session.emptyTrash" else {"sessionId": sid})
    assert not folder.exists()
