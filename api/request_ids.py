"""Request ids and the access line: every request has an id, the client's X-Request-ID when it sent a usable one,
else a new one. It is echoed in the answer's X-Request-ID header and in every error body, written on every log
line of the request (service/log_context.py), and carried into the RQ jobs the request causes.

One access line a request, written when its answer is sent: a stream's when the stream ends, with its whole
duration."""
import logging
import re
import time

from flask import Flask, g, request

from service import log_context

HEADER = "X-Request-ID"
MAX_REQUEST_ID = 128
# visible ASCII, as an Idempotency-Key: anything else (too long, empty, spaces, control characters) is not
# refused but replaced, so that a proxy's odd id never costs the client its answer
PATTERN = re.compile(f"^[!-~]{{1,{MAX_REQUEST_ID}}}$")
log = logging.getLogger("cardroom.access")


def add_request_ids(app: Flask) -> None:
    """Registered before every other hook, so that even a request refused by one has its id."""
    app.before_request(begin)
    app.after_request(finish)


def accepted(sent: str | None) -> str:
    """The client's id if usable, else a new one."""
    return sent if sent is not None and PATTERN.match(sent) else log_context.new_request_id()


def begin() -> None:
    """A kept-alive connection serves its requests one after another in one greenlet: nothing of the last
    request's context may leak into this one's."""
    log_context.clear_contextvars()
    rule = request.url_rule
    log_context.bind_contextvars(**{log_context.REQUEST_ID: accepted(request.headers.get(HEADER))},
                                 route=rule.rule if rule else None)
    if request.view_args and "match_id" in request.view_args:
        log_context.bind_contextvars(match_id=request.view_args["match_id"])
    g.request_started = time.perf_counter()


def finish(response):
    response.headers[HEADER] = log_context.request_id()
    method, path, started = request.method, request.path, g.request_started

    def access_line():
        log.info("%s %s %s", method, path, response.status_code,
                 extra={"method": method, "path": path, "status": response.status_code,
                        "duration_ms": round(1000 * (time.perf_counter() - started), 2)})
    if response.is_streamed:
        response.call_on_close(access_line)  # the context is the stream's greenlet's still, until the next request
    else:
        access_line()
    return response
