"""Simplified Chinese for the desktop UI: the catalogue, the translator, and a real window in Chinese."""

import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from datetime import datetime
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import QCoreApplication
from PySide6.QtWidgets import QLabel

from pidesktop.ui.kit import i18n
from pidesktop.ui.kit.prefs import Preferences
from pidesktop.ui.kit.timefmt import relative
from pidesktop.ui.window.main_window import MainWindow
from tests.support.repo import REPO
from tests.support.waits import spin_until
from tests.support.windows import started_window

TS = i18n.catalogue("zh_CN", ".ts")


@pytest.fixture
def language(qapp):
    """Install a language for the test; English again afterwards, whatever happened."""

    def install(name: str) -> str:
        return i18n.install(qapp, name)

    yield install
    i18n.remove(qapp)
    assert QCoreApplication.translate("SessionTreeModel", "Chats") == "Chats"


@pytest.fixture
def host(host_client):
    host_client.call_blocking("session.create", {"title": "Trip to Kyoto"})
    return host_client


@pytest.fixture
def make_window(qtbot, qloop, host):
    built: list[MainWindow] = []

    def make(prefs: Preferences | None = None) -> MainWindow:
        win = started_window(qtbot, qloop, host, prefs=prefs, size=None)
        built.append(win)
        return win

    yield make
    for win in built:
        if win.settings_dialog is not None:
            win.settings_dialog.close()
        win.close()


def texts(window: MainWindow, qloop) -> dict:
    """What a person reads in the window, the inbox and the settings dialog."""
    window.dialogs.open_settings()
    dialog = window.settings_dialog
    qloop.run_until_complete(dialog.loading)
    shown = {
        "new chat": window.sidebar.new_chat_button.text(),
        "empty title": window.empty_page.findChild(QLabel, "emptyTitle").text(),
        "empty hint": window.empty_page.findChild(QLabel, "emptyHint").text(),
        "placeholder": window.composer.edit.placeholderText(),
        "send": window.composer.send_button.text(),
        "group": window.model.index(0, 0).data(),
        "inbox": window.inbox.title_label.text(),
        "inbox empty": window.inbox.empty_label.text(),
        "chip": window.model_chip.text(),
        "settings": dialog.windowTitle(),
        "nav": [dialog.nav.item(row).text() for row in range(dialog.nav.count())],
        "page titles": sorted(label.text() for label in dialog.findChildren(QLabel, "pageTitle")),
    }
    dialog.close()
    spin_until(qloop, lambda: window.settings_dialog is None)
    return shown


ENGLISH = {
    "new chat": "+  New chat",
    "empty title": "Start a conversation",
    "empty hint": "Type below, or press Ctrl+N for a new chat.",
    "placeholder": "Message pidesktop…  (Enter to send, Shift+Enter for a new line)",
    "send": "Send",
    "group": "Chats",
    "inbox": "Inbox",
    "inbox empty": "Nothing here yet — finished tasks you didn't watch show up here.",
    "chip": "Offline demo (no AI)",
    "settings": "Settings",
    "nav": ["General", "Providers", "Tools", "Usage", "Data", "Sync"],
    "page titles": sorted(["General", "Providers", "Tools", "Usage", "Data", "Sync"]),
}

CHINESE = {
    "new chat": "+  新对话",
    "empty title": "开始对话",
    "empty hint": "在下方输入，或按 Ctrl+N 新建对话。",
    "placeholder": "给 pidesktop 发消息…（Enter 发送，Shift+Enter 换行）",
    "send": "发送",
    "group": "对话",
    "inbox": "收件箱",
    "inbox empty": "这里还没有内容——你没在看时完成的任务会显示在这里。",
    "chip": "离线演示（无 AI）",
    "settings": "设置",
    "nav": ["通用", "提供商", "工具", "用量", "数据", "同步"],
    "page titles": sorted(["通用", "提供商", "工具", "用量", "数据", "同步"]),
}


def test_the_window_speaks_chinese_and_english_again(language, make_window, qloop):
    assert language("zh_CN") == "zh_CN"
    assert i18n.active() == "zh_CN"
    chinese = make_window()
    assert texts(chinese, qloop) == CHINESE
    assert chinese.new_chat_action.text() == "新对话"

    assert language("en") == "en"
    assert i18n.active() == "en"
    english = make_window()
    assert texts(english, qloop) == ENGLISH


def test_qt_standard_buttons_follow_the_language(language, make_window, qtbot, qloop):
    language("zh_CN")
    window = make_window()
    session_id = window.client.call_blocking("session.list")["sessions"][0]["id"]
    window.sidebar.select(session_id)
    window.chats.confirm_delete(session_id)
    box = window.chats.confirm_box
    assert box.text() == "要删除“Trip to Kyoto”吗？"
    assert box.button(box.StandardButton.Cancel).text() == "取消"  # from Qt's own qtbase catalogue
    assert "删除" in [button.text() for button in box.buttons()]
    box.reject()


def test_relative_times_in_chinese(language):
    now = int(datetime(2026, 11, 20, 15, 0).timestamp() * 1000)
    language("zh_CN")
    assert relative(now - 10_000, now) == "刚刚"
    assert relative(now - 5 * 60_000, now) == "5 分钟前"
    assert relative(now - 2 * 3_600_000, now) == "2 小时前"
    assert relative(int(datetime(2026, 11, 19, 9, 0).timestamp() * 1000), now) == "昨天"
    assert relative(int(datetime(2026, 11, 16, 9, 0).timestamp() * 1000), now) == "周一"
    assert relative(int(datetime(2026, 3, 7, 9, 0).timestamp() * 1000), now) == "3月7日"
    language("en")
    assert relative(int(datetime(2026, 11, 16, 9, 0).timestamp() * 1000), now) == "Mon"
    assert relative(int(datetime(2026, 3, 7, 9, 0).timestamp() * 1000), now) == "Mar 7"
    assert relative(now - 5 * 60_000, now) == "5m"


def test_every_message_is_translated():
    root = ET.parse(TS).getroot()
    assert root.get("language") == "zh_CN"
    messages = list(root.iter("message"))
    assert len(messages) > 150
    for message in messages:
        source = message.findtext("source")
        translation = message.find("translation")
        assert translation.get("type") not in ("unfinished", "obsolete", "vanished"), source
        forms = [form.text for form in translation.findall("numerusform")] or [translation.text]
        assert all(form and form.strip() for form in forms), source
        for marker in ("%1", "%2", "%n"):
            if marker in source and source != "%1 %2":  # a date pattern may use the month's number instead
                assert all(marker in form for form in forms), (source, forms)


def test_the_catalogue_compiles(tmp_path):
    qm = tmp_path / "pidesktop_zh_CN.qm"
    assert i18n.compile_catalogue(TS, qm)
    assert qm.stat().st_size > 1000


def test_every_wrapped_text_is_in_the_catalogue(tmp_path):
    """A text wrapped in code but missing from the .ts would show in English: lupdate finds none new."""
    tool = shutil.which("pyside6-lupdate", path=str(Path(sys.executable).parent)) or shutil.which("pyside6-lupdate")
    if tool is None:
        pytest.skip("pyside6-lupdate is not installed")
    fresh = tmp_path / "check.ts"
    shutil.copy(TS, fresh)
    sources = sorted(str(p) for p in (REPO / "pidesktop" / "ui").rglob("*.py"))  # every folder of the window
    assert len(sources) > 100, "the window's modules were not found"
    done = subprocess.run(
        [tool, "-no-obsolete", "-locations", "none", *sources, "-ts", str(fresh)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    assert "(0 new and" in done.stdout, (
        "texts wrapped for translation are missing from the catalogue: run `pyside6-lupdate -no-obsolete "
        f"-locations none $(find pidesktop/ui -name '*.py') -ts {TS.relative_to(REPO)}` and translate them\n"
        f"{done.stdout}"
    )


def test_system_language_picks_a_catalogue_or_english(monkeypatch, language):
    class FakeLocale:
        def __init__(self, name):
            self._name = name

        def name(self):
            return self._name

    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: FakeLocale("zh_CN")))
    assert i18n.resolve("system") == "zh_CN"
    assert language(None) == "zh_CN"
    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: FakeLocale("de_DE")))
    assert i18n.resolve("system") == "en"
    assert language("system") == "en"
    assert i18n.resolve("fr_FR") == "en"


def test_a_checkout_without_the_compiled_file_compiles_it(monkeypatch, tmp_path, language):
    folder = tmp_path / "i18n"
    folder.mkdir()
    shutil.copy(TS, folder / TS.name)
    monkeypatch.setattr(i18n, "FOLDER", folder)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    assert language("zh_CN") == "zh_CN"
    assert list((tmp_path / "cache" / "pidesktop" / "i18n").glob("pidesktop_zh_CN-*.qm"))
    assert QCoreApplication.translate("SessionTreeModel", "Chats") == "对话"


def test_without_lrelease_it_stays_english(monkeypatch, tmp_path, language):
    folder = tmp_path / "i18n"
    folder.mkdir()
    shutil.copy(TS, folder / TS.name)
    monkeypatch.setattr(i18n, "FOLDER", folder)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    monkeypatch.setattr(i18n, "lrelease", lambda: None)
    monkeypatch.setattr(i18n, "_cache_folders", lambda: [tmp_path / "cache"])
    assert language("zh_CN") == "en"
    assert QCoreApplication.translate("SessionTreeModel", "Chats") == "Chats"


def test_the_window_keeps_the_language_for_the_next_start(make_window, tmp_path, qloop):
    prefs = Preferences(tmp_path / "ui")
    window = make_window(prefs)
    qloop.run_until_complete(window.dialogs.apply_settings({"language": "zh_CN", "theme": "light"}))
    window.close()  # saving the geometry keeps the language
    stored = orjson.loads((tmp_path / "ui" / "preferences.json").read_bytes())
    assert stored["window"]["language"] == "zh_CN"
    assert "geometry" in stored["window"]
    assert Preferences(tmp_path / "ui").data["window"]["language"] == "zh_CN"


def test_settings_say_a_new_language_needs_a_restart(monkeypatch, language, make_window, qloop):
    monkeypatch.setattr(i18n.QLocale, "system", staticmethod(lambda: i18n.QLocale("en_US")))
    assert language("system") == "en"
    window = make_window()
    window.dialogs.open_settings()
    dialog = window.settings_dialog
    qloop.run_until_complete(dialog.loading)
    general = dialog.general
    assert not general.language_note.isVisible()
    general.language_combo.setCurrentIndex(general.language_combo.findData("zh_CN"))
    spin_until(qloop, lambda: general.language_note.isVisible())
    assert window.client.call_blocking("settings.get")["settings"]["language"] == "zh_CN"
    spin_until(qloop, lambda: window.settings.get("language") == "zh_CN")
    general.language_combo.setCurrentIndex(general.language_combo.findData("en"))
    spin_until(qloop, lambda: not general.language_note.isVisible())
    dialog.close()


def test_a_count_of_one_reads_in_the_singular():
    assert i18n.counted(1, "1 chat", "%1 chats") == "1 chat"
    assert i18n.counted(0, "1 chat", "%1 chats") == "0 chats"
    assert i18n.counted(12, "1 chat", "%1 chats") == "12 chats"
