"""The names of the host's events (``(topic, payload)`` on the bus), one constant each.

The host emits them; the window and the agent runtime may import this module
to subscribe (it sits in the bus, below both). ``docs/rpc.md`` describes each
payload beside the commands that cause it, and every command declares the
events it emits (``@command(name, emits=...)``).
"""

from __future__ import annotations

SESSION_CHANGED = "session.changed"
SESSION_LIST_CHANGED = "session.listChanged"
TURN_CHANGED = "turn.changed"
QUEUE_CHANGED = "queue.changed"
NOTIFICATION_CHANGED = "notification.changed"
NOTIFICATION_CREATED = "notification.created"
SETTINGS_CHANGED = "settings.changed"
WORKSPACE_CHANGED = "workspace.changed"
PROJECTS_CHANGED = "projects.changed"
PROVIDERS_CHANGED = "providers.changed"
MODELS_CHANGED = "models.changed"
MCP_CHANGED = "mcp.changed"
REVIEW_CHANGED = "review.changed"
PLAN_CHANGED = "plan.changed"
TASKS_CHANGED = "tasks.changed"
SYNC_APPLIED = "sync.applied"
DATA_PROGRESS = "data.progress"
DATA_FINISHED = "data.finished"
DATA_DAILY_BACKUP = "data.dailyBackup"
PERMISSIONS_CHANGED = "permissions.changed"
DATA_REPAIRED = "data.repaired"
INDEX_PROGRESS = "index.progress"

ALL = frozenset(value for name, value in dict(globals()).items() if name.isupper() and isinstance(value, str))
