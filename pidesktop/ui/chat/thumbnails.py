"""Small previews of image attachments, read from the host and decoded off the UI thread.

The bytes come through ``attachments.read`` (the host owns every file under the
data root); decoding and scaling run in a worker thread, so a large photo
never stalls painting. Images above ``MAX_PREVIEW_BYTES`` are not previewed.
"""

from __future__ import annotations

import asyncio
import base64
from collections import OrderedDict

from PySide6.QtCore import QBuffer, QByteArray, QIODevice, QObject, QSize, Qt, Signal
from PySide6.QtGui import QImage, QImageReader

from pidesktop.bus import HostClient
from pidesktop.ui.kit.ops import task_op
from pidesktop.ui.kit.tasks import spawn

PREVIEW = QSize(240, 180)
MAX_PREVIEW_BYTES = 32 * 1024 * 1024
CHUNK = 4 * 1024 * 1024
CAPACITY = 64
UNAVAILABLE = "unavailable"  # too large, missing or not decodable: the chip shows the name only


def decode_preview(data: bytes, bound: QSize = PREVIEW) -> QImage | None:
    """Decode ``data`` scaled to fit ``bound`` (JPEG decodes at the smaller size directly)."""
    buffer = QBuffer()
    buffer.setData(QByteArray(data))
    buffer.open(QIODevice.OpenModeFlag.ReadOnly)
    reader = QImageReader(buffer)
    size = reader.size()
    if size.isValid() and (size.width() > bound.width() or size.height() > bound.height()):
        scaled = size.scaled(bound, Qt.AspectRatioMode.KeepAspectRatio)
        reader.setScaledSize(QSize(max(1, scaled.width()), max(1, scaled.height())))  # a 1x400 strip stays visible
    image = reader.read()
    return None if image.isNull() else image


class Thumbnails(QObject):
    ready = Signal(str)  # a ref whose preview (or its absence) is now known

    def __init__(self, client: HostClient | None, parent: QObject | None = None):
        super().__init__(parent)
        self.client = client
        self._done: OrderedDict[str, QImage | str] = OrderedDict()
        self._loading: set[str] = set()

    def get(self, ref: str) -> QImage | str | None:
        """The preview, ``UNAVAILABLE``, or None while it is not known yet (then it is fetched)."""
        found = self._done.get(ref)
        if found is not None:
            self._done.move_to_end(ref)
            return found
        if ref not in self._loading and self.client is not None and ref.startswith("attachments/"):
            self._loading.add(ref)
            spawn(self._load(ref), name="thumbnail")
        return None

    async def _load(self, ref: str) -> None:
        async def read_and_decode():
            data = await self._read(ref)
            return await asyncio.get_running_loop().run_in_executor(None, decode_preview, data) if data else None

        try:  # a picture that cannot be read shows as unavailable, not as an error
            image = await task_op(read_and_decode, parent=self, name="thumbnail", failure=lambda _error: None)
        finally:
            self._loading.discard(ref)
        self._done[ref] = image if image is not None else UNAVAILABLE
        while len(self._done) > CAPACITY:
            self._done.popitem(last=False)
        self.ready.emit(ref)

    async def _read(self, ref: str) -> bytes | None:
        parts: list[bytes] = []
        offset = 0
        while True:
            chunk = await self.client.call("attachments.read", {"ref": ref, "offset": offset, "length": CHUNK})
            if chunk["size"] > MAX_PREVIEW_BYTES:
                return None
            data = base64.b64decode(chunk["data"])
            parts.append(data)
            offset += len(data)
            if chunk["eof"] or not data:
                return b"".join(parts)
