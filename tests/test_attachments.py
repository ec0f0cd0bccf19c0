"""Content-addressed attachments: import, importText, read, and the boot sweep of interrupted imports."""

from __future__ import annotations

import base64
import hashlib
import logging
import os
import struct
import zlib
from pathlib import Path

import pytest

from pidesktop.host.sessions import attachments
from tests.support.hosts import InProcessHost

MiB = 1 << 20


def tiny_png(width: int = 2, height: int = 2) -> bytes:
    """A valid RGB PNG, built by hand so the test needs no image library."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    rows = b"".join(b"\x00" + b"\xff\x00\x00" * width for _ in range(height))
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def store_dir(host: InProcessHost) -> Path:
    return host.location.data_root / "attachments"


def listing(host: InProcessHost) -> list[str]:
    return sorted(os.listdir(store_dir(host)))


def write(path: Path, data: bytes) -> Path:
    path.write_bytes(data)
    return path


def import_file(host, path: Path, **extra) -> dict:
    return host.call("attachments.import", {"path": str(path), **extra})["attachment"]


# -- attachments.import -----------------------------------------------------------------
def test_import_stores_the_bytes_under_their_sha256(host, tmp_path):
    data = b"line of notes\n" * 5000
    attachment = import_file(host, write(tmp_path / "notes.txt", data))
    digest = sha(data)
    assert attachment == {
        "type": "attachment",
        "kind": "file",
        "name": "notes.txt",
        "ref": f"attachments/{digest}",
        "mimeType": "text/plain",
        "size": len(data),
        "sha256": digest,
    }
    blob = store_dir(host) / digest
    assert blob.read_bytes() == data
    assert blob.stat().st_mode & 0o777 == 0o600
    assert listing(host) == [digest]  # no temporary file left


def test_a_second_import_of_the_same_bytes_keeps_the_stored_blob(host, tmp_path):
    data = os.urandom(3 * MiB + 17)  # several chunks, the last one short
    first = import_file(host, write(tmp_path / "a.bin", data))
    blob = store_dir(host) / first["sha256"]
    before = blob.stat()
    second = import_file(host, write(tmp_path / "copy.dat", data), name="Renamed copy.dat")
    assert second["ref"] == first["ref"] and second["name"] == "Renamed copy.dat"
    after = blob.stat()
    assert (after.st_ino, after.st_mtime_ns, after.st_size) == (before.st_ino, before.st_mtime_ns, before.st_size)
    assert listing(host) == [first["sha256"]]


def test_a_png_is_an_image_whatever_its_name(host, tmp_path):
    png = tiny_png()
    attachment = import_file(host, write(tmp_path / "scan.bin", png))
    assert (attachment["kind"], attachment["mimeType"], attachment["size"]) == ("image", "image/png", len(png))
    assert (store_dir(host) / sha(png)).read_bytes() == png


@pytest.mark.parametrize(
    "head,mime",
    [
        (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00", "image/jpeg"),
        (b"GIF89a\x01\x00\x01\x00", "image/gif"),
        (b"GIF87a\x01\x00\x01\x00", "image/gif"),
        (b"RIFF\x24\x00\x00\x00WEBPVP8 ", "image/webp"),
    ],
)
def test_other_image_signatures(host, tmp_path, head, mime):
    attachment = import_file(host, write(tmp_path / "picture", head + b"\x00" * 64))
    assert (attachment["kind"], attachment["mimeType"]) == ("image", mime)


@pytest.mark.parametrize(
    "name,mime",
    [
        ("report.pdf", "application/pdf"),
        ("readme.txt", "text/plain"),
        ("blob.unknownext", "application/octet-stream"),
        ("photo.png", "image/png"),  # named like an image, but not one: still a file
    ],
)
def test_other_files_get_the_mime_type_of_their_name(host, tmp_path, name, mime):
    attachment = import_file(host, write(tmp_path / name, b"%PDF-1.7 not really an image"))
    assert (attachment["kind"], attachment["mimeType"]) == ("file", mime)


def test_the_name_param_decides_the_mime_type_and_is_trimmed(host, tmp_path):
    attachment = import_file(host, write(tmp_path / "upload.tmp", b"hello"), name="  Report.pdf ")
    assert (attachment["name"], attachment["mimeType"]) == ("Report.pdf", "application/pdf")


def test_an_empty_file_is_stored_too(host, tmp_path):
    attachment = import_file(host, write(tmp_path / "empty.txt", b""))
    assert attachment["size"] == 0 and attachment["sha256"] == sha(b"")


# -- bad input: a clear error, nothing written ------------------------------------------------
def refused(host, method: str, params: dict) -> str:
    before = listing(host)
    error = host.error(method, params)
    assert error.code == "INVALID_PARAMS", error.message
    assert listing(host) == before  # no blob, no temporary file
    return error.message


def test_relative_missing_and_non_file_paths_are_refused(host, tmp_path):
    write(tmp_path / "there.txt", b"x")
    assert refused(host, "attachments.import", {"path": "there.txt"}) == (
        "attachments.import: 'path' must be an absolute path, not 'there.txt'."
    )
    missing = tmp_path / "missing.txt"
    assert refused(host, "attachments.import", {"path": str(missing)}) == (
        f"attachments.import: 'path' {str(missing)!r} does not exist."
    )
    assert refused(host, "attachments.import", {"path": str(tmp_path)}).endswith("is a directory, not a file.")
    fifo = tmp_path / "pipe"
    os.mkfifo(fifo)
    assert refused(host, "attachments.import", {"path": str(fifo)}).endswith("is not a regular file.")
    assert "missing required field 'path'" in refused(host, "attachments.import", {})
    assert "field 'path' must be a string" in refused(host, "attachments.import", {"path": 7})
    assert listing(host) == []


def test_an_empty_name_is_refused(host, tmp_path):
    path = write(tmp_path / "a.txt", b"abc")
    assert refused(host, "attachments.import", {"path": str(path), "name": "  "}) == (
        "attachments.import: field 'name' must not be empty."
    )
    assert listing(host) == []


def test_an_unreadable_file_is_refused(host, tmp_path):
    if os.geteuid() == 0:
        pytest.skip("root reads files whatever their mode")
    path = write(tmp_path / "secret.txt", b"abc")
    path.chmod(0)
    assert "cannot be read: Permission denied" in refused(host, "attachments.import", {"path": str(path)})


def test_a_file_over_two_gib_is_refused_before_any_copy(host, tmp_path):
    path = tmp_path / "huge.iso"
    with open(path, "wb") as sparse:
        sparse.truncate(attachments.MAX_BYTES + 1)  # sparse: costs no disk
    message = refused(host, "attachments.import", {"path": str(path)})
    assert message == f"attachments.import: 'path' {str(path)!r} is larger than the 2 GiB attachment limit."
    assert attachments.MAX_BYTES == 2 * 1024**3


def test_a_read_failure_mid_copy_removes_the_temporary_file(host):
    mem = Path("/proc/self/mem")  # a regular file whose read fails with EIO: a real failing source
    if not mem.is_file():
        pytest.skip("needs Linux /proc")
    message = refused(host, "attachments.import", {"path": str(mem)})
    assert message == "attachments.import: 'path' '/proc/self/mem' could not be read: Input/output error."
    assert listing(host) == []


# -- attachments.importText -----------------------------------------------------------------
def test_import_text_stores_utf8_under_its_sha256(host):
    text = "Pasted — déjà vu 🚀\n" * 2000
    attachment = host.call("attachments.importText", {"text": text})["attachment"]
    data = text.encode("utf-8")
    assert attachment == {
        "type": "attachment",
        "kind": "file",
        "name": "Pasted text.txt",
        "ref": f"attachments/{sha(data)}",
        "mimeType": "text/plain",
        "size": len(data),
        "sha256": sha(data),
    }
    assert (store_dir(host) / sha(data)).read_bytes() == data
    named = host.call("attachments.importText", {"text": text, "name": "log.md"})["attachment"]
    assert named["ref"] == attachment["ref"] and named["name"] == "log.md" and named["mimeType"] == "text/plain"
    assert listing(host) == [sha(data)]


def test_pasted_text_is_never_taken_for_an_image(host):
    attachment = host.call("attachments.importText", {"text": "GIF89a is how a GIF starts"})["attachment"]
    assert (attachment["kind"], attachment["mimeType"]) == ("file", "text/plain")


def test_import_text_refuses_empty_text_and_names(host):
    assert refused(host, "attachments.importText", {"text": ""}) == (
        "attachments.importText: field 'text' must not be empty."
    )
    assert refused(host, "attachments.importText", {"text": " \n\t"}) == (
        "attachments.importText: field 'text' must not be empty."
    )
    assert refused(host, "attachments.importText", {"text": "x", "name": ""}) == (
        "attachments.importText: field 'name' must not be empty."
    )
    assert "missing required field 'text'" in refused(host, "attachments.importText", {})
    assert listing(host) == []


# -- attachments.read ------------------------------------------------------------------------
def test_read_pages_through_a_blob(host, tmp_path):
    data = os.urandom(5 * MiB + 123)
    ref = import_file(host, write(tmp_path / "data.bin", data))["ref"]
    first = host.call("attachments.read", {"ref": ref})
    assert (first["offset"], first["size"], first["eof"]) == (0, len(data), False)
    assert base64.b64decode(first["data"]) == data[:MiB]
    pages, offset = [], 0
    while True:
        page = host.call("attachments.read", {"ref": ref, "offset": offset, "length": 4 * MiB})
        assert page["offset"] == offset and page["size"] == len(data)
        chunk = base64.b64decode(page["data"])
        pages.append(chunk)
        offset += len(chunk)
        if page["eof"]:
            break
    assert [len(p) for p in pages] == [4 * MiB, MiB + 123]
    assert b"".join(pages) == data
    middle = host.call("attachments.read", {"ref": ref, "offset": 1000, "length": 10})
    assert base64.b64decode(middle["data"]) == data[1000:1010] and middle["eof"] is False
    tail = host.call("attachments.read", {"ref": ref, "offset": len(data) - 3, "length": 10})
    assert base64.b64decode(tail["data"]) == data[-3:] and tail["eof"] is True
    end = host.call("attachments.read", {"ref": ref, "offset": len(data)})
    assert (end["data"], end["eof"]) == ("", True)


def test_read_refuses_anything_but_a_blob_ref(host, tmp_path):
    ref = import_file(host, write(tmp_path / "a.txt", b"abc"))["ref"]
    digest = ref.split("/")[1]
    for bad in (
        "attachments/../pi.sqlite",
        str(store_dir(host) / digest),
        f"/{ref}",
        f"{ref}\n",
        f"{ref}/",
        f"attachments/{digest.upper()}",
        f"attachments/{digest[:-1]}",
        "sessions/" + digest,
        f"attachments/.incoming-{digest}",
        f"attachments//{digest}",
        "",
        "pi.sqlite",
    ):
        message = refused(host, "attachments.read", {"ref": bad})
        assert message == f"attachments.read: 'ref' must look like attachments/<64 lowercase hex digits>; got {bad!r}."
    assert "field 'offset' must be at least 0" in refused(host, "attachments.read", {"ref": ref, "offset": -1})
    assert "field 'length' must be at least 1" in refused(host, "attachments.read", {"ref": ref, "length": 0})
    assert "field 'length' must be at most 4194304" in refused(
        host, "attachments.read", {"ref": ref, "length": 4 * MiB + 1}
    )
    assert refused(host, "attachments.read", {"ref": ref, "offset": 4}) == (
        f"attachments.read: 'offset' 4 is past the end of {ref} (3 bytes)."
    )


def test_read_of_a_blob_that_is_not_stored_is_not_found(host):
    ref = f"attachments/{sha(b'never stored')}"
    error = host.error("attachments.read", {"ref": ref})
    assert error.code == "NOT_FOUND" and error.message == f"Attachment {ref} is not stored."


# -- boot sweep -------------------------------------------------------------------------------
def test_boot_removes_interrupted_imports_and_keeps_blobs(location, caplog):
    caplog.set_level(logging.INFO, logger="pidesktop.host.boot")
    folder = location.data_root / "attachments"
    folder.mkdir(parents=True)
    data = b"kept blob"
    (folder / sha(data)).write_bytes(data)
    (folder / ".incoming-x").write_bytes(b"half a file")
    (folder / f".incoming-{'a' * 32}").write_bytes(b"")
    host = InProcessHost(location)
    try:
        assert sorted(os.listdir(folder)) == [sha(data)]
        assert (folder / sha(data)).read_bytes() == data
        [report] = [r.fields for r in caplog.records if r.getMessage() == "boot pass done"]
        assert report["incomingAttachmentsRemoved"] == 2
        assert host.call("attachments.importText", {"text": "after the sweep"})["attachment"]["size"] == 15
    finally:
        host.stop()
