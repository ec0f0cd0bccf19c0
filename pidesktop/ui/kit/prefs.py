"""Front-end preferences: window geometry and sidebar organisation (spec 004, 4.1 D093).

One JSON file, ``<ui root>/preferences.json``, written by the UI thread,
best-effort and never authoritative: a missing, malformed or unwritable file
falls back to defaults and never blocks or changes anything the host owns
(projects, sessions, transcripts).
"""

from __future__ import annotations

import copy
import logging
import os
from pathlib import Path
from typing import Any

from pidesktop import small_json

log = logging.getLogger("pidesktop.ui.kit.prefs")

FILE_NAME = "preferences.json"
SORTS = ("recent", "created", "oldest", "name", "manual")
SESSION_SORTS = ("recent", "created", "oldest", "name")
# Kept when another client stored them, never offered or used here (spec 004, SP.4): a session's manual
# ``order`` and a ``manual`` session sort, which this sidebar shows as "recent".
SESSION_SORTS_KEPT = (*SESSION_SORTS, "manual")

DEFAULTS: dict[str, Any] = {
    "window": {},
    "sidebar": {
        "sessionMeta": {},
        "projectMeta": {},
        "projectSort": "recent",
        "sessionView": {"sort": "recent", "archived": False, "native": True},  # native: show pi sessions
        "openProjectPaths": [],
    },
}


def normalise(raw: Any) -> dict:
    """Keep what is well formed, drop the rest; never raises."""
    prefs = copy.deepcopy(DEFAULTS)
    if not isinstance(raw, dict):
        return prefs
    if isinstance(raw.get("window"), dict):
        prefs["window"] = {k: v for k, v in raw["window"].items() if isinstance(v, (str, int, list))}
    sidebar = raw.get("sidebar")
    if not isinstance(sidebar, dict):
        return prefs
    out = prefs["sidebar"]
    out["sessionMeta"] = {
        key: {
            k: v
            for k, v in meta.items()
            if (k in ("pinned", "archived") and isinstance(v, bool))
            or (k == "order" and isinstance(v, int) and not isinstance(v, bool))
        }
        for key, meta in _dict(sidebar.get("sessionMeta")).items()
        if isinstance(meta, dict)
    }
    projects: dict[str, dict] = {}
    for path, meta in _dict(sidebar.get("projectMeta")).items():
        if not isinstance(meta, dict):
            continue
        key = normalise_path(path)
        if not key or key in projects:  # slash variants of one path: keep the first
            continue
        projects[key] = {
            k: v
            for k, v in meta.items()
            if (k in ("pinned", "archived", "collapsed") and isinstance(v, bool))
            or (k == "order" and isinstance(v, int) and not isinstance(v, bool))
        }
    out["projectMeta"] = projects
    if sidebar.get("projectSort") in SORTS:
        out["projectSort"] = sidebar["projectSort"]
    view = _dict(sidebar.get("sessionView"))
    if view.get("sort") in SESSION_SORTS_KEPT:
        out["sessionView"]["sort"] = view["sort"]
    if isinstance(view.get("archived"), bool):
        out["sessionView"]["archived"] = view["archived"]
    if isinstance(view.get("native"), bool):
        out["sessionView"]["native"] = view["native"]
    seen: list[str] = []
    for path in sidebar.get("openProjectPaths") or []:
        key = normalise_path(path) if isinstance(path, str) else ""
        if key and key not in seen:
            seen.append(key)
    out["openProjectPaths"] = seen
    return prefs


def normalise_path(path: Any) -> str:
    if not isinstance(path, str):
        return ""
    value = path.strip().replace("\\", "/")
    while len(value) > 1 and value.endswith("/") and not value.endswith(":/"):
        value = value[:-1]
    return value


def _dict(value: Any) -> dict:
    return value if isinstance(value, dict) else {}


class Preferences:
    """Load once, change in memory, save atomically (best-effort)."""

    def __init__(self, folder: Path | None):
        self.path = folder / FILE_NAME if folder is not None else None
        self.data = self._load()

    def _load(self) -> dict:
        if self.path is None:
            return normalise(None)
        try:
            return normalise(small_json.loads(self.path.read_bytes()))
        except FileNotFoundError:
            return normalise(None)
        except (OSError, small_json.DecodeError) as exc:
            log.warning("ignoring unreadable preferences %s: %s", self.path, exc)
            return normalise(None)

    @property
    def sidebar(self) -> dict:
        return self.data["sidebar"]

    def session_meta(self, session_id: str) -> dict:
        return self.sidebar["sessionMeta"].get(session_id, {})

    def project_meta(self, path: str | None) -> dict:
        return self.sidebar["projectMeta"].get(normalise_path(path), {}) if path else {}

    def set_session_flag(self, session_id: str, flag: str, value: bool) -> None:
        meta = self.sidebar["sessionMeta"].setdefault(session_id, {})
        if value:
            meta[flag] = True
        else:
            meta.pop(flag, None)
        if not meta:
            del self.sidebar["sessionMeta"][session_id]
        self.save()

    def set_project_flag(self, path: str, flag: str, value: bool) -> None:
        key = normalise_path(path)
        meta = self.sidebar["projectMeta"].setdefault(key, {})
        if value:
            meta[flag] = True
        else:
            meta.pop(flag, None)
        if not meta:
            del self.sidebar["projectMeta"][key]
        self.save()

    def set_project_order(self, paths: list[str]) -> None:
        """Contiguous manual order for the visible projects (drag or Alt+Up/Down)."""
        for number, path in enumerate(paths):
            self.sidebar["projectMeta"].setdefault(normalise_path(path), {})["order"] = number
        self.sidebar["projectSort"] = "manual"
        self.save()

    def forget_session(self, session_id: str) -> None:
        if self.sidebar["sessionMeta"].pop(session_id, None) is not None:
            self.save()

    def save(self) -> None:
        if self.path is None:
            return
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            tmp = self.path.with_name(self.path.name + ".tmp")
            tmp.write_bytes(small_json.dumps(self.data, indent=True))
            os.replace(tmp, self.path)
        except OSError as exc:  # presentation state only: never block the user on it
            log.warning("could not save preferences to %s: %s", self.path, exc)
