"""A real S3 on 127.0.0.1 for the tests: moto's threaded server on a free port, with a fresh bucket per test."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import uuid
from collections.abc import Iterator
from dataclasses import dataclass

import pytest
from moto.server import ThreadedMotoServer

from pidesktop.storage.s3 import S3Credentials, S3Location, connect
from tests.support.waits import wait_for

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


# The requests that set up the checking server before it starts checking keys: create a user, give it
# every S3 right, make its key, make its bucket.
_SETUP_REQUESTS = 4


@dataclass
class CheckingS3:
    """A moto server that checks every request's key and signature, with one bucket its one key may use."""

    location: S3Location
    credentials: S3Credentials


def _answers(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
        return True
    except OSError:
        return False


@pytest.fixture(scope="session")
def s3_checking_keys() -> Iterator[CheckingS3]:
    """moto checks keys only when the whole process does, so this server is a process of its own."""
    import boto3

    port = _free_port()
    env = {**os.environ, "INITIAL_NO_AUTH_ACTION_COUNT": str(_SETUP_REQUESTS)}
    command = [sys.executable, "-m", "moto.server", "-H", "127.0.0.1", "-p", str(port)]
    server = subprocess.Popen(command, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(lambda: _answers(port) or server.poll() is not None, timeout=60, what="moto's server")
        endpoint = f"http://127.0.0.1:{port}"
        iam = boto3.client(
            "iam", endpoint_url=endpoint, region_name="us-east-1", aws_access_key_id="x", aws_secret_access_key="y"
        )
        iam.create_user(UserName="backup")
        rights = {"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Action": "s3:*", "Resource": "*"}]}
        iam.put_user_policy(UserName="backup", PolicyName="s3", PolicyDocument=json.dumps(rights))
        key = iam.create_access_key(UserName="backup")["AccessKey"]
        credentials = S3Credentials(key["AccessKeyId"], key["SecretAccessKey"])
        location = S3Location(bucket="checked-keys", endpoint=endpoint, region="us-east-1", prefix="p")
        connect(location, credentials).create_bucket(Bucket=location.bucket)
        yield CheckingS3(location, credentials)
    finally:
        server.kill()
        server.wait()
