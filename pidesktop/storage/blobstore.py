"""Where backup objects live: an S3 bucket (under a prefix) or a local folder, behind one small interface.

Names are ``/``-separated relative keys (``chunks/<id>``, ``snapshots/<id>``).
Each ``put`` is atomic: S3 stores an object whole or not at all, the folder store
writes a temporary file and renames it, so a killed backup never leaves half an object
under its final name.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Protocol

from pidesktop.durable import FILE_MODE, write_all
from pidesktop.paths import DIR_MODE
from pidesktop.storage.s3 import S3Location, S3Problem, explain

if TYPE_CHECKING:
    from mypy_boto3_s3 import S3Client
    from mypy_boto3_s3.type_defs import ObjectIdentifierTypeDef


class BlobStore(Protocol):
    def describe(self) -> str: ...
    def put(self, name: str, data: bytes) -> None: ...
    def get(self, name: str) -> bytes: ...
    def names(self, folder: str) -> list[str]: ...
    def delete(self, names: list[str]) -> None: ...
    def exists(self, name: str) -> bool: ...


class MissingObject(Exception):
    """A named object is not in the store."""


class S3Store:
    def __init__(self, client: S3Client, location: S3Location) -> None:
        self.client = client
        self.location = location

    def describe(self) -> str:
        return self.location.describe()

    def put(self, name: str, data: bytes) -> None:
        try:
            self.client.put_object(Bucket=self.location.bucket, Key=self.location.key(name), Body=data)
        except Exception as exc:
            raise explain(exc, self.location, writing=True) from exc

    def get(self, name: str) -> bytes:
        try:
            return self.client.get_object(Bucket=self.location.bucket, Key=self.location.key(name))["Body"].read()
        except Exception as exc:
            problem = explain(exc, self.location)
            if problem.code == "object_missing":
                raise MissingObject(name) from exc
            raise problem from exc

    def exists(self, name: str) -> bool:
        try:
            self.client.head_object(Bucket=self.location.bucket, Key=self.location.key(name))
            return True
        except Exception as exc:
            problem = explain(exc, self.location)
            if problem.code == "object_missing":
                return False
            raise problem from exc

    def names(self, folder: str) -> list[str]:
        base = self.location.key(folder.strip("/")) + "/"
        strip = len(self.location.key(""))
        names: list[str] = []
        try:
            for page in self.client.get_paginator("list_objects_v2").paginate(Bucket=self.location.bucket, Prefix=base):
                names.extend(item["Key"][strip:].lstrip("/") for item in page.get("Contents", []))
        except Exception as exc:
            raise explain(exc, self.location) from exc
        return names

    def delete(self, names: list[str]) -> None:
        for start in range(0, len(names), 1000):
            batch: list[ObjectIdentifierTypeDef] = [
                {"Key": self.location.key(name)} for name in names[start : start + 1000]
            ]
            try:
                self.client.delete_objects(Bucket=self.location.bucket, Delete={"Objects": batch, "Quiet": True})
            except Exception as exc:
                raise explain(exc, self.location, writing=True) from exc


class FolderStore:
    """A backup folder on a local or mounted disk."""

    def __init__(self, root: Path) -> None:
        self.root = root

    def describe(self) -> str:
        return str(self.root)

    def _path(self, name: str) -> Path:
        return self.root.joinpath(*name.split("/"))

    def put(self, name: str, data: bytes) -> None:
        path = self._path(name)
        path.parent.mkdir(parents=True, exist_ok=True, mode=DIR_MODE)
        tmp = path.with_name(f".{path.name}.partial-{os.getpid()}")
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, FILE_MODE)
        try:
            write_all(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, path)

    def get(self, name: str) -> bytes:
        try:
            return self._path(name).read_bytes()
        except FileNotFoundError as exc:
            raise MissingObject(name) from exc

    def exists(self, name: str) -> bool:
        return self._path(name).is_file()

    def names(self, folder: str) -> list[str]:
        base = self._path(folder.strip("/"))
        if not base.is_dir():
            return []
        return [
            f"{folder.strip('/')}/{path.relative_to(base).as_posix()}"
            for path in base.rglob("*")
            if path.is_file() and not path.name.startswith(".")
        ]

    def delete(self, names: list[str]) -> None:
        for name in names:
            try:
                self._path(name).unlink()
            except FileNotFoundError:
                pass


__all__ = ["BlobStore", "FolderStore", "MissingObject", "S3Problem", "S3Store"]
