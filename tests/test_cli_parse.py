"""The command line: a window's start is read by its own options; commands, help and mistakes by the whole parser."""

import subprocess
import sys

import pytest

from pidesktop.commands import cli
from tests.support.repo import REPO


def test_a_window_start_is_read_by_its_own_options():
    args = cli.parse(["--data-dir", "/tmp/somewhere", "--theme", "dark"])
    assert (args.command, args.data_dir, args.theme, args.mcp_command) == (None, "/tmp/somewhere", "dark", [])


def test_a_command_is_read_by_the_whole_parser():
    assert cli.parse(["data", "status"]).command == "data"
    args = cli.parse(["mcp", "add", "files", "--", "npx", "-y", "server"])
    assert (args.command, args.mcp_command) == ("mcp", ["npx", "-y", "server"])


def test_an_option_value_that_is_a_command_word_is_still_an_option_value():
    args = cli.parse(["--data-dir", "data"])
    assert (args.command, args.data_dir) == (None, "data")


@pytest.mark.parametrize(
    "argv, said",
    [
        (["frobnicate"], "invalid choice: 'frobnicate' (choose from 'host', 'chat'"),
        (["--theme", "purple"], "argument --theme: invalid choice: 'purple'"),
        (["--no-such-option"], "unrecognized arguments: --no-such-option"),
    ],
)
def test_a_mistake_is_named_as_the_whole_parser_names_it(argv, said, capsys):
    with pytest.raises(SystemExit) as exited:
        cli.parse(argv)
    assert exited.value.code == 2
    assert said in capsys.readouterr().err


def test_help_lists_the_commands(capsys):
    with pytest.raises(SystemExit):
        cli.parse(["--help"])
    assert "{host,chat,export,data,automations,import,mcp,sync}" in capsys.readouterr().out


def test_reading_a_window_start_imports_no_command_module():
    probe = (
        "import sys; from pidesktop.commands import cli; cli.parse(['--data-dir', 'x']); "
        "print(sorted(m for m in sys.modules if m.startswith('pidesktop.commands.') and m != 'pidesktop.commands.cli'))"
    )
    out = subprocess.run([sys.executable, "-c", probe], cwd=REPO, capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"
