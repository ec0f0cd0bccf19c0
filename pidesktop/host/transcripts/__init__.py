"""Conversation transcripts: JSONL files that are the source of truth for messages.

``TranscriptStore`` writes them durably and reads them either whole
(``read_all``) or a page at a time (``window``), through a byte-offset layout
so that opening a long conversation costs what the page costs.
"""

from .layout import Layout
from .lines import TopLevel, scan_top_level
from .records import InvalidRecord
from .store import Transcript, TranscriptChanged, TranscriptStore
from .windows import MessageNotFound, Window

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
