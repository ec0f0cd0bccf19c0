"""The command bus: the only way the UI and the agent reach the host.

A command is ``(method, params)``; its reply is a result dict or a
``HostError``. Events flow the other way as ``(topic, payload)``.
"""

from .errors import ErrorCode, HostError
from .inprocess import HostClient, HostThread

__all__ = ["ErrorCode", "HostError", "HostClient", "HostThread"]
