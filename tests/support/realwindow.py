"""A private X display with a window manager, and the real app in it, driven with xdotool.

``XDisplay`` starts Xvfb on a free display number (``-displayfd``: the server
picks it and tells us) and openbox on it, so windows get focus and decorations
the way they do on a desktop. ``App`` runs ``python -m pidesktop`` in that
display as a subprocess (Qt's xcb platform, not offscreen) with its own home,
XDG folders and data folder under the test's tmp_path. Every wait has a
deadline; ``close()`` kills whatever is still running.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

from tests.support.repo import REPO
from tests.support.waits import wait_for

TOOLS = ("Xvfb", "openbox", "xdotool", "import", "convert")
CARET_PIXELS = 80  # a text caret blinking between two screenshots (2 px by up to 40), and nothing else
SCREEN = (1280, 800)

T = TypeVar("T")


def missing_tools() -> str | None:
    """Why the real-window tests cannot run here, or None."""
    missing = [tool for tool in TOOLS if shutil.which(tool) is None]
    if missing:
        return f"needs {', '.join(missing)} (Debian: apt-get install xvfb openbox xdotool imagemagick x11-utils)"
    return None


class XDisplay:
    """Xvfb + openbox on a display number of their own."""

    def __init__(self, workdir: Path):
        self.workdir = workdir
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.processes: list[subprocess.Popen] = []
        self.display = ""

    def start(self) -> XDisplay:
        read_end, write_end = os.pipe()
        xvfb = subprocess.Popen(
            [
                "Xvfb",
                "-displayfd",
                str(write_end),
                "-screen",
                "0",
                f"{SCREEN[0]}x{SCREEN[1]}x24",
                "-nolisten",
                "tcp",
                "-noreset",
            ],
            pass_fds=(write_end,),
            stdout=subprocess.DEVNULL,
            stderr=open(self.workdir / "xvfb.log", "wb"),
        )
        self.processes.append(xvfb)
        os.close(write_end)
        try:
            number = _read_line(read_end, timeout=15)
        finally:
            os.close(read_end)
        if not number:
            raise AssertionError(f"Xvfb did not report a display number (see {self.workdir / 'xvfb.log'})")
        self.display = f":{number}"
        # The first key xdotool sends comes from the server's XTEST keyboard, and the switch to that device
        # changes the keyboard map: a window manager running then reloads its key bindings, ungrabbing and
        # grabbing them again, and a key arriving in between (Alt+F4) goes to the focused window instead.
        # Sent before openbox starts, that switch is over before it grabs anything.
        self.run("xdotool", "key", "shift")
        wm_log = open(self.workdir / "openbox.log", "wb")
        wm = subprocess.Popen(
            # --debug: what it did with keys and focus, for a failure's report (line by line, so a report
            # made while it runs has it all)
            [*_line_buffered(), "openbox", "--sm-disable", "--debug", "--debug-focus"],
            env=self.env(),
            stdout=wm_log,
            stderr=subprocess.STDOUT,
        )
        self.processes.append(wm)
        wait_for(self._window_manager_is_up, 15, "openbox to manage the display")
        return self

    def env(self, **extra: str) -> dict:
        env = {key: value for key, value in os.environ.items() if not key.startswith(("QT_", "WAYLAND_"))}
        env.pop("XAUTHORITY", None)
        env["DISPLAY"] = self.display
        env.update(extra)
        return env

    def run(self, *args: str, timeout: float = 10, check: bool = True) -> str:
        result = subprocess.run(args, env=self.env(), capture_output=True, text=True, timeout=timeout)
        if check and result.returncode != 0:
            raise AssertionError(f"{' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
        return result.stdout

    def xdotool(self, *args: str, check: bool = True) -> str:
        return self.run("xdotool", *args, check=check)

    def key(self, *keys: str) -> None:
        for key in keys:
            self.xdotool("key", "--clearmodifiers", key)
            time.sleep(0.15)

    def type(self, text: str) -> None:
        self.xdotool("type", "--delay", "30", text)

    def screenshot(self, path: Path) -> Shot:
        """The whole screen as a PNG at ``path`` (to look at) and as pixels (to compare)."""
        self.run("import", "-window", "root", str(path), timeout=30)
        ppm = subprocess.run(["convert", str(path), "ppm:-"], capture_output=True, timeout=30, check=True).stdout
        return Shot.from_ppm(ppm, path)

    def settled_screenshot(self, path: Path, timeout: float = 20) -> Shot:
        """A screenshot once the screen has stopped changing: two in a row alike, but for a caret's blink.

        For a shot others are compared with: after a fixed sleep, a loaded machine can still be painting."""
        last = self.screenshot(path)

        def still() -> Shot | None:
            nonlocal last
            shot, before = self.screenshot(path), last
            last = shot
            return shot if len(shot.changed(before, (0, 0, shot.width, shot.height))) <= CARET_PIXELS else None

        return wait_for(still, timeout, f"the screen to settle for {path.name}", every=0.05)

    def xcb_problem(self) -> str | None:
        """Why Qt's xcb platform cannot open a window on this display, or None."""
        probe = subprocess.run(
            [sys.executable, "-c", "from PySide6.QtGui import QGuiApplication; QGuiApplication(['probe'])"],
            env=self.env(QT_QPA_PLATFORM="xcb"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        if probe.returncode == 0:
            return None
        return probe.stderr.strip()[-400:] or f"exit status {probe.returncode}"

    def clipboard_text(self) -> str:
        """What the display's clipboard holds as text (read by a Qt client of its own, as a paste would)."""
        probe = subprocess.run(
            [
                sys.executable,
                "-c",
                "import sys; from PySide6.QtGui import QGuiApplication; app = QGuiApplication(['probe']); "
                "sys.stdout.write(app.clipboard().text())",
            ],
            env=self.env(QT_QPA_PLATFORM="xcb"),
            capture_output=True,
            text=True,
            timeout=60,
        )
        return probe.stdout

    def active_window(self) -> str:
        return self.xdotool("getactivewindow", check=False).strip()

    def window_name(self, window: str) -> str:
        return self.xdotool("getwindowname", window, check=False).strip()

    def visible_windows(self, pid: int) -> list[str]:
        return self.xdotool("search", "--onlyvisible", "--pid", str(pid), check=False).split()

    def windows_named(self, pid: int) -> str:
        """The process's visible windows as "id 'name'", for a failure's report."""
        return ", ".join(f"{window} {self.window_name(window)!r}" for window in self.visible_windows(pid)) or "none"

    def geometry(self, window: str) -> tuple[int, int, int, int]:
        """x, y, width, height of ``window`` on the screen."""
        values = dict(
            line.split("=", 1) for line in self.xdotool("getwindowgeometry", "--shell", window).split() if "=" in line
        )
        return int(values["X"]), int(values["Y"]), int(values["WIDTH"]), int(values["HEIGHT"])

    def report(self) -> str:
        """What a failure needs to know of the display: whether Xvfb and openbox still run, which window is
        active, and what openbox wrote."""
        lines = []
        for name, process in zip(("Xvfb", "openbox"), self.processes):
            state = "running" if process.poll() is None else f"exited ({process.returncode})"
            lines.append(f"{name} (process {process.pid}): {state}")
        if self.processes and self.processes[0].poll() is None:
            lines.append(f"active window: {self.active_window() or 'none'}")
        wm_log = self.workdir / "openbox.log"
        if wm_log.exists():  # openbox runs with --debug: its last lines say what it did with keys and focus
            tail = wm_log.read_text(errors="replace").strip().splitlines()[-40:]
            lines.append("openbox.log, its last lines:\n" + ("\n".join(tail) or "(empty)"))
        return "\n".join(lines)

    def close(self) -> None:
        for process in reversed(self.processes):
            _stop(process)
        self.processes.clear()

    def _window_manager_is_up(self) -> bool:
        if any(process.poll() is not None for process in self.processes):
            raise AssertionError(f"Xvfb or openbox exited early (see the logs in {self.workdir})")
        check = (
            subprocess.run(
                ["xprop", "-root", "_NET_SUPPORTING_WM_CHECK"], env=self.env(), capture_output=True, text=True
            )
            if shutil.which("xprop")
            else None
        )
        if check is None:  # no xprop: give openbox a moment
            time.sleep(1.0)
            return True
        return "window id" in check.stdout


class Shot:
    """A screenshot's pixels (RGB), to find what changed between two of them."""

    def __init__(self, width: int, height: int, rgb: bytes, path: Path):
        self.width, self.height, self.rgb, self.path = width, height, rgb, path

    @classmethod
    def from_ppm(cls, ppm: bytes, path: Path) -> Shot:
        fields, offset = [], 0
        while len(fields) < 4:  # magic, width, height, maxval; "#" comments are not written by convert
            while ppm[offset : offset + 1].isspace():
                offset += 1
            end = offset
            while not ppm[end : end + 1].isspace():
                end += 1
            fields.append(ppm[offset:end])
            offset = end
        assert fields[0] == b"P6" and fields[3] == b"255", fields
        width, height = int(fields[1]), int(fields[2])
        return cls(width, height, ppm[offset + 1 : offset + 1 + width * height * 3], path)

    def changed(self, other: Shot, box: tuple[int, int, int, int]) -> list[tuple[int, int]]:
        """The (x, y) in ``box`` (left, top, right, bottom) whose colour differs between the two shots."""
        left, top, right, bottom = box
        points = []
        for y in range(top, bottom):
            start, end = (y * self.width + left) * 3, (y * self.width + right) * 3
            mine, theirs = self.rgb[start:end], other.rgb[start:end]
            if mine == theirs:
                continue
            points += [(left + i // 3, y) for i in range(0, end - start, 3) if mine[i : i + 3] != theirs[i : i + 3]]
        return points


def column_groups(points: list[tuple[int, int]], gap: int = 6) -> list[tuple[int, int, int, int]]:
    """``points`` split where no point lies in ``gap`` or more adjacent columns: (left, top, right, bottom) each."""
    groups: list[list[tuple[int, int]]] = []
    for point in sorted(points):
        if groups and point[0] - groups[-1][-1][0] < gap:
            groups[-1].append(point)
        else:
            groups.append([point])
    return [(group[0][0], min(y for _, y in group), group[-1][0], max(y for _, y in group)) for group in groups]


class App:
    """``python -m pidesktop`` in an ``XDisplay``, with a home and a data folder of its own.

    With ``program`` (an installed pidesktop, e.g. ``/usr/bin/pidesktop``), that runs instead, in a clean
    environment (the display, the home and XDG folders, ``PATH=/usr/bin:/bin``; nothing of this checkout or
    its Python) on its default data folder, ``~/.pi-desktop`` in the scratch home.
    """

    def __init__(self, display: XDisplay, root: Path, *args: str, program: tuple[str, ...] | None = None):
        self.display = display
        self.root = root
        self.home = root / "home"
        self.data = root / "data" if program is None else self.home / ".pi-desktop"
        for folder in (
            self.home,
            self.home / ".config",
            self.home / ".cache",
            self.home / ".local/share",
            root / "runtime",
        ):
            folder.mkdir(parents=True, exist_ok=True)
        os.chmod(root / "runtime", 0o700)
        self.stdout_path = root / "app.stdout"
        self.stderr_path = root / "app.stderr"
        env = display.env(
            HOME=str(self.home),
            XDG_CONFIG_HOME=str(self.home / ".config"),
            XDG_CACHE_HOME=str(self.home / ".cache"),
            XDG_DATA_HOME=str(self.home / ".local/share"),
            XDG_RUNTIME_DIR=str(root / "runtime"),
            PYTHONPATH=str(REPO),
            LANG="C.UTF-8",
            LC_ALL="C.UTF-8",
            LANGUAGE="en",
            PYTHONFAULTHANDLER="1",
        )
        env.pop("PI_DESKTOP_DATA_DIR", None)
        env.pop("DBUS_SESSION_BUS_ADDRESS", None)
        command = [sys.executable, "-m", "pidesktop", "--data-dir", str(self.data), *args]
        if program is not None:
            kept = ("DISPLAY", "HOME", "LANG", "LC_ALL", "LANGUAGE")
            env = {key: value for key, value in env.items() if key in kept or key.startswith("XDG_")}
            env["PATH"] = "/usr/bin:/bin"
            command = [*program, *args]
        self.process = subprocess.Popen(
            command,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=open(self.stdout_path, "wb"),
            stderr=open(self.stderr_path, "wb"),
            start_new_session=True,
        )
        self.window = ""

    @property
    def stderr(self) -> str:
        return self.stderr_path.read_text(errors="replace")

    def wait_for_window(self, timeout: float = 60) -> str:
        def shown() -> str | None:
            if self.process.poll() is not None:
                raise AssertionError(
                    f"pidesktop exited ({self.process.returncode}) before showing a window:\n{self.stderr}"
                )
            for window in self.display.visible_windows(self.process.pid):
                name = self.display.window_name(window)
                if name == "pidesktop" or name.endswith(" — pidesktop"):  # named after the chat it shows
                    return window
            return None

        self.window = wait_for(shown, timeout, "the pidesktop window")
        return self.window

    def focus(self) -> None:
        """Make the main window the active one, as a click on its title bar would."""
        self.display.xdotool("windowactivate", "--sync", self.window, check=False)
        wait_for(lambda: self.display.active_window() == self.window, 10, "the main window to be active")

    def wait(self, timeout: float = 30, again: Callable[[], None] | None = None) -> int:
        """The app's exit status within ``timeout`` s. When it is still running: ``again`` (the same request
        made a second time), to tell a request that never arrived from an app that cannot quit, then its
        stacks, its log and the display's state, in the failure."""
        try:
            return self.process.wait(timeout)
        except subprocess.TimeoutExpired:
            pass
        display = self.display.report()  # as it was when the first request had not worked
        second = ""
        if again is not None:
            windows = self.display.visible_windows(self.process.pid)
            again()
            try:
                second = f"asked a second time (its windows then: {windows}), it exited ({self.process.wait(10)})\n"
            except subprocess.TimeoutExpired:
                second = f"asked a second time (its windows then: {windows}), it still ran 10 s later\n"
        if self.process.poll() is None:
            # Where it is stuck: SIGABRT makes faulthandler (PYTHONFAULTHANDLER=1) print every thread's stack on
            # stderr; the app's own log says how far its start and its quit got.
            os.kill(self.process.pid, signal.SIGABRT)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(10)
        raise AssertionError(
            f"pidesktop did not exit within {timeout:g} s:\n{second}{self.stderr}\n"
            f"its log:\n{self.log_messages()}\nthe display:\n{display}"
        )

    def log_messages(self) -> str:
        lines = []
        for log in sorted((self.data / "logs").rglob("*.ndjson")):
            lines += log.read_text(errors="replace").splitlines()
        return "\n".join(sorted(lines))  # each line starts with its time stamp

    def close(self) -> None:
        _stop(self.process, group=True)


def _line_buffered() -> list[str]:
    return ["stdbuf", "-oL", "-eL"] if shutil.which("stdbuf") else []


def _read_line(fd: int, timeout: float) -> str:
    import select

    data = b""
    deadline = time.monotonic() + timeout
    while not data.endswith(b"\n") and time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
        if not ready:
            break
        piece = os.read(fd, 64)
        if not piece:
            break
        data += piece
    return data.decode().strip()


def _stop(process: subprocess.Popen, group: bool = False) -> None:
    if process.poll() is not None:
        return
    try:
        if group:
            os.killpg(process.pid, signal.SIGTERM)
        else:
            process.terminate()
        process.wait(5)
    except (subprocess.TimeoutExpired, ProcessLookupError, PermissionError):
        try:
            os.killpg(process.pid, signal.SIGKILL) if group else process.kill()
        except (ProcessLookupError, PermissionError):
            pass
        process.wait(5)
