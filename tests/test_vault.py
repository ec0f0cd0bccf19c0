"""The vault key: scrypt from a passphrase, AES-256-GCM seal/open with associated data."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pidesktop.storage import vault
from tests.support.fuzz_budget import fuzz_settings

CHEAP = 2**10  # scrypt cost for tests; the stored parameters carry whatever cost was used


def test_round_trip_with_params_from_storage() -> None:
    key, params = vault.create("correct horse", n=CHEAP)
    blob = key.seal(b"hello", b"chunk")
    stored = vault.VaultParams.from_json(params.to_json())
    again = vault.unlock("correct horse", stored)
    assert again.open(blob, b"chunk") == b"hello"
    assert again.content_id(b"abc") == key.content_id(b"abc")


def test_wrong_passphrase_is_a_typed_error() -> None:
    _, params = vault.create("right", n=CHEAP)
    with pytest.raises(vault.WrongPassphrase, match="passphrase is wrong"):
        vault.unlock("wrong", params)
    with pytest.raises(vault.WrongPassphrase):
        vault.unlock("", params)


def test_salt_is_random_and_names_depend_on_the_key() -> None:
    a, pa = vault.create("same", n=CHEAP)
    b, pb = vault.create("same", n=CHEAP)
    assert pa.salt != pb.salt
    assert a.content_id(b"x") != b.content_id(b"x")


def test_associated_data_and_tampering_are_caught() -> None:
    key, _ = vault.create("p", n=CHEAP)
    blob = key.seal(b"manifest", b"snapshot/1")
    with pytest.raises(vault.DamagedData):
        key.open(blob, b"snapshot/2")
    flipped = blob[:-1] + bytes([blob[-1] ^ 1])
    with pytest.raises(vault.DamagedData):
        key.open(flipped, b"snapshot/1")
    with pytest.raises(vault.DamagedData):
        key.open(blob[:10], b"snapshot/1")


def test_unreadable_params_are_damaged_data() -> None:
    with pytest.raises(vault.DamagedData):
        vault.VaultParams.from_json({"kdf": "scrypt", "salt": "zz", "n": 1, "r": 1, "p": 1})


@fuzz_settings(30)
@given(data=st.binary(max_size=4096), aad=st.binary(max_size=64))
def test_seal_open_any_bytes(data: bytes, aad: bytes) -> None:
    assert _KEY.open(_KEY.seal(data, aad), aad) == data


_KEY, _ = vault.create("property", n=CHEAP)
