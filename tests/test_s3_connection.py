"""The shared S3 connection against moto's server on 127.0.0.1: each failure a sentence and a stable code."""

from __future__ import annotations

import json

import pytest

from pidesktop.storage import s3
from tests.support.s3_server import CREDENTIALS, S3Server, _free_port


def test_check_passes_and_leaves_nothing(s3_server: S3Server, bucket: s3.S3Location) -> None:
    client = s3.connect(bucket, CREDENTIALS)
    s3.check(client, bucket)
    assert client.list_objects_v2(Bucket=bucket.bucket).get("KeyCount") == 0


def test_missing_bucket(s3_server: S3Server) -> None:
    location = s3_server.location("no-such-bucket")
    with pytest.raises(s3.S3Problem) as err:
        s3.check(s3.connect(location, CREDENTIALS), location)
    assert err.value.code == s3.BUCKET_MISSING
    assert "does not exist" in str(err.value)


def test_bucket_refusing_writes(s3_server: S3Server, bucket: s3.S3Location) -> None:
    client = s3.connect(bucket, CREDENTIALS)
    deny = {"Effect": "Deny", "Principal": "*", "Action": "s3:PutObject", "Resource": f"arn:aws:s3:::{bucket.bucket}/*"}
    client.put_bucket_policy(Bucket=bucket.bucket, Policy=json.dumps({"Version": "2012-10-17", "Statement": [deny]}))
    s3.check(client, bucket, write=False)
    with pytest.raises(s3.S3Problem) as err:
        s3.check(client, bucket)
    assert err.value.code == s3.WRITES_REFUSED


def test_no_network() -> None:
    location = s3.S3Location(bucket="b", endpoint=f"http://127.0.0.1:{_free_port()}")
    with pytest.raises(s3.S3Problem) as err:
        s3.check(s3.connect(location, CREDENTIALS), location)
    assert err.value.code == s3.NO_NETWORK


def test_credentials_from_environment_or_missing(monkeypatch: pytest.MonkeyPatch) -> None:
    location = s3.S3Location(bucket="b", endpoint="http://127.0.0.1:9")
    monkeypatch.delenv(s3.ENV_ACCESS_KEY, raising=False)
    monkeypatch.delenv(s3.ENV_SECRET_KEY, raising=False)
    with pytest.raises(s3.S3Problem) as err:
        s3.connect(location)
    assert err.value.code == s3.CREDENTIALS_MISSING
    monkeypatch.setenv(s3.ENV_ACCESS_KEY, "a")
    monkeypatch.setenv(s3.ENV_SECRET_KEY, "b")
    assert s3.connect(location) is not None


def test_error_codes_map_to_sentences() -> None:
    from botocore.exceptions import ClientError

    location = s3.S3Location(bucket="b", endpoint="http://x")

    def err(code: str, op: str = "GetObject") -> s3.S3Problem:
        response = {"Error": {"Code": code, "Message": "m"}, "ResponseMetadata": {"HTTPStatusCode": 400}}
        return s3.explain(ClientError(response, op), location)  # type: ignore[arg-type]

    assert err("InvalidAccessKeyId").code == s3.CREDENTIALS_REFUSED
    assert err("SignatureDoesNotMatch").code == s3.CREDENTIALS_REFUSED
    assert err("RequestTimeTooSkewed").code == s3.CLOCK_SKEW
    assert err("NoSuchBucket").code == s3.BUCKET_MISSING
    assert err("404", "HeadBucket").code == s3.BUCKET_MISSING
    assert "clock" in str(err("RequestTimeTooSkewed"))


def test_a_server_that_checks_keys_refuses_a_wrong_one_in_words(s3_checking_keys) -> None:
    location, good = s3_checking_keys.location, s3_checking_keys.credentials
    s3.check(s3.connect(location, good), location)
    for wrong in (s3.S3Credentials("AKIAUNKNOWNKEY000000", good.secret_key), s3.S3Credentials(good.access_key, "x")):
        with pytest.raises(s3.S3Problem) as err:
            s3.check(s3.connect(location, wrong), location)
        assert err.value.code == s3.CREDENTIALS_REFUSED
        assert "refused the access key or secret: check both" in str(err.value)
