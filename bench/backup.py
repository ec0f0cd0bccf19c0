"""Snapshots to S3: a first backup next to uploading the same bytes with boto3, then one new message.

Builds a data root of ``--size`` MiB (one ``--messages``-message chat, indexed by a
real host, plus incompressible attachments for the rest) and an S3 server on
127.0.0.1 (moto's server mode), then prints:

- the first backup (``pidesktop data backup s3``'s engine: online database copy,
  chunking, AES-GCM, parallel uploads) next to uploading the same files with
  boto3's own transfer manager (``upload_file``), measured in the same run
  (target: backup <= 1.3x the direct upload);
- after one new message in the big chat, the second backup: bytes uploaded as a
  share of the data root (target: under 1%) and its time.

    python bench/backup.py [--size 1024] [--messages 100000]
"""

from __future__ import annotations

import argparse
import hashlib
import logging
import random
import socket
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from moto.server import ThreadedMotoServer
from quick import add_quick
from transcripts import open_host, write_session
from transcripts_files import text_pool

from pidesktop.storage import s3
from pidesktop.storage.blobstore import S3Store
from pidesktop.storage.snapshot_backup import backup
from pidesktop.storage.snapshot_format import open_repository

TARGET_RATIO = 1.3
TARGET_SHARE = 0.01
ATTACHMENT_BYTES = 8 << 20
CREDENTIALS = s3.S3Credentials("bench", "bench")


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def fill(root: Path, size: int, messages: int) -> str:
    rng = random.Random(5)
    sid = "bench-chat"
    write_session(root, sid, messages, rng, text_pool(rng))
    open_host(root).close()  # boot indexes the transcript as a session
    attachments = root / "attachments"
    attachments.mkdir(exist_ok=True)
    while (used := tree_bytes(root)) < size:
        data = rng.randbytes(min(ATTACHMENT_BYTES, max(size - used, 4096)))
        (attachments / hashlib.sha256(data).hexdigest()).write_bytes(data)
    return sid


def tree_bytes(root: Path) -> int:
    return sum(p.stat().st_size for p in root.rglob("*") if p.is_file())


def direct_upload(client, bucket: str, root: Path) -> float:
    """Every file of the root with boto3's transfer manager, several at once (its own best case)."""
    files = [p for p in root.rglob("*") if p.is_file()]
    started = time.perf_counter()
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda p: client.upload_file(str(p), bucket, p.relative_to(root).as_posix()), files))
    return time.perf_counter() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--size", type=int, default=1024, help="data root size in MiB")
    parser.add_argument("--messages", type=int, default=100_000, help="messages in the big chat")
    add_quick(parser, size=48, messages=5_000)
    args = parser.parse_args()
    logging.getLogger("werkzeug").setLevel(logging.ERROR)  # the S3 server's request log
    port = free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        with tempfile.TemporaryDirectory(prefix="bench-backup-") as tmp:
            root = Path(tmp) / "data"
            sid = fill(root, args.size << 20, args.messages)
            size = tree_bytes(root)
            endpoint = f"http://127.0.0.1:{port}"
            direct_at = s3.S3Location("direct", endpoint, "us-east-1")
            backup_at = s3.S3Location("backup", endpoint, "us-east-1", "pidesktop")
            client = s3.connect(direct_at, CREDENTIALS)
            client.create_bucket(Bucket="direct")
            client.create_bucket(Bucket="backup")
            print(f"data root {size / (1 << 20):.0f} MiB, chat of {args.messages} messages", flush=True)

            direct = direct_upload(client, "direct", root)
            repo = open_repository(S3Store(s3.connect(backup_at, CREDENTIALS), backup_at), "bench", create=True)
            started = time.perf_counter()
            backup(repo, root)
            first_s = time.perf_counter() - started
            ratio = first_s / direct
            print(
                f"first backup   {first_s:7.2f} s  vs boto3 upload_file {direct:7.2f} s  ratio {ratio:.2f}x "
                f"(target <= {TARGET_RATIO}x) {'ok' if ratio <= TARGET_RATIO else 'OVER'}",
                flush=True,
            )

            host = open_host(root)
            try:
                message = {"id": "bench-new", "role": "user", "blocks": [{"type": "text", "text": "one more question"}]}
                host.dispatch("session.appendMessage", {"sessionId": sid, "message": message})
            finally:
                host.close()
            started = time.perf_counter()
            second = backup(repo, root)
            second_s = time.perf_counter() - started
            share = second.bytes_uploaded / size
            print(
                f"second backup  {second_s:7.2f} s  uploaded {second.bytes_uploaded / (1 << 20):.2f} MiB in "
                f"{second.chunks_new} chunks = {share:.2%} of the data root (target < {TARGET_SHARE:.0%}) "
                f"{'ok' if share < TARGET_SHARE else 'OVER'}",
                flush=True,
            )
    finally:
        server.stop()


if __name__ == "__main__":
    main()
