"""``settings.get`` / ``settings.set``: the ``kv(app, settings)`` blob.

Reads normalise (spec 004, sections 4.1 and 7): ``largePasteThreshold`` falls
back to 600 when missing, malformed or out of range; ``showThinking`` falls
back to the legacy ``thinkingDisplayMode``; ``transcriptDisplayMode`` falls
back to ``fully-folded``. ``permissionMode`` (ask, accept-edits, auto; default
ask) is what a chat set to ``inherit`` uses for its tool calls;
``sandboxNetwork`` (default true) lets ``bash`` reach the network inside the
sandbox. ``auditRetentionDays`` (1..3650, default 90) is how long the start-up
pass keeps ``audit_log`` rows (spec 004, RT.1). ``networkProxy`` (``{mode: system|direct|custom, url?, bypass?}``,
``pidesktop/network_proxy.py``) is kept as stored; absent means system. Writes are validated, so a bad value is refused
rather than stored. Keys this build does not know are kept as they are.
"""

from __future__ import annotations

from typing import Any, TypeGuard

from pidesktop import network_proxy
from pidesktop.bus import topics
from pidesktop.host import kv
from pidesktop.host.commands import command
from pidesktop.host.context import HostContext
from pidesktop.host.params import Params, invalid

NS, KEY = "app", "settings"
PASTE_DEFAULT, PASTE_MIN, PASTE_MAX = 600, 1, 1_000_000
DISPLAY_MODES = ("flat", "command-first", "fully-folded")
THEMES = ("system", "light", "dark")
LANGUAGES = ("system", "en", "zh_CN")
COMPACT_AT_DEFAULT, COMPACT_AT_MIN, COMPACT_AT_MAX = 0.8, 0.5, 0.95  # share of the context window
PERMISSION_MODES = ("ask", "accept-edits", "auto")  # the default for chats set to "inherit"
AUDIT_DAYS_DEFAULT, AUDIT_DAYS_MIN, AUDIT_DAYS_MAX = 90, 1, 3650  # how long the tool log keeps a row


def read(ctx: HostContext) -> dict[str, Any]:
    stored = kv.get(ctx.conn, NS, KEY, {})
    return normalise(stored if isinstance(stored, dict) else {})


def normalise(stored: dict[str, Any]) -> dict[str, Any]:
    settings = dict(stored)
    paste = stored.get("largePasteThreshold")
    if not _is_int(paste) or not PASTE_MIN <= paste <= PASTE_MAX:
        settings["largePasteThreshold"] = PASTE_DEFAULT
    if not isinstance(stored.get("showThinking"), bool):
        settings["showThinking"] = stored.get("thinkingDisplayMode") != "compact"
    if stored.get("transcriptDisplayMode") not in DISPLAY_MODES:
        settings["transcriptDisplayMode"] = "fully-folded"
    if stored.get("theme") not in THEMES:
        settings["theme"] = "system"
    if stored.get("language") not in LANGUAGES:
        settings["language"] = "system"
    if not _is_share(stored.get("compactAt")):
        settings["compactAt"] = COMPACT_AT_DEFAULT
    if stored.get("permissionMode") not in PERMISSION_MODES:
        settings["permissionMode"] = "ask"
    if not isinstance(stored.get("sandboxNetwork"), bool):
        settings["sandboxNetwork"] = True
    days = stored.get("auditRetentionDays")
    if not _is_int(days) or not AUDIT_DAYS_MIN <= days <= AUDIT_DAYS_MAX:
        settings["auditRetentionDays"] = AUDIT_DAYS_DEFAULT
    return settings


def validate_patch(patch: dict[str, Any]) -> None:
    checks: dict[str, tuple[str, Any]] = {
        "largePasteThreshold": (
            f"an integer from {PASTE_MIN} to {PASTE_MAX}",
            lambda v: _is_int(v) and PASTE_MIN <= v <= PASTE_MAX,
        ),
        "showThinking": ("true or false", lambda v: isinstance(v, bool)),
        "transcriptDisplayMode": ("one of " + ", ".join(DISPLAY_MODES), lambda v: v in DISPLAY_MODES),
        "theme": ("one of " + ", ".join(THEMES), lambda v: v in THEMES),
        "language": ("one of " + ", ".join(LANGUAGES), lambda v: v in LANGUAGES),
        "compactAt": (f"a number from {COMPACT_AT_MIN} to {COMPACT_AT_MAX}", _is_share),
        "permissionMode": ("one of " + ", ".join(PERMISSION_MODES), lambda v: v in PERMISSION_MODES),
        "sandboxNetwork": ("true or false", lambda v: isinstance(v, bool)),
        "auditRetentionDays": (
            f"a whole number of days from {AUDIT_DAYS_MIN} to {AUDIT_DAYS_MAX}",
            lambda v: _is_int(v) and AUDIT_DAYS_MIN <= v <= AUDIT_DAYS_MAX,
        ),
    }
    proxy = patch.get("networkProxy")
    if proxy is not None:
        problem = network_proxy.setting_problem(proxy)
        if problem is not None:
            raise invalid(f"settings.set: patch.networkProxy must be {problem}; got {proxy!r}.", "patch.networkProxy")
    for key, value in patch.items():
        if value is None or key not in checks:
            continue
        expected, ok = checks[key]
        if not ok(value):
            raise invalid(f"settings.set: patch.{key} must be {expected}; got {value!r}.", f"patch.{key}")


@command("settings.get", emits=[])
def settings_get(ctx: HostContext, p: Params) -> dict[str, Any]:
    return {"settings": read(ctx)}


@command("settings.set", emits=[topics.SETTINGS_CHANGED])
def settings_set(ctx: HostContext, p: Params) -> dict[str, Any]:
    patch = p.obj("patch")
    validate_patch(patch)
    with ctx.conn:
        stored = kv.get(ctx.conn, NS, KEY, {})
        merged = dict(stored) if isinstance(stored, dict) else {}
        for key, value in patch.items():
            if value is None:
                merged.pop(key, None)  # null removes a key
            else:
                merged[key] = value
        kv.put(ctx.conn, NS, KEY, merged, ctx.clock())
    settings = normalise(merged)
    ctx.emit(topics.SETTINGS_CHANGED, {"settings": settings, "keys": sorted(patch)})
    return {"settings": settings}


def _is_share(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool) and COMPACT_AT_MIN <= value <= COMPACT_AT_MAX


def _is_int(value: Any) -> TypeGuard[int]:
    return isinstance(value, int) and not isinstance(value, bool)
