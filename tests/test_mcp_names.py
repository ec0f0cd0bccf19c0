"""Property tests for the names MCP tools and imported servers get: always valid, never colliding."""

import re

from hypothesis import given
from hypothesis import strategies as st

from pidesktop.agent.mcp import names
from pidesktop.commands.mcp_cli import split_command
from pidesktop.host.mcp import config

VALID = re.compile(r"^[A-Za-z0-9_-]{1,64}$")
servers = st.from_regex(config.NAME_RE, fullmatch=True)


@given(servers, st.text(min_size=1, max_size=200))
def test_a_model_name_is_always_a_valid_function_name(server, tool):
    name = names.model_name(server, tool)
    assert VALID.match(name) and name.startswith(f"mcp__{server}__"[: len(name)])


@given(servers, st.text(min_size=1, max_size=100), st.text(min_size=1, max_size=100))
def test_two_tools_of_one_server_never_share_a_name(server, first, second):
    if first != second:
        assert names.model_name(server, first) != names.model_name(server, second)


@given(servers, st.from_regex(r"[A-Za-z0-9_-]{1,20}", fullmatch=True))
def test_the_forced_hash_differs_from_a_plain_name(server, tool):
    plain = names.model_name(server, tool)
    hashed = names.model_name(server, tool, hashed=True)
    assert VALID.match(hashed) and (hashed != plain or len(f"mcp__{server}__{tool}") > 64)


@given(st.text(max_size=100))
def test_an_imported_name_is_always_a_valid_server_name(raw):
    assert config.NAME_RE.match(config.import_name(raw))


@given(st.lists(st.text(min_size=1, max_size=10), max_size=8), st.lists(st.text(max_size=10), max_size=8))
def test_the_server_command_after_dashes_is_kept_whole(options, command):
    argv = ["mcp", "add", "name", *[o for o in options if o != "--"], "--", *command]
    head, tail = split_command(argv)
    assert tail == command and head == argv[: len(argv) - len(command) - 1]
