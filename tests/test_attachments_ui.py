"""Attachments from the composer: drop, paste, long paste, remove, send, previews in the transcript."""

import hashlib
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st
from PySide6.QtCore import QMimeData, Qt, QUrl
from PySide6.QtGui import QColor, QImage
from PySide6.QtWidgets import QStyleOptionViewItem

from pidesktop.ui.chat.thumbnails import PREVIEW, decode_preview
from tests.support.waits import spin_until
from tests.support.windows import stored_messages


def picture(path: Path, width=800, height=500) -> bytes:
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("#3b82f6"))
    assert image.save(str(path), "PNG")
    return path.read_bytes()


def files(*paths) -> QMimeData:
    mime = QMimeData()
    mime.setUrls([QUrl.fromLocalFile(str(p)) for p in paths])
    return mime


def ready(win):
    tray = win.composer.tray
    return tray.chips and not tray.pending()


def test_dropped_files_become_chips_and_are_sent_with_the_prompt(chat, qtbot, qloop, tmp_path):
    data = picture(tmp_path / "chart.png")
    (tmp_path / "notes.txt").write_text("plain notes")
    chat.composer.edit.insertFromMimeData(files(tmp_path / "chart.png", tmp_path / "notes.txt"))
    spin_until(qloop, lambda: ready(chat) and len(chat.composer.tray.blocks()) == 2)
    assert chat.composer.edit.toPlainText() == ""  # a drop never pastes the path as text
    chat.composer.edit.setPlainText("What is in these?")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(
        qloop,
        lambda: (
            chat.current_session_id
            and len(stored_messages(chat)) == 2
            and not chat.runner.is_running(chat.current_session_id)
        ),
    )
    prompt = stored_messages(chat)[0]
    attachments = [b for b in prompt["blocks"] if b["type"] == "attachment"]
    assert [(a["name"], a["kind"]) for a in attachments] == [("chart.png", "image"), ("notes.txt", "file")]
    assert attachments[0]["ref"] == "attachments/" + hashlib.sha256(data).hexdigest()
    assert prompt["blocks"][0] == {"type": "text", "text": "What is in these?"}
    assert not chat.composer.tray.chips and chat.composer.tray.isHidden()


def test_a_prompt_of_attachments_only_can_be_sent(chat, qtbot, qloop, tmp_path):
    (tmp_path / "a.txt").write_text("x")
    chat.composer.edit.insertFromMimeData(files(tmp_path / "a.txt"))
    spin_until(qloop, lambda: ready(chat))
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: chat.current_session_id and len(stored_messages(chat)) == 2)
    assert [b["type"] for b in stored_messages(chat)[0]["blocks"]] == ["attachment"]


def test_a_removed_chip_is_not_sent(chat, qtbot, qloop, tmp_path):
    (tmp_path / "keep.txt").write_text("keep")
    (tmp_path / "drop.txt").write_text("drop")
    chat.composer.edit.insertFromMimeData(files(tmp_path / "keep.txt", tmp_path / "drop.txt"))
    spin_until(qloop, lambda: ready(chat) and len(chat.composer.tray.blocks()) == 2)
    doomed = next(c for c in chat.composer.tray.chips.values() if c.block["name"] == "drop.txt")
    doomed.removeRequested.emit(doomed.chip_id)
    chat.composer.edit.setPlainText("one file")
    qtbot.keyClick(chat.composer.edit, Qt.Key.Key_Return)
    spin_until(qloop, lambda: chat.current_session_id and len(stored_messages(chat)) == 2)
    assert [b["name"] for b in stored_messages(chat)[0]["blocks"] if b["type"] == "attachment"] == ["keep.txt"]


def test_a_long_paste_becomes_a_text_attachment_and_a_short_one_stays_text(chat, qloop):
    chat.composer.edit.paste_threshold = 100
    short = QMimeData()
    short.setText("short words")
    chat.composer.edit.insertFromMimeData(short)
    assert chat.composer.edit.toPlainText() == "short words" and not chat.composer.tray.chips
    long = QMimeData()
    long.setText("a line of log output\n" * 50)
    chat.composer.edit.insertFromMimeData(long)
    spin_until(qloop, lambda: ready(chat))
    assert chat.composer.edit.toPlainText() == "short words"
    block = chat.composer.tray.blocks()[0]
    assert block["mimeType"] == "text/plain" and block["size"] == len(long.text().encode())
    assert "51 lines" in block["name"]


def test_the_paste_threshold_follows_the_setting(chat, qloop):
    chat.client.call_blocking("settings.set", {"patch": {"largePasteThreshold": 1234}})
    qloop.run_until_complete(chat.dialogs.apply_settings(chat.client.call_blocking("settings.get", {})["settings"]))
    assert chat.composer.edit.paste_threshold == 1234


def test_a_pasted_picture_is_stored_as_png_and_its_temp_file_removed(chat, qloop, tmp_path, monkeypatch):
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    import tempfile

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    mime = QMimeData()
    image = QImage(64, 32, QImage.Format.Format_RGB32)
    image.fill(QColor("red"))
    mime.setImageData(image)
    chat.composer.edit.insertFromMimeData(mime)
    spin_until(qloop, lambda: ready(chat))
    block = chat.composer.tray.blocks()[0]
    assert block["kind"] == "image" and block["mimeType"] == "image/png"
    assert not list(tmp_path.glob("pidesktop-paste-*"))


def test_a_folder_dropped_is_refused_with_its_name_and_leaves_no_chip(chat, qloop, tmp_path):
    folder = tmp_path / "photos"
    folder.mkdir()
    chat.composer.edit.insertFromMimeData(files(folder))
    spin_until(qloop, lambda: not chat.composer.tray.chips and chat.notices.host_error is not None)
    assert chat.notices.host_error.code == "INVALID_PARAMS"
    assert "photos" in chat.notices.host_error.message
    assert "photos" in chat.notice.label.text()


def test_the_transcript_previews_images_and_lists_files(chat, qloop, tmp_path):
    picture(tmp_path / "wide.png", 1600, 400)
    (tmp_path / "report.pdf").write_bytes(b"%PDF-1.4 " + b"x" * 5000)
    chat.composer.edit.insertFromMimeData(files(tmp_path / "wide.png", tmp_path / "report.pdf"))
    spin_until(qloop, lambda: ready(chat) and len(chat.composer.tray.blocks()) == 2)
    chat.composer._submit()
    spin_until(
        qloop,
        lambda: (
            chat.current_session_id
            and chat.transcript_model.rowCount() >= 2
            and not chat.runner.is_running(chat.current_session_id)
        ),
    )
    view = chat.transcript
    index = chat.transcript_model.index(0)
    spin_until(qloop, lambda: view.thumbnails._done)
    bubble = view.delegate.rendered(index).parts[0]
    assert bubble.height >= 60 + 2 * 12  # the 60 px preview is inside the bubble
    assert view.delegate.sizeHint(QStyleOptionViewItem(), index).height() > bubble.height
    doc = bubble.doc
    assert "report.pdf" in doc.toPlainText() and "5.0 KB" in doc.toPlainText()
    assert "<img" in doc.toHtml()
    preview = next(iter(view.thumbnails._done.values()))
    assert (preview.width(), preview.height()) == (240, 60)  # scaled to fit, aspect kept


def test_edit_and_resend_keeps_the_attachments_of_the_prompt(chat, qloop, tmp_path):
    (tmp_path / "spec.txt").write_text("spec")
    chat.composer.edit.insertFromMimeData(files(tmp_path / "spec.txt"))
    spin_until(qloop, lambda: ready(chat))
    chat.composer.edit.setPlainText("read this")
    chat.composer._submit()
    spin_until(
        qloop,
        lambda: (
            chat.current_session_id
            and len(stored_messages(chat)) == 2
            and not chat.runner.is_running(chat.current_session_id)
        ),
    )
    qloop.run_until_complete(chat.chats.run_message_action("edit", stored_messages(chat)[0]["id"]))
    assert chat.composer.edit.toPlainText() == "read this"
    assert [b["name"] for b in chat.composer.tray.blocks()] == ["spec.txt"]


@settings(max_examples=25, deadline=None)
@given(st.integers(1, 3000), st.integers(1, 3000))
def test_previews_fit_the_bound_and_keep_the_aspect(qapp, width, height):
    image = QImage(width, height, QImage.Format.Format_RGB32)
    image.fill(QColor("green"))
    from PySide6.QtCore import QBuffer, QByteArray, QIODevice

    data = QByteArray()
    buffer = QBuffer(data)
    buffer.open(QIODevice.OpenModeFlag.WriteOnly)
    image.save(buffer, "PNG")
    preview = decode_preview(bytes(data))
    assert preview.width() <= PREVIEW.width() and preview.height() <= PREVIEW.height()
    scale = min(1.0, PREVIEW.width() / width, PREVIEW.height() / height)
    assert abs(preview.width() - max(1.0, width * scale)) <= 1
    assert abs(preview.height() - max(1.0, height * scale)) <= 1


def test_undecodable_bytes_have_no_preview(qapp):
    assert decode_preview(b"not an image at all") is None


def test_files_dropped_on_the_transcript_area_join_the_composer(chat, qloop, tmp_path):
    from PySide6.QtCore import QPointF
    from PySide6.QtGui import QDropEvent

    (tmp_path / "plan.txt").write_text("the plan")
    mime = files(tmp_path / "plan.txt")
    drop = QDropEvent(
        QPointF(300, 200), Qt.DropAction.CopyAction, mime, Qt.MouseButton.NoButton, Qt.KeyboardModifier.NoModifier
    )
    chat.dropEvent(drop)
    spin_until(qloop, lambda: ready(chat))
    assert [b["name"] for b in chat.composer.tray.blocks()] == ["plan.txt"]


def test_a_reply_says_when_its_pictures_were_sent_by_name_only(chat, qloop):
    sid = chat.client.call_blocking("session.create", {})["session"]["id"]
    chat.client.call_blocking(
        "session.appendMessage",
        {
            "sessionId": sid,
            "message": {
                "id": "r1",
                "role": "assistant",
                "blocks": [{"type": "text", "text": "A bar chart."}],
                "meta": {"status": "completed", "imagesNotSent": True},
            },
        },
    )
    qloop.run_until_complete(chat.chat_view.open_transcript(sid))
    spin_until(qloop, lambda: chat.transcript_model.row_of("r1") >= 0)
    rendered = chat.transcript.delegate.rendered(chat.transcript_model.index(chat.transcript_model.row_of("r1")))
    assert any("sent by name only" in part.doc.toPlainText() for part in rendered.parts)


# -- the attach-files picker opens at home (then the last folder), at a useful size ----------------------
def test_the_file_picker_opens_at_home_then_the_last_folder(qapp, isolated_home, monkeypatch, tmp_path):
    from PySide6.QtWidgets import QFileDialog

    from pidesktop.ui.chat.attachment_tray import PICKER_SIZE, FilePicker

    monkeypatch.setattr(FilePicker, "last_folder", None)
    seen = []
    picked = tmp_path / "photos" / "cat.png"
    picked.parent.mkdir()
    picked.write_bytes(b"png")

    def fake_exec(dialog):
        seen.append((dialog.directory().absolutePath(), (dialog.width(), dialog.height())))
        monkeypatch.setattr(QFileDialog, "selectedFiles", lambda self: [str(picked)])
        return 1

    monkeypatch.setattr(QFileDialog, "exec", fake_exec)
    assert FilePicker.choose(None, "Attach files")[0] == [str(picked)]
    assert seen[0] == (str(isolated_home), PICKER_SIZE)
    FilePicker.choose(None, "Attach files")
    assert seen[1][0] == str(picked.parent)
