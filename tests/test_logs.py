"""pidesktop.logs: one log file per side, replaced (not doubled) when that side is configured again."""

import logging

from pidesktop import logs


def test_configuring_a_side_again_replaces_its_file_and_keeps_the_others(tmp_path):
    logger = logging.getLogger("pidesktop")
    before, level, propagate = list(logger.handlers), logger.level, logger.propagate
    try:
        first = logs.configure(tmp_path / "one", "host")
        other = logs.configure(tmp_path / "one", "agent")
        second = logs.configure(tmp_path / "two", "host")
        assert first not in logger.handlers
        assert other in logger.handlers and second in logger.handlers
        logging.getLogger("pidesktop.test").info("written once")
        assert (tmp_path / "two" / "logs" / "host" / "host.ndjson").read_text().count("written once") == 1
        assert "written once" not in (tmp_path / "one" / "logs" / "host" / "host.ndjson").read_text()
    finally:
        for handler in [h for h in logger.handlers if h not in before]:
            logger.removeHandler(handler)
            handler.close()
        logger.setLevel(level)
        logger.propagate = propagate
