"""pidesktop.logs: logs/<component>/<category>.ndjson by logger name, earlier per-process files moved once."""

import json
import logging

import orjson
import pytest

from pidesktop import logs


@pytest.fixture
def pidesktop_logger():
    logger = logging.getLogger("pidesktop")
    before, level, propagate = list(logger.handlers), logger.level, logger.propagate
    try:
        yield logger
    finally:
        for handler in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)
        logger.propagate = propagate


@pytest.mark.parametrize(
    ("name", "where"),
    [
        ("pidesktop.host.boot", ("host", "boot")),
        ("pidesktop.host.transcripts", ("host", "transcripts")),
        ("pidesktop.host", ("host", "general")),
        ("pidesktop.storage.cache_request", ("host", "storage")),
        ("pidesktop.bus.stdio", ("host", "bus")),
        ("pidesktop.agent.runner", ("agent", "runner")),
        ("pidesktop.agent", ("agent", "general")),
        ("pidesktop.ui.data.storage_wizard", ("app", "data")),
        ("pidesktop.ui", ("app", "ui")),
        ("pidesktop.app", ("app", "app")),
        ("pidesktop", ("app", "general")),
        ("pidesktop.agent.../..", ("agent", "general")),
    ],
)
def test_a_record_goes_to_its_component_and_category(name, where):
    assert logs.route(name) == where


def test_records_land_in_their_category_files_with_the_process_named(tmp_path, pidesktop_logger):
    logs.configure(tmp_path, "app")
    logging.getLogger("pidesktop.host.boot").info("boot pass done")
    logging.getLogger("pidesktop.agent.runner").warning("a turn failed")
    logging.getLogger("pidesktop.ui.kit.prefs").info("prefs saved")
    root = tmp_path / "logs"
    assert sorted(p.relative_to(root).as_posix() for p in root.rglob("*.ndjson")) == [
        "agent/runner.ndjson",
        "app/kit.ndjson",
        "host/boot.ndjson",
    ]
    entry = orjson.loads((root / "host" / "boot.ndjson").read_bytes().splitlines()[-1])
    assert entry["msg"] == "boot pass done" and entry["process"] == "app" and entry["level"] == "info"


def test_a_message_naming_a_file_that_is_not_utf8_is_written_not_lost(tmp_path, pidesktop_logger, capfd):
    logs.configure(tmp_path, "app")
    name = (b"/data/caf\xe9.txt").decode("utf-8", "surrogateescape")  # as os.listdir gives it
    logging.getLogger("pidesktop.app").warning("cannot open %s", name)
    logging.getLogger("pidesktop.app").info("next")
    lines = (tmp_path / "logs" / "app" / "app.ndjson").read_bytes().splitlines()
    assert [orjson.loads(line)["msg"] for line in lines[1:]] == ["next"]
    assert json.loads(lines[0])["msg"] == f"cannot open {name}"  # the same text, its lone surrogate escaped
    assert capfd.readouterr().err == ""


def test_configuring_a_data_root_again_replaces_its_handler_and_keeps_the_others(tmp_path, pidesktop_logger):
    first = logs.configure(tmp_path / "one", "host")
    again = logs.configure(tmp_path / "one", "agent")
    other = logs.configure(tmp_path / "two", "host")
    assert first not in pidesktop_logger.handlers
    assert again in pidesktop_logger.handlers and other in pidesktop_logger.handlers
    logging.getLogger("pidesktop.host.test").info("written once")
    assert (tmp_path / "one" / "logs" / "host" / "test.ndjson").read_text().count("written once") == 1
    assert (tmp_path / "two" / "logs" / "host" / "test.ndjson").read_text().count("written once") == 1


def test_the_per_process_files_of_earlier_builds_move_once(tmp_path, pidesktop_logger):
    root = tmp_path / "logs"
    (root / "app").mkdir(parents=True)
    (root / "host").mkdir()
    (root / "app" / "app.ndjson").write_text('{"msg": "old app"}\n')
    (root / "host" / "host.ndjson").write_text('{"msg": "old host"}\n')
    (root / "host" / "host.ndjson.1").write_text('{"msg": "older host"}\n')
    logs.configure(tmp_path, "app")
    assert (root / "app" / "previous" / "app.ndjson").read_text() == '{"msg": "old app"}\n'
    assert (root / "host" / "previous" / "host.ndjson.1").exists()
    assert not (root / "host" / "host.ndjson").exists()
    # the new app/app category file is not moved again at the next start
    logging.getLogger("pidesktop.app").info("started")
    logs.configure(tmp_path, "app")
    assert "started" in (root / "app" / "app.ndjson").read_text()
    assert (root / "app" / "previous" / "app.ndjson").read_text() == '{"msg": "old app"}\n'
