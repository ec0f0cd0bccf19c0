"""An incremental Server-Sent Events decoder following the WHATWG EventSource parsing rules.

Bytes arrive in arbitrary pieces: a piece may end inside a UTF-8 character, or
between the CR and LF of a CRLF. Whatever the split, ``feed`` + ``close``
produce the same events as decoding the whole stream at once.
"""

from __future__ import annotations

import codecs
import re
from dataclasses import dataclass

_LINE_END = re.compile(r"\r\n|\r|\n")


@dataclass(frozen=True, slots=True)
class SSEEvent:
    """One dispatched event. ``id`` is the last event ID seen so far, as EventSource defines it."""

    event: str | None
    data: str
    id: str | None = None


class SSEDecoder:
    def __init__(self) -> None:
        # utf-8-sig drops one leading BOM, even when it is split across pieces.
        self._text = codecs.getincrementaldecoder("utf-8-sig")(errors="replace")
        self._line_parts: list[str] = []
        # A CR ended the previous piece: an LF starting the next one belongs to it.
        self._skip_lf = False
        self._event_type = ""
        self._data_lines: list[str] = []
        self._last_id: str | None = None

    def feed(self, chunk: bytes) -> list[SSEEvent]:
        return self._consume(self._text.decode(chunk))

    def close(self) -> list[SSEEvent]:
        """Flush at end of stream: a last event without its blank line still counts if it has data."""
        events = self._consume(self._text.decode(b"", final=True))
        if self._line_parts:
            self._line("".join(self._line_parts), events)
            self._line_parts = []
        self._dispatch(events)
        return events

    def _consume(self, text: str) -> list[SSEEvent]:
        events: list[SSEEvent] = []
        if not text:
            return events
        if self._skip_lf and text[0] == "\n":
            text = text[1:]
        start = 0
        for match in _LINE_END.finditer(text):
            self._line_parts.append(text[start : match.start()])
            self._line("".join(self._line_parts), events)
            self._line_parts = []
            start = match.end()
        if start < len(text):
            self._line_parts.append(text[start:])
        self._skip_lf = text.endswith("\r")
        return events

    def _line(self, line: str, events: list[SSEEvent]) -> None:
        if not line:
            self._dispatch(events)
            return
        if line[0] == ":":
            return  # a comment, usually a keep-alive
        name, colon, value = line.partition(":")
        if colon and value.startswith(" "):
            value = value[1:]
        if name == "data":
            self._data_lines.append(value)
        elif name == "event":
            self._event_type = value
        elif name == "id":
            if "\0" not in value:
                self._last_id = value
        # "retry" and unknown fields are ignored.

    def _dispatch(self, events: list[SSEEvent]) -> None:
        if self._data_lines:
            events.append(SSEEvent(self._event_type or None, "\n".join(self._data_lines), self._last_id))
        self._data_lines = []
        self._event_type = ""
