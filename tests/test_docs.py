"""docs/rpc.md documents every command the host serves."""

import re

from pidesktop.host import commands, handlers  # noqa: F401 - registers every command
from tests.support.repo import REPO


def test_every_command_is_documented():
    doc = (REPO / "docs" / "rpc.md").read_text(encoding="utf-8")
    missing = [name for name in commands.names() if not re.search(rf"(?<![\w.]){re.escape(name)}(?![\w])", doc)]
    assert missing == [], f"add these commands to docs/rpc.md: {missing}"
    assert len(commands.names()) >= 40
