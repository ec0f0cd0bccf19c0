"""The encrypted secret store: round trips, file modes, tampering, and no leaks."""

import hashlib
import os
import stat

import apsw
import orjson
import pytest

from pidesktop.bus import HostError
from pidesktop.host.core import Host
from pidesktop.host.settings import secrets
from tests.support.hosts import InProcessHost

KEY = "sk-test-Zq8vN3xR7mK2pL9wT4yB6cF1hJ5dS0aE"  # distinctive, 40 characters
assert len(KEY) == 40


@pytest.fixture
def opened(location):
    """A host opened directly, to call the secrets module with its context."""
    host = Host.open(location, lambda topic, payload: None)
    yield host
    host.close()


def mode(path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


def test_round_trip_replace_delete_and_bookkeeping(opened):
    ctx = opened.ctx
    assert secrets.get(ctx, "provider:a:api_key") is None
    assert not secrets.exists(ctx, "provider:a:api_key")
    secrets.put(ctx, "provider:a:api_key", "first", owner_id="a")
    secrets.put(ctx, "mcp:x:token", "ключ 密钥", owner_kind="mcp", owner_id="x", kind="token")
    assert secrets.get(ctx, "provider:a:api_key") == "first"
    assert secrets.get(ctx, "mcp:x:token") == "ключ 密钥"
    secrets.put(ctx, "provider:a:api_key", "second", owner_id="a")
    assert secrets.get(ctx, "provider:a:api_key") == "second"
    rows = ctx.conn.execute(
        "SELECT secret_ref, owner_kind, owner_id, kind, backend FROM secrets_meta ORDER BY secret_ref"
    ).fetchall()
    assert rows == [
        ("mcp:x:token", "mcp", "x", "token", "file_fallback"),
        ("provider:a:api_key", "provider", "a", "api_key", "file_fallback"),
    ]
    path = secrets.secret_path(ctx, "provider:a:api_key")
    assert path.name == hashlib.sha256(b"provider:a:api_key").hexdigest()
    assert path.read_bytes().startswith(b"PDS1") and mode(path) == 0o600
    assert secrets.exists(ctx, "provider:a:api_key")
    secrets.delete(ctx, "provider:a:api_key")
    assert not path.exists() and secrets.get(ctx, "provider:a:api_key") is None
    assert not secrets.exists(ctx, "provider:a:api_key")
    secrets.delete(ctx, "provider:a:api_key")  # deleting twice is fine
    assert [p.name for p in path.parent.iterdir() if p.name.endswith(".tmp")] == []


def test_machine_key_is_private_and_created_once(location):
    host = InProcessHost(location)
    provider = host.call(
        "providers.upsert", {"provider": {"name": "One", "baseUrl": "https://a.example"}, "apiKey": KEY}
    )["provider"]
    key_file = location.data_root / "secrets" / ".machine-key"
    first = key_file.read_bytes()
    assert len(first) == 32 and mode(key_file) == 0o600
    host.stop()
    again = InProcessHost(location)
    try:
        again.call(
            "providers.upsert", {"provider": {"name": "Two", "baseUrl": "https://b.example"}, "apiKey": "another"}
        )
        assert key_file.read_bytes() == first
        assert again.call("providers.credentials", {"providerId": provider["id"]})["apiKey"] == KEY
    finally:
        again.stop()


def test_a_damaged_machine_key_is_refused_not_replaced(opened):
    ctx = opened.ctx
    key_file = ctx.data_root / "secrets" / ".machine-key"
    key_file.write_bytes(b"short")
    with pytest.raises(HostError) as info:
        secrets.put(ctx, "provider:a:api_key", "value")
    assert info.value.code == "STORAGE_UNAVAILABLE" and ".machine-key" in info.value.message
    assert key_file.read_bytes() == b"short"
    assert ctx.conn.execute("SELECT count(*) FROM secrets_meta").fetchone()[0] == 0


def test_tampered_or_moved_ciphertexts_fail_clearly_and_the_host_keeps_serving(host):
    a = host.call("providers.upsert", {"provider": {"name": "A", "baseUrl": "https://a.example"}, "apiKey": KEY})[
        "provider"
    ]
    b = host.call(
        "providers.upsert", {"provider": {"name": "B", "baseUrl": "https://b.example"}, "apiKey": "key-of-b"}
    )["provider"]
    folder = host.location.data_root / "secrets"
    file_a = folder / hashlib.sha256(f"provider:{a['id']}:api_key".encode()).hexdigest()
    file_b = folder / hashlib.sha256(f"provider:{b['id']}:api_key".encode()).hexdigest()

    # A's file under B's name: the ref is the associated data, so it does not decrypt.
    file_b.write_bytes(file_a.read_bytes())
    error = host.error("providers.credentials", {"providerId": b["id"]})
    assert error.code == "STORAGE_UNAVAILABLE" and "cannot be decrypted" in error.message
    assert KEY not in error.message

    # One flipped ciphertext bit.
    blob = bytearray(file_a.read_bytes())
    blob[-1] ^= 0x01
    file_a.write_bytes(bytes(blob))
    error = host.error("providers.credentials", {"providerId": a["id"]})
    assert error.code == "STORAGE_UNAVAILABLE" and error.data.get("secretRef") == f"provider:{a['id']}:api_key"

    # Not a secret file at all.
    file_a.write_bytes(b"garbage")
    assert host.error("providers.credentials", {"providerId": a["id"]}).code == "STORAGE_UNAVAILABLE"

    listed = host.call("providers.list")["providers"]
    assert [p["hasKey"] for p in listed] == [True, True]
    host.call(
        "providers.upsert",
        {"provider": {"id": a["id"], "name": "A", "baseUrl": "https://a.example"}, "apiKey": "fresh"},
    )
    assert host.call("providers.credentials", {"providerId": a["id"]})["apiKey"] == "fresh"


def test_the_key_is_nowhere_but_its_encrypted_file(stdio_host, data_root):
    host = stdio_host()
    host.call("app.handshake", {"protocolVersion": 1})
    created = host.call(
        "providers.upsert", {"provider": {"name": "Leak check", "baseUrl": "https://api.example"}, "apiKey": KEY}
    )
    listed = host.call("providers.list")
    host.call(
        "providers.upsert",
        {"provider": {"id": created["provider"]["id"], "name": "Leak check 2", "baseUrl": "https://api.example/v1"}},
    )
    host.call("providers.list")
    needle = KEY.encode()

    # While the host runs the WAL holds the newest pages.
    db, wal = data_root / "pi.sqlite", data_root / "pi.sqlite-wal"
    assert wal.exists()
    for path in (db, wal):
        assert needle not in path.read_bytes(), path
    assert created["provider"]["hasKey"] and listed["providers"][0]["hasKey"]
    assert needle not in orjson.dumps(listed) and needle not in orjson.dumps(created)
    assert host.events and all(needle not in orjson.dumps(e) for e in host.events)
    assert all(needle not in line for line in host.raw_lines)
    assert host.close() == 0

    logs = [p for p in (data_root / "logs").rglob("*") if p.is_file()]
    assert logs
    for path in [db, *logs] + ([wal] if wal.exists() else []):
        assert needle not in path.read_bytes(), path

    ref = f"provider:{created['provider']['id']}:api_key"
    blob = (data_root / "secrets" / hashlib.sha256(ref.encode()).hexdigest()).read_bytes()
    assert blob.startswith(b"PDS1") and needle not in blob
    conn = apsw.Connection(str(db))
    try:
        assert conn.execute("SELECT secret_ref, owner_id, backend FROM secrets_meta").fetchall() == [
            (ref, created["provider"]["id"], "file_fallback")
        ]
        assert conn.execute("SELECT secret_ref FROM providers").fetchall() == [(ref,)]
    finally:
        conn.close()


def test_secret_files_are_owner_only_even_with_a_loose_umask(opened):
    old = os.umask(0o000)
    try:
        secrets.put(opened.ctx, "provider:u:api_key", "v")
    finally:
        os.umask(old)
    assert mode(secrets.secret_path(opened.ctx, "provider:u:api_key")) == 0o600
    assert mode(opened.ctx.data_root / "secrets" / ".machine-key") == 0o600
