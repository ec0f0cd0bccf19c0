"""A real S3 on 127.0.0.1 for the tests: moto's threaded server on a free port, with a fresh bucket per test."""

from __future__ import annotations

import socket
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from moto.server import ThreadedMotoServer

from pidesktop.storage.s3 import S3Credentials, S3Location, connect

CREDENTIALS = S3Credentials("testing-access-key", "testing-secret-key")


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


@dataclass
class S3Server:
    endpoint: str

    def location(self, bucket: str, prefix: str = "") -> S3Location:
        return S3Location(bucket=bucket, endpoint=self.endpoint, region="us-east-1", prefix=prefix)

    def new_bucket(self, prefix: str = "") -> S3Location:
        location = self.location(f"b-{uuid.uuid4().hex[:12]}", prefix)
        connect(location, CREDENTIALS).create_bucket(Bucket=location.bucket)
        return location


@pytest.fixture(scope="session")
def s3_server() -> Iterator[S3Server]:
    port = _free_port()
    server = ThreadedMotoServer(ip_address="127.0.0.1", port=port, verbose=False)
    server.start()
    try:
        yield S3Server(f"http://127.0.0.1:{port}")
    finally:
        server.stop()


@pytest.fixture
def bucket(s3_server: S3Server) -> S3Location:
    return s3_server.new_bucket(prefix="pidesktop")
