"""What every log line of the work at hand carries: the request id, the route, the match and the seat.

The work at hand is a request (api/request_ids.py binds its id), a play socket's message, or an RQ job, which
binds the id of the request that caused it (workers/scheduler.py carries it in the job's meta). It lives in
structlog's context variables, which are per thread and per greenlet: bootstrap/logs.py adds them to every line.
A job enqueued while a request id is bound carries it on, so a bot's turn, and the next bot's, log the id of
the human move that started them."""
import uuid

from structlog.contextvars import bind_contextvars, bound_contextvars, clear_contextvars, get_contextvars

REQUEST_ID = "request_id"

__all__ = ["REQUEST_ID", "bind_contextvars", "bound_contextvars", "clear_contextvars", "new_request_id",
           "request_id"]


def request_id() -> str | None:
    """The id of the request the work at hand serves, if any."""
    return get_contextvars().get(REQUEST_ID)


def new_request_id() -> str:
    return uuid.uuid4().hex
