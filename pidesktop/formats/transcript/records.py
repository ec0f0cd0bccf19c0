"""Transcript records: how they are written to a line and read back.

A line is one orjson-serialised object with ``type`` as its first key,
terminated by ``\\n``. Reading is forgiving: invalid UTF-8 is replaced with
U+FFFD before parsing, and a line that still does not parse, or whose record
lacks the fields every reader relies on, is skipped with a warning rather than
failing the whole transcript.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime, timedelta
from typing import Any, cast

import orjson

from pidesktop.formats.transcript import binary_storage
from pidesktop.formats.transcript.lines import COMPACTION, MESSAGE, SESSION

log = logging.getLogger("pidesktop.host.transcripts")

SCHEMA_VERSION = 2


class InvalidRecord(ValueError):
    """A record handed to a writer that readers would not accept."""


def rfc3339(ms: int) -> str:
    """Unix milliseconds as ``2026-07-26T09:00:00.000Z`` (UTC), the transcripts' time format."""
    moment = datetime.fromtimestamp(ms / 1000, UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ms % 1000:03d}Z"


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MILLISECOND = timedelta(milliseconds=1)


def parse_rfc3339(value: object) -> int | None:
    """An RFC 3339 time (``Z`` or an offset; without one, UTC) as Unix milliseconds; None if it is not one."""
    if not isinstance(value, str) or not 10 <= len(value.strip()) <= 40:
        return None
    try:
        moment = datetime.fromisoformat(value.strip().replace("z", "Z").replace("Z", "+00:00"))
    except ValueError:
        return None
    if moment.tzinfo is None:  # never the local zone: the same line reads the same on every machine
        moment = moment.replace(tzinfo=UTC)
    # In whole numbers: timestamp() * 1000 reads ...0.911 s as ...910 ms.
    return (moment - _EPOCH) // _MILLISECOND


def now_rfc3339() -> str:
    """The current UTC time as ``2026-07-26T09:00:00.000Z``."""
    now = datetime.now(UTC)
    return now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z"


def session_header(session_id: str, created_at: str) -> dict[str, Any]:
    return {"type": SESSION, "schema": SCHEMA_VERSION, "sessionId": session_id, "createdAt": created_at}


def encode_record(record: dict[str, Any]) -> bytes:
    """Serialise ``record`` as one line with ``type`` first; refuse records readers would skip."""
    if not isinstance(record, dict) or not isinstance(record.get("type"), str):
        raise InvalidRecord("a record needs a string 'type'")
    kind = record["type"]
    if kind == MESSAGE and not is_valid_message(record):
        raise InvalidRecord("a message needs a string 'id', a string 'role' and a list 'blocks'")
    if kind == COMPACTION and not is_valid_compaction(record):
        raise InvalidRecord("a compaction needs a string 'id'")
    ordered = {"type": kind}
    ordered.update((key, value) for key, value in record.items() if key != "type")
    try:
        return orjson.dumps(ordered) + b"\n"
    except TypeError as error:  # orjson raises TypeError for values it cannot encode
        raise InvalidRecord(f"record cannot be serialised: {error}") from error


def is_valid_message(record: Any) -> bool:
    return (
        isinstance(record, dict)
        and isinstance(record.get("id"), str)
        and isinstance(record.get("role"), str)
        and isinstance(record.get("blocks"), list)
    )


def is_valid_compaction(record: Any) -> bool:
    return isinstance(record, dict) and isinstance(record.get("id"), str)


def is_valid_header(record: Any) -> bool:
    return isinstance(record, dict) and record.get("type") == SESSION


_VALIDATORS = {MESSAGE: is_valid_message, COMPACTION: is_valid_compaction, SESSION: is_valid_header}


def parse_line(raw: bytes | memoryview) -> Any:
    """Parse one line, replacing invalid UTF-8 first if needed; raises ``orjson.JSONDecodeError``."""
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError:
        return orjson.loads(bytes(raw).decode("utf-8", "replace"))


def decode_record(
    raw: bytes | memoryview, kind: str, record_id: str | None, source: str, offset: int
) -> dict[str, Any] | None:
    """Parse a line already classified as ``kind``/``record_id``; None (with a warning) if it is not usable.

    Checking the parsed type and id against the classification keeps every
    reader agreeing on which lines count, whatever odd bytes a file holds.
    ``source`` and ``offset`` only locate the line in warnings. A record in
    the ``binaryStorage`` envelope comes back decoded; one that cannot be
    decoded raises ``BinaryStorageError`` (never skipped: the history would be
    silently wrong).
    """
    try:
        record = orjson.loads(raw)  # parse_line's first try, inline: every line of a whole read comes here
    except orjson.JSONDecodeError:
        try:
            record = parse_line(raw)
        except orjson.JSONDecodeError as error:
            log.warning("skipping a line of %s at byte %d that is not valid JSON: %s", source, offset, error)
            return None
    if isinstance(record, dict) and binary_storage.ENVELOPE_KEY in record:
        record = binary_storage.decode(record, f"{source} (byte {offset})")
    if not _VALIDATORS[kind](record):
        log.warning("skipping an invalid %s record in %s at byte %d", kind, source, offset)
        return None
    if record.get("type") != kind or (kind != SESSION and record.get("id") != record_id):
        log.warning("skipping a %s line with repeated top-level keys in %s at byte %d", kind, source, offset)
        return None
    return cast(dict[str, Any], record)  # the validator checked it is an object
