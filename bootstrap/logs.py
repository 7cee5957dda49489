"""Logging for every program `make run` starts (web, worker, scheduler, and the janitor thread in each worker):
one JSON object a line with LOG_FORMAT=json, plain aligned text otherwise (docs/logging.md).

Every line goes through the standard library's logging, ours and the libraries' (RQ, gunicorn) alike, and is
rendered by structlog's ProcessorFormatter, which adds what the work at hand has bound to its context
(structlog.contextvars: the request id, the route, the match and the seat; service/log_context.py).

Tracebacks are rendered as plain text: structlog's richer renderers (rich's, ExceptionDictTransformer) print
each frame's local variables by default, and a frame of a move holds its seat token.

gunicorn's master loads this module by its path (bootstrap/gunicorn_conf.py), so it imports nothing of the app."""
import logging
import sys

import structlog

FORMATS = ("text", "json")
# the extras of the access line (api/request_ids.py); anything else passed as `extra` stays out of the line
ACCESS_FIELDS = ("method", "path", "status", "duration_ms")


def formatter(program: str, log_format: str) -> structlog.stdlib.ProcessorFormatter:
    """The formatter of every handler of `program`'s logs."""
    if log_format not in FORMATS:
        raise ValueError(f"LOG_FORMAT is {log_format!r}: one of {', '.join(FORMATS)}")
    gather = [structlog.contextvars.merge_contextvars, structlog.stdlib.ExtraAdder(ACCESS_FIELDS),
              _program(program), structlog.stdlib.add_log_level, structlog.stdlib.add_logger_name,
              structlog.processors.TimeStamper(fmt="iso", utc=True, key="time")]
    if log_format == "json":
        render: list[structlog.typing.Processor] = [structlog.processors.format_exc_info, structlog.processors.EventRenamer("message"),
                  structlog.processors.JSONRenderer()]
    else:
        render = [structlog.dev.ConsoleRenderer(colors=False, timestamp_key="time",
                                                exception_formatter=structlog.dev.plain_traceback)]
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=gather, processors=[structlog.stdlib.ProcessorFormatter.remove_processors_meta, *render])


def configure(program: str, log_format: str, level: int = logging.INFO) -> None:
    """The root logger writes every line to stderr (the program's log file under supervisord). Called before
    RQ builds its worker or scheduler: RQ then adds no handler of its own (it adds one only where none is)."""
    handler = logging.StreamHandler(sys.stderr)
    handler.setFormatter(formatter(program, log_format))
    logging.basicConfig(level=level, handlers=[handler], force=True)


def gunicorn_logconfig(program: str, log_format: str) -> dict:
    """gunicorn's `logconfig_dict`: its own lines and the app's through one handler; no access lines of its own,
    as the app writes one per request with the route and the request id."""
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"cardroom": {"()": formatter, "program": program, "log_format": log_format}},
        "handlers": {"stderr": {"class": "logging.StreamHandler", "formatter": "cardroom",
                                "stream": "ext://sys.stderr"}},
        "root": {"level": "INFO", "handlers": ["stderr"]},
        "loggers": {"gunicorn.error": {"level": "INFO", "handlers": [], "propagate": True},
                    "gunicorn.access": {"level": "WARNING", "handlers": [], "propagate": False}},
    }


def _program(program: str):
    """A processor naming the program, unless the work at hand names its own (the janitor's thread does)."""
    def add_program(logger, method_name, event_dict):
        event_dict.setdefault("program", program)
        return event_dict
    return add_program
