"""Conversation transcripts: JSONL files that are the source of truth for messages.

``TranscriptStore`` writes them durably and reads them either whole
(``read_all``) or a page at a time (``window``), through a byte-offset layout
so that opening a long conversation costs what the page costs.
"""

from pidesktop.formats.transcript.lines import TopLevel, scan_top_level
from pidesktop.formats.transcript.records import InvalidRecord
from pidesktop.host.transcripts.layout import Layout
from pidesktop.host.transcripts.store import Transcript, TranscriptChanged, TranscriptStore
from pidesktop.host.transcripts.windows import MessageNotFound, Window

__all__ = [
    "InvalidRecord",
    "Layout",
    "MessageNotFound",
    "TopLevel",
    "Transcript",
    "TranscriptChanged",
    "TranscriptStore",
    "Window",
    "scan_top_level",
]
