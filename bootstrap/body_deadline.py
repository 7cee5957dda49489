"""A deadline for request bodies: a body that has not arrived BODY_TIMEOUT seconds after its headers gets 408.

gunicorn bounds the wait for a request's headers (its keepalive setting, HEADER_TIMEOUT) but not for its body:
a client sending a few bytes of a body and nothing more held its connection for good. Here every read of
wsgi.input waits only until the request's deadline; past it the read raises werkzeug's RequestTimeout, which
the API answers in its error shape, and the connection is closed after the answer."""
import contextlib
import socket
import time

import gevent
from werkzeug.exceptions import RequestTimeout


def body_deadline(app, seconds: float):
    """WSGI middleware around `app`: each request's body must be in within `seconds` of its headers."""
    def bounded(environ, start_response):
        environ["wsgi.input"] = DeadlineInput(environ["wsgi.input"], time.monotonic() + seconds, seconds,
                                              environ.get("gunicorn.socket"))
        return app(environ, start_response)
    return bounded


class DeadlineInput:
    """wsgi.input whose reads raise RequestTimeout past `deadline` (time.monotonic()); `connection`, when
    given, is shut for reading then, so the server closes it after answering instead of waiting for the rest."""

    def __init__(self, stream, deadline: float, seconds: float, connection: socket.socket | None = None):
        self._stream, self._deadline, self._seconds, self._connection = stream, deadline, seconds, connection

    def read(self, size=None):
        return self._before_deadline(self._stream.read, size)

    def readline(self, size=None):
        return self._before_deadline(self._stream.readline, size)

    def readlines(self, hint=None):
        return self._before_deadline(self._stream.readlines, hint)

    def __iter__(self):
        return iter(self.readline, b"")

    def _before_deadline(self, read, size):
        timer = gevent.Timeout(max(0.0, self._deadline - time.monotonic()))
        try:
            with timer:
                return read(size)
        except gevent.Timeout as expired:
            if expired is not timer:
                raise
            if self._connection is not None:
                with contextlib.suppress(OSError):  # closed by the client meanwhile
                    self._connection.shutdown(socket.SHUT_RD)
            raise RequestTimeout(f"the request's body did not arrive within {self._seconds:g} s of its headers")
