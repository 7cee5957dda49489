"""Log lines: one JSON object a line with LOG_FORMAT=json, carrying what the work at hand bound (the request id,
the match, the seat) and the program; tracebacks without local variables (a move's frame holds its token)."""
import io
import json
import logging

import pytest

from bootstrap import logs
from service import log_context


@pytest.fixture
def lines():
    """A logger whose lines (as the given format renders them for program "web") are returned by read()."""
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    logger = logging.getLogger("cardroom.test_logs")
    logger.propagate, logger.level = False, logging.INFO
    logger.addHandler(handler)

    def use(log_format: str):
        handler.setFormatter(logs.formatter("web", log_format))
        return logger, lambda: stream.getvalue().splitlines()
    yield use
    logger.removeHandler(handler)
    log_context.clear_contextvars()


def test_a_json_line_carries_the_bound_context_the_program_and_the_access_fields(lines):
    logger, read = lines("json")
    with log_context.bound_contextvars(request_id="r-1", match_id="m-1", seat=2):
        logger.info("%s %s %s", "POST", "/v1/matches/m-1/moves", 201,
                    extra={"method": "POST", "path": "/v1/matches/m-1/moves", "status": 201, "duration_ms": 3.5,
                           "unlisted": "kept out"})
    [line] = read()
    fields = json.loads(line)
    assert fields["message"] == "POST /v1/matches/m-1/moves 201"
    assert {key: fields[key] for key in ("request_id", "match_id", "seat", "program", "level", "status")} == {
        "request_id": "r-1", "match_id": "m-1", "seat": 2, "program": "web", "level": "info", "status": 201}
    assert fields["duration_ms"] == 3.5 and "time" in fields and "unlisted" not in fields


def test_a_thread_naming_its_own_program_overrides_the_processes(lines):
    logger, read = lines("json")
    with log_context.bound_contextvars(program="janitor"):
        logger.warning("re-enqueued")
    assert json.loads(read()[0])["program"] == "janitor"


def test_context_unbound_after_the_work_is_not_on_the_next_line(lines):
    logger, read = lines("json")
    with log_context.bound_contextvars(request_id="r-2"):
        logger.info("inside")
    logger.info("outside")
    assert [json.loads(line).get("request_id") for line in read()] == ["r-2", None]


@pytest.mark.parametrize("log_format", ["json", "text"])
def test_a_traceback_shows_no_local_variable(lines, log_format):
    logger, read = lines(log_format)

    def move_with(token):
        raise ValueError("refused")
    token = "-".join(["tok", "secret", "123"])  # the source lines a traceback quotes do not hold it whole
    try:
        move_with(token)
    except ValueError:
        logger.exception("the move failed")
    written = "\n".join(read())
    assert "ValueError: refused" in written and "tok-secret-123" not in written


def test_text_lines_are_plain_text_with_the_context(lines):
    logger, read = lines("text")
    with log_context.bound_contextvars(request_id="r-3"):
        logger.info("hello")
    [line] = read()
    assert "hello" in line and "request_id=r-3" in line and not line.startswith("{")


def test_an_unknown_log_format_is_refused_at_start():
    with pytest.raises(ValueError, match="LOG_FORMAT"):
        logs.formatter("web", "xml")
