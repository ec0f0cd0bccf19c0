"""What a settings-sync conflict was about, in words (the host names it by its sync key).

Keys are ``setting/<name>``, ``provider/<id>``, ``provider-key/<id>``, ``model/<provider>/<model>``,
``automation/<id>`` and ``kv/<namespace>/<key>`` (``host/data/sync_items.py``). A person reads the
setting's label as Settings shows it, or the provider, model, project or server by name; a key of a
kind this window does not know is still shown, as "a synced item", so nothing is hidden.
"""

from __future__ import annotations

from PySide6.QtCore import QT_TRANSLATE_NOOP, QCoreApplication

from pidesktop.ui.kit.i18n import arg

CONTEXT = "SyncConflicts"

# The labels Settings > General shows for each app setting.
SETTING_LABELS = {
    "theme": QT_TRANSLATE_NOOP("SyncConflicts", "Theme"),
    "language": QT_TRANSLATE_NOOP("SyncConflicts", "Language"),
    "showThinking": QT_TRANSLATE_NOOP("SyncConflicts", "Show thinking"),
    "transcriptDisplayMode": QT_TRANSLATE_NOOP("SyncConflicts", "Transcript"),
    "largePasteThreshold": QT_TRANSLATE_NOOP("SyncConflicts", "Large paste threshold"),
    "permissionMode": QT_TRANSLATE_NOOP("SyncConflicts", "Agent permissions"),
    "sandboxNetwork": QT_TRANSLATE_NOOP("SyncConflicts", "Commands may use the network"),
    "auditRetentionDays": QT_TRANSLATE_NOOP("SyncConflicts", "Keep the tool log"),
    "networkProxy": QT_TRANSLATE_NOOP("SyncConflicts", "Network proxy"),
    "compactAt": QT_TRANSLATE_NOOP("SyncConflicts", "Compact the context at"),
}

# kv namespaces: what one key of each is.
NAMESPACE_LABELS = {
    "modelPrice": QT_TRANSLATE_NOOP("SyncConflicts", "the price of the model %1"),
    "projectMemory": QT_TRANSLATE_NOOP("SyncConflicts", "the memory of the project %1"),
    "projectGroups": QT_TRANSLATE_NOOP("SyncConflicts", "the project group %1"),
    "projectGroupMemory": QT_TRANSLATE_NOOP("SyncConflicts", "the memory of the project group %1"),
    "projectGroupInstructions": QT_TRANSLATE_NOOP("SyncConflicts", "the instructions of the project group %1"),
    "mcpServers": QT_TRANSLATE_NOOP("SyncConflicts", "the MCP server %1"),
}


def _tr(text: object) -> str:
    """``QT_TRANSLATE_NOOP`` marks a text for the catalogue (typed ``object``); this translates it."""
    return QCoreApplication.translate(CONTEXT, str(text))


def _quoted(name: str) -> str:
    return f"“{name}”"


def _name(conflict: dict, field: str, fallback: str) -> str:
    """The thing's own name from either side's value (the kept one first), else ``fallback``."""
    sides = ("local", "remote") if conflict.get("kept") == "local" else ("remote", "local")
    for side in sides:
        value = conflict.get(side)
        if isinstance(value, dict) and isinstance(value.get(field), str) and value[field].strip():
            return value[field]
    return fallback


def conflict_subject(conflict: dict) -> str:
    """What a conflict (``sync.status``'s ``lastRun.conflicts[]``) was about, as a phrase for "Changed on two
    computers: <phrase>"."""
    key = str(conflict.get("key", ""))
    kind, _, rest = key.partition("/")
    if kind == "setting" and rest:
        label = SETTING_LABELS.get(rest)
        return arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "the setting %1")), _quoted(_tr(label) if label else rest))
    if kind == "provider" and rest:
        return arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "the provider %1")), _quoted(_name(conflict, "name", rest)))
    if kind == "provider-key" and rest:
        return arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "the API key of the provider %1")), _quoted(rest))
    if kind == "model" and "/" in rest:
        provider, _, model = rest.partition("/")
        model = _name(conflict, "display_name", model)
        return arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "the model %1 of %2")), _quoted(model), _quoted(provider))
    if kind == "automation" and rest:
        title = _name(conflict, "title", "")
        return (
            arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "the automation %1")), _quoted(title))
            if title
            else _tr(QT_TRANSLATE_NOOP("SyncConflicts", "an automation"))
        )
    if kind == "kv" and "/" in rest:
        namespace, _, name = rest.partition("/")
        phrase = NAMESPACE_LABELS.get(namespace)
        if phrase:
            return arg(_tr(phrase), _quoted(name))
        if namespace == "app":
            return _tr(QT_TRANSLATE_NOOP("SyncConflicts", "the provider order or default model"))
    return arg(_tr(QT_TRANSLATE_NOOP("SyncConflicts", "a synced item (%1)")), key)
