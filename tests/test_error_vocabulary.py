"""One vocabulary of error codes: every code the app raises is an ``ErrorCode``, and every one has its sentence.

The source is read, not run: a ``HostError``/``ProviderError`` made with a
bare string, an ``ErrorCode.X`` that is not a member, a member nothing
produces, or a sentence for a code that is not a member fails here.
"""

import ast
import re
from pathlib import Path

import pytest

from pidesktop.bus import ErrorCode, HostError
from tests.support.repo import REPO

PACKAGE = REPO / "pidesktop"
# Where the codes are declared and where their sentences are: naming a code there is not producing it.
VOCABULARY = {PACKAGE / "bus" / "errors.py", PACKAGE / "ui" / "kit" / "plain_errors.py"}
ERROR_TYPES = {"HostError", "ProviderError"}


def _sources() -> list[tuple[Path, ast.Module]]:
    return [(path, ast.parse(path.read_text(encoding="utf-8"), str(path))) for path in sorted(PACKAGE.rglob("*.py"))]


def _called_name(call: ast.Call) -> str | None:
    func = call.func
    return func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else None


def _code_names(tree: ast.Module) -> list[tuple[int, str]]:
    return [
        (node.lineno, node.attr)
        for node in ast.walk(tree)
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "ErrorCode"
    ]


def _string_constants(tree: ast.Module) -> set[str]:
    """Module-level names bound to a string: a code kept beside the vocabulary."""
    return {
        target.id
        for node in tree.body
        if isinstance(node, ast.Assign) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)
        for target in node.targets
        if isinstance(target, ast.Name)
    }


def test_every_error_is_made_with_a_code_of_the_vocabulary():
    offences = []
    for path, tree in _sources():
        where = path.relative_to(REPO)
        constants = _string_constants(tree)
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and _called_name(node) in ERROR_TYPES and node.args:
                code = node.args[0]
                if isinstance(code, (ast.Constant, ast.JoinedStr)) or (
                    isinstance(code, ast.Name) and code.id in constants
                ):
                    offences.append(f"{where}:{node.lineno}: {_called_name(node)}({ast.unparse(code)}, ...)")
        offences += [
            f"{where}:{line}: ErrorCode.{name} is not a member"
            for line, name in _code_names(tree)
            if name not in ErrorCode.__members__
        ]
    assert offences == [], "errors must be made with an ErrorCode member:\n" + "\n".join(offences)


def test_every_code_is_produced_somewhere():
    assert all(path.is_file() for path in VOCABULARY), "a vocabulary file moved: naming a code there would count"
    used = {name for path, tree in _sources() if path not in VOCABULARY for _, name in _code_names(tree)}
    assert set(ErrorCode.__members__) - used == set(), "codes nothing produces or reads: remove them"


def test_every_code_has_a_sentence_and_every_sentence_a_code(qapp):
    from pidesktop.ui.kit.plain_errors import SENTENCES

    assert set(SENTENCES) == {code.value for code in ErrorCode}
    assert all(text.strip() and "_" not in text for text in SENTENCES.values())


@pytest.mark.parametrize(
    ("data", "start"),
    [
        ({"sessionId": "native-pi:x", "native": True}, "This is a pi session"),
        ({"reason": "[Errno 13] Permission denied"}, "Your data folder refused the change"),
        ({"ownerPluginId": "acme"}, "That isn’t allowed here"),
        ({}, "That isn’t allowed here"),
    ],
)
def test_a_refusal_reads_as_where_it_came_from(qapp, data, start):
    from pidesktop.ui.kit.plain_errors import sentence

    assert sentence(HostError(ErrorCode.PERMISSION_DENIED, "refused", data)).startswith(start)


def test_a_chat_whose_reply_runs_reads_as_waiting_for_it_not_as_a_change_elsewhere(qapp):
    from pidesktop.agent.runner import reply_running
    from pidesktop.ui.kit.plain_errors import SENTENCES, sentence

    said = sentence(reply_running())
    assert said.startswith("A reply is still running in this chat") and said != SENTENCES[ErrorCode.CONFLICT]
    assert sentence(HostError(ErrorCode.CONFLICT, "busy", {})) == SENTENCES[ErrorCode.CONFLICT]


@pytest.mark.parametrize(
    ("cause", "start"),
    [
        ("readOnly", "Your data folder is on a read-only disk"),
        ("permission", "pidesktop may not write to your data folder"),
        ("full", "The disk of your data folder is full"),
        (None, "Your data folder can’t be reached right now"),
    ],
)
def test_a_data_folder_that_cannot_be_used_reads_as_what_to_do_about_it(qapp, cause, start):
    from pidesktop.ui.kit.plain_errors import sentence

    data = {"reason": "[Errno 30] Read-only file system"} | ({} if cause is None else {"cause": cause})
    assert sentence(HostError(ErrorCode.STORAGE_UNAVAILABLE, "cannot open", data)).startswith(start)


def test_an_unknown_code_reads_as_its_fallback_or_the_general_sentence(qapp):
    from pidesktop.ui.kit.plain_errors import SENTENCES, sentence_for_code

    assert sentence_for_code("no_such_code", "The reply failed.") == "The reply failed."
    assert sentence_for_code(None) == SENTENCES[ErrorCode.INTERNAL]
    assert sentence_for_code("rate_limited") == SENTENCES[ErrorCode.RATE_LIMITED]


def test_a_send_that_cannot_go_reads_as_the_runtime_wrote_it_where_there_is_a_message(qapp):
    from pidesktop.ui.kit.plain_errors import SENTENCES, sentence, sentence_for_code

    refused = HostError(ErrorCode.NOT_READY, "Dead port has no model chosen: pick one in Settings > Providers.")
    assert sentence(refused) == refused.message
    assert sentence_for_code("not_ready") == SENTENCES[ErrorCode.NOT_READY]  # the inbox has only the code


def literal_codes(tree: ast.Module) -> list[tuple[int, str]]:
    """Codes written as text where one is reported or stored: ``{"code": "x"}``, ``{"errorCode": "x"}``,
    and SQL that sets ``error_code = 'x'``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Dict):
            found += [
                (node.lineno, value.value)
                for key, value in zip(node.keys, node.values)
                if isinstance(key, ast.Constant)
                and key.value in ("code", "errorCode")
                and isinstance(value, ast.Constant)
                and isinstance(value.value, str)
            ]
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            found += [(node.lineno, code) for code in re.findall(r"error_code\s*=\s*'([^']*)'", node.value)]
    return found


def test_no_code_is_reported_or_stored_as_bare_text():
    offences = [
        f"{path.relative_to(REPO)}:{line}: {code!r}"
        for path, tree in _sources()
        if "workflows" not in path.parts  # the Workflows store: a product of its own, with its own codes
        for line, code in literal_codes(tree)
    ]
    assert offences == [], "report or store an ErrorCode member instead:\n" + "\n".join(offences)


def test_the_literal_finder_sees_a_reported_and_a_stored_code():
    tree = ast.parse(
        'x = {"code": "no_answer", "message": "m"}\n'
        "conn.execute(\"UPDATE t SET status = 'aborted', error_code = 'interrupted' WHERE 1\")\n"
        'y = {"code": ErrorCode.NO_ANSWER}\n'
    )
    assert literal_codes(tree) == [(1, "no_answer"), (2, "interrupted")]
