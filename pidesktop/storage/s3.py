"""The S3 connection shared by backups and settings sync: a client, and its failures in words.

boto3 is the client: it is well kept, speaks every S3-compatible service (AWS S3,
MinIO, Cloudflare R2, Backblaze B2, Garage) through an endpoint URL, and moto's
server mode gives the tests a real S3 on 127.0.0.1.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import boto3
from botocore.config import Config
from botocore.exceptions import (
    BotoCoreError,
    ClientError,
    ConnectionClosedError,
    ConnectTimeoutError,
    EndpointConnectionError,
    NoCredentialsError,
    ReadTimeoutError,
)

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
else:
    S3Client = Any

ENV_ACCESS_KEY = "AWS_ACCESS_KEY_ID"
ENV_SECRET_KEY = "AWS_SECRET_ACCESS_KEY"

# Stable codes for ``S3Problem.code``: callers branch on these, people read the sentence.
BUCKET_MISSING = "bucket_missing"
CREDENTIALS_MISSING = "credentials_missing"
CREDENTIALS_REFUSED = "credentials_refused"
CLOCK_SKEW = "clock_skew"
NO_NETWORK = "no_network"
WRITES_REFUSED = "writes_refused"
OBJECT_MISSING = "object_missing"
OTHER = "s3_error"

_CREDENTIAL_CODES = {
    "InvalidAccessKeyId",
    "SignatureDoesNotMatch",
    "InvalidToken",
    "ExpiredToken",
    "InvalidClientTokenId",
}
_SKEW_CODES = {"RequestTimeTooSkewed", "RequestExpired"}
_DENIED_CODES = {"AccessDenied", "403", "Forbidden", "AllAccessDisabled"}


@dataclass(frozen=True)
class S3Location:
    """Where objects go: ``endpoint`` None means AWS itself; ``prefix`` is a folder-like key prefix."""

    bucket: str
    endpoint: str | None = None
    region: str | None = None
    prefix: str = ""

    def key(self, name: str) -> str:
        """The object key of ``name`` under this location's prefix."""
        prefix = self.prefix.strip("/")
        return f"{prefix}/{name}" if prefix else name

    def describe(self) -> str:
        where = f"s3://{self.bucket}/{self.prefix.strip('/')}".rstrip("/")
        return f"{where} at {self.endpoint}" if self.endpoint else where


@dataclass(frozen=True)
class S3Credentials:
    access_key: str
    secret_key: str

    @classmethod
    def from_env(cls, environ: dict[str, str] | None = None) -> S3Credentials | None:
        env = os.environ if environ is None else environ
        access, secret = env.get(ENV_ACCESS_KEY, ""), env.get(ENV_SECRET_KEY, "")
        return cls(access, secret) if access and secret else None


class S3Problem(Exception):
    """An S3 request failed; ``code`` is one of this module's constants, the message a plain sentence."""

    def __init__(self, code: str, sentence: str) -> None:
        super().__init__(sentence)
        self.code = code
        self.sentence = sentence


def connect(location: S3Location, credentials: S3Credentials | None = None) -> S3Client:
    """A client for ``location``; credentials default to the standard environment variables.

    Raises ``S3Problem(CREDENTIALS_MISSING)`` when none are given or set.
    """
    creds = credentials or S3Credentials.from_env()
    if creds is None:
        raise S3Problem(
            CREDENTIALS_MISSING,
            f"No S3 credentials: set {ENV_ACCESS_KEY} and {ENV_SECRET_KEY}, or save them in Settings > Sync.",
        )
    config = Config(
        connect_timeout=10,
        read_timeout=60,
        retries={"max_attempts": 3, "mode": "standard"},
        s3={"addressing_style": "path"} if location.endpoint else {},
        # Newer botocore adds checksums some S3-compatible services reject; send them only when required.
        request_checksum_calculation="when_required",
        response_checksum_validation="when_required",
    )
    session = boto3.session.Session()
    client: S3Client = session.client(
        "s3",
        endpoint_url=location.endpoint or None,
        region_name=location.region or "us-east-1",
        aws_access_key_id=creds.access_key,
        aws_secret_access_key=creds.secret_key,
        config=config,
    )
    return client


def explain(exc: BaseException, location: S3Location, writing: bool = False) -> S3Problem:
    """``exc`` from a request to ``location`` as an ``S3Problem``; ``writing`` says the request stored something."""
    if isinstance(exc, S3Problem):
        return exc
    where = location.describe()
    if isinstance(exc, NoCredentialsError):
        return S3Problem(CREDENTIALS_MISSING, f"No S3 credentials: set {ENV_ACCESS_KEY} and {ENV_SECRET_KEY}.")
    if isinstance(exc, (EndpointConnectionError, ConnectTimeoutError, ReadTimeoutError, ConnectionClosedError)):
        return S3Problem(NO_NETWORK, f"Could not reach {location.endpoint or 'S3'}: check the address and the network.")
    if isinstance(exc, ClientError):
        error = exc.response.get("Error", {})
        code = str(error.get("Code", ""))
        status = exc.response.get("ResponseMetadata", {}).get("HTTPStatusCode", 0)
        if code in {"NoSuchBucket"} or (code == "404" and exc.operation_name == "HeadBucket"):
            return S3Problem(BUCKET_MISSING, f"The bucket {location.bucket!r} does not exist at {where}.")
        if code in {"NoSuchKey", "404"}:
            return S3Problem(OBJECT_MISSING, f"An object expected at {where} is missing.")
        if code in _CREDENTIAL_CODES:
            return S3Problem(CREDENTIALS_REFUSED, f"{where} refused the access key or secret: check both.")
        if code in _SKEW_CODES:
            return S3Problem(CLOCK_SKEW, "This computer's clock is too far off for S3 to accept requests: set it.")
        if code in _DENIED_CODES or status == 403:
            if writing:
                return S3Problem(WRITES_REFUSED, f"{where} refused to store data: the key may only read this bucket.")
            return S3Problem(CREDENTIALS_REFUSED, f"{where} refused access: the key has no rights on this bucket.")
        message = error.get("Message") or code or str(exc)
        return S3Problem(OTHER, f"S3 at {where} answered with an error: {message}.")
    if isinstance(exc, BotoCoreError):
        return S3Problem(OTHER, f"Talking to S3 at {where} failed: {exc}.")
    return S3Problem(OTHER, f"Talking to S3 at {where} failed: {exc}.")


def check(client: S3Client, location: S3Location, write: bool = True) -> None:
    """Test the connection: the bucket exists and answers, and (with ``write``) accepts a small object.

    Raises ``S3Problem`` saying what is wrong; leaves nothing behind.
    """
    try:
        client.head_bucket(Bucket=location.bucket)
    except Exception as exc:
        problem = explain(exc, location)
        if problem.code == CREDENTIALS_REFUSED:
            problem = _why_refused(client, location, problem)
        raise problem from exc
    if not write:
        return
    probe = location.key(f".pidesktop-write-test-{os.getpid()}")
    try:
        client.put_object(Bucket=location.bucket, Key=probe, Body=b"")
    except Exception as exc:
        raise explain(exc, location, writing=True) from exc
    try:
        client.delete_object(Bucket=location.bucket, Key=probe)
    except Exception as exc:
        raise explain(exc, location, writing=True) from exc


def _why_refused(client: S3Client, location: S3Location, problem: S3Problem) -> S3Problem:
    """A refused HEAD has no body to say why: ask again with a GET, whose error names the cause (an unknown
    access key, a wrong secret, or a key without rights on the bucket)."""
    try:
        client.list_objects_v2(Bucket=location.bucket, MaxKeys=1)
    except Exception as exc:
        return explain(exc, location)
    return problem
