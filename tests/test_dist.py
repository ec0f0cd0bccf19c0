"""Each installer `make dist` builds, installed the way a person installs it, then run.

- the wheel, with pip into a fresh venv (nothing of this checkout on any path);
- the bundle, its tarball unpacked into a scratch folder and started with no Python on PATH;
- the .deb, with ``dpkg -i`` into this system (root only): ``/usr/bin/pidesktop`` started under Xvfb in a clean
  environment answers in its window and quits with Ctrl+Q, and ``dpkg -r`` leaves the data folder alone.

Each prints its version, answers the host's JSON-RPC handshake over stdio, runs a chat turn without a window
(the offline demo), renders its window offscreen, and carries the compiled Chinese catalogue. They take
minutes: `make dist-test` builds the installers and runs them (``-m dist``); anything else skips them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tarfile
from pathlib import Path

import orjson
import pytest
from PySide6.QtCore import QTranslator

from pidesktop import __version__
from pidesktop.formats.index.schema import SCHEMA_VERSION
from tests.support.realwindow import App, XDisplay, missing_tools, wait_for

pytestmark = pytest.mark.dist

REPO = Path(__file__).resolve().parents[1]
DIST = REPO / "dist"
VERSION_LINE = f"pidesktop {__version__} (data schema v{SCHEMA_VERSION})"
WHEEL = f"pidesktop-{__version__}-py3-none-any.whl"
TARBALL = f"pidesktop-{__version__}-linux-x86_64.tar.gz"
DEB = f"pidesktop_{__version__}_amd64.deb"
PROMPT = "Hello from the installed app"
QT_MODULES_USED = {"QtCore", "QtGui", "QtWidgets"}


@pytest.fixture(autouse=True)
def only_when_asked(request):
    if "dist" not in (request.config.getoption("markexpr") or ""):
        pytest.skip("installs what `make dist` built; run `make dist-test`")


def artefact(name: str) -> Path:
    path = DIST / name
    if not path.is_file():
        pytest.fail(f"{path} is missing: `make dist` builds it")
    return path


def clean_env(home: Path, path: str = "/usr/bin:/bin", **extra: str) -> dict[str, str]:
    """What a login shell would have, and nothing from this checkout or its .venv."""
    return {"PATH": path, "HOME": str(home), "LANG": "C.UTF-8", **extra}


def run(command: list[str], env: dict[str, str], timeout: float = 180, **kwargs) -> subprocess.CompletedProcess:
    return subprocess.run(command, env=env, capture_output=True, text=True, timeout=timeout, **kwargs)


def handshake(program: list[str], env: dict[str, str], data: Path) -> dict:
    request = {"jsonrpc": "2.0", "id": 1, "method": "app.handshake", "params": {"protocolVersion": 1}}
    done = run([*program, "host", "--stdio", "--data-dir", str(data)], env, input=orjson.dumps(request).decode() + "\n")
    assert done.returncode == 0, done.stderr
    answer = orjson.loads(done.stdout.splitlines()[0])
    assert "result" in answer, answer
    return answer["result"]


def check_runs(program: list[str], workflows: list[str], scratch: Path, path: str = "/usr/bin:/bin") -> None:
    """The checks every installer passes, ``program`` being its ``pidesktop`` command."""
    env = clean_env(scratch / "home", path)
    version = run([*program, "--version"], env)
    assert (version.returncode, version.stdout.strip(), version.stderr) == (0, VERSION_LINE, "")

    hello = handshake(program, env, scratch / "data")
    assert (hello["hostVersion"], hello["schemaVersion"]) == (__version__, SCHEMA_VERSION)

    chat = run([*program, "chat", "--data-dir", str(scratch / "data"), PROMPT], env)
    assert chat.returncode == 0, chat.stderr
    assert f"\u201c{PROMPT}\u201d" in chat.stdout  # the offline demo quotes the prompt

    tool = run([*workflows, "--help"], env)
    assert tool.returncode == 0 and "usage: pi-workflows" in tool.stdout, tool

    shot = scratch / "window.png"
    rendered = run(
        [*program, "--data-dir", str(scratch / "data"), "--screenshot", str(shot)],
        clean_env(scratch / "home", path, QT_QPA_PLATFORM="offscreen", LANG="zh_CN.UTF-8"),
    )
    assert rendered.returncode == 0, rendered.stderr
    assert shot.is_file() and shot.stat().st_size > 10_000


def assert_translates(qm: Path) -> None:
    """The shipped catalogue is a compiled one that Qt loads and that has the Chinese texts."""
    translator = QTranslator()
    assert translator.load(str(qm)), qm
    assert translator.translate("SettingsDialog", "Data") == "数据"


# --- the wheel --------------------------------------------------------------------------------------


def test_the_package_builds_without_a_deprecation_warning():
    # `make dist` keeps python -m build's output; the licence as a TOML table used to fill it with warnings.
    log = REPO / "build" / "python-build.log"
    if not log.is_file():
        pytest.fail(f"{log} is missing: `make dist` writes it")
    text = log.read_text(errors="replace")
    assert "Successfully built" in text
    assert [line for line in text.splitlines() if "deprecat" in line.lower() or "BuildBackendWarning" in line] == []


def test_the_wheel_installs_into_a_fresh_venv_and_runs(tmp_path):
    wheel = artefact(WHEEL)
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, timeout=120)
    env = {key: value for key, value in os.environ.items() if key not in ("PYTHONPATH", "VIRTUAL_ENV")}
    installed = run([str(venv / "bin/python"), "-m", "pip", "install", "--quiet", str(wheel)], env, timeout=900)
    assert installed.returncode == 0, installed.stderr

    check_runs([str(venv / "bin/pidesktop")], [str(venv / "bin/pi-workflows")], tmp_path)
    where = run(
        [str(venv / "bin/python"), "-c", "import pidesktop.ui.kit.i18n as i; print(i.catalogue('zh_CN'))"],
        clean_env(tmp_path / "home"),
        cwd=tmp_path,
    )
    qm = Path(where.stdout.strip())
    assert qm.is_relative_to(venv), qm  # the installed package's own, not this checkout's
    assert_translates(qm)
    assert not qm.with_suffix(".ts").exists()  # the wheel carries the compiled catalogue, not its source
    assert (qm.parents[1] / "icons" / "pidesktop.svg").is_file()


# --- the bundle -------------------------------------------------------------------------------------


def test_the_bundle_runs_unpacked_with_no_python_on_path(tmp_path):
    tarball = artefact(TARBALL)
    with tarfile.open(tarball) as archive:
        archive.extractall(tmp_path / "unpacked", filter="tar")
    folder = tmp_path / "unpacked" / f"pidesktop-{__version__}"
    nothing = tmp_path / "empty-bin"  # PATH with no Python (nor anything else) on it
    nothing.mkdir()
    check_runs([str(folder / "pidesktop")], [str(folder / "pi-workflows")], tmp_path, path=str(nothing))
    assert_translates(folder / "_internal/pidesktop/resources/i18n/pidesktop_zh_CN.qm")
    qt = folder / "_internal/PySide6"
    assert not [path.name for path in qt.glob("Qt*.so") if path.name.split(".")[0] not in QT_MODULES_USED]


# --- the .deb ---------------------------------------------------------------------------------------


@pytest.fixture
def installed_deb():
    if shutil.which("dpkg") is None:
        pytest.skip("dpkg is not installed (not a Debian-like system)")
    if os.geteuid() != 0:
        pytest.skip("installing a .deb needs root")
    deb = artefact(DEB)
    if run(["dpkg-query", "-W", "-f=${Status}", "pidesktop"], dict(os.environ)).stdout.startswith("install ok"):
        pytest.skip("a pidesktop package is installed already; this test does not replace it")
    done = run(["dpkg", "-i", str(deb)], dict(os.environ))
    try:
        assert done.returncode == 0, done.stdout + done.stderr
        yield deb
    finally:
        run(["dpkg", "--purge", "pidesktop"], dict(os.environ))


def test_the_deb_installs_runs_in_a_window_and_removes_without_touching_data(tmp_path, installed_deb):
    for path in (
        "/usr/bin/pidesktop",
        "/usr/bin/pi-workflows",
        "/opt/pidesktop/pidesktop",
        "/usr/share/applications/pidesktop.desktop",
        "/usr/share/icons/hicolor/scalable/apps/pidesktop.svg",
        "/usr/share/metainfo/io.pidesktop.PiDesktop.metainfo.xml",
    ):
        assert Path(path).exists(), path
    check_runs(["/usr/bin/pidesktop"], ["/usr/bin/pi-workflows"], tmp_path / "cli")
    assert_translates(Path("/opt/pidesktop/_internal/pidesktop/resources/i18n/pidesktop_zh_CN.qm"))

    reason = missing_tools()
    if reason:
        pytest.skip(f"the window part {reason}")
    display = XDisplay(tmp_path / "x").start()
    app = App(display, tmp_path / "app", program=("/usr/bin/pidesktop",))
    try:
        app.wait_for_window()
        app.focus()
        display.type(PROMPT)
        display.key("Return")
        wait_for(lambda: answered_on_disk(app.data), 60, "the offline demo's reply on disk")
        display.screenshot(tmp_path / "deb-window.png")
        display.key("ctrl+q")
        assert app.wait(30) == 0
        assert app.stderr == ""
    finally:
        app.close()
        display.close()

    for way in ("--remove", "--purge"):
        removed = run(["dpkg", way, "pidesktop"], dict(os.environ))
        assert removed.returncode == 0, removed.stderr
        assert not Path("/usr/bin/pidesktop").exists() and not Path("/opt/pidesktop").exists()
        assert answered_on_disk(app.data), f"dpkg {way} changed the data folder"


def answered_on_disk(data: Path) -> bool:
    """A transcript in ``data`` holds the prompt and the offline demo's reply quoting it."""
    for path in (data / "sessions").glob("*.jsonl"):
        text = path.read_text(encoding="utf-8", errors="replace")
        if f"\u201c{PROMPT}\u201d" in text:
            return True
    return False
