"""gunicorn's gevent worker with a cap on the connections one client address holds open in it, which reads what is
left of a request's body before it closes the connection.

Without one, one address could hold every connection a worker serves (bootstrap/gunicorn_conf.py): requests
whose headers or body never end, streams, play sockets, and the API stops answering anyone. A connection over
the cap is answered 429 in the API's error shape and closed before its request is read.

The address is the socket's peer: behind a proxy every client shares the proxy's address (docs/reliability.md).

An answer given before the body was read (413 at the headers, a 429, a 404) closed the connection with the body
unread when the client had asked for that (`Connection: close`, as Python's urllib does): the unread bytes make the
kernel reset the connection, and a client still sending its body gets a broken pipe and never reads the answer.
The rest of the body is now read and dropped first, within bounds.

gunicorn's master loads this module by its path (bootstrap/gunicorn_conf.py), so it imports nothing of the app
at the top: the app is imported in each worker, after gevent has patched the standard library.
"""
import json
from collections import Counter
from functools import cached_property

import gevent
from gunicorn.http.errors import ParseException
from gunicorn.workers.ggevent import GeventWorker

# Seconds a refused client is told to wait: connections of the same address close within HEADER_TIMEOUT when
# idle, so a retry soon after may find room.
RETRY_AFTER = 1
# What a refusal reads of the request before closing, so that the close does not reset the connection (which
# may discard the answer before the client reads it); never waiting for more.
DRAIN_BYTES = 65536
# The most of an unread request body read and dropped before its connection is closed or reused: a mistaken upload of a
# few megabytes is drained, so its sender reads the 413; a larger one costs the server no more than this, and is reset.
# It has BODY_TIMEOUT seconds to arrive, as a body read by the app does.
DRAIN_BODY_BYTES = 16 * 1024 * 1024


def bounded_worker(max_per_address: int, body_timeout: float) -> type["BoundedGeventWorker"]:
    """The worker class for gunicorn's `worker_class` setting; `max_per_address` 0 = no cap."""
    return type("BoundedGeventWorker", (BoundedGeventWorker,), {"max_per_address": max_per_address,
                                                                "body_timeout": body_timeout})


class BoundedGeventWorker(GeventWorker):
    max_per_address = 0
    body_timeout = 10.0

    def handle_request(self, listener_name, req, sock, addr):
        """gunicorn's, with the request's unread body drained before its connection is closed (StopIteration) or
        reused (True); one that cannot be drained closes it. False: a WebSocket took the connection over."""
        try:
            reused = super().handle_request(listener_name, req, sock, addr)
        except StopIteration:
            drain(req.body, self.body_timeout)
            raise
        if reused and not drain(req.body, self.body_timeout):
            raise StopIteration()
        return reused

    @cached_property
    def open_connections(self) -> Counter:
        """Open connections by client address, in this worker."""
        return Counter()

    def refusal(self) -> bytes:
        """The answer to a connection over the cap, with a request id of its own: its request is never read.
        The app is imported in the worker, not in gunicorn's master (see above)."""
        from api.errors import error_body
        error = error_body(429, "too_many_connections", f"this address has {self.max_per_address} connections open "
                                                        "to this server process; close one or retry later",
                           retry_after=RETRY_AFTER)
        body = json.dumps(error)
        return (f"HTTP/1.1 429 Too Many Requests\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: {RETRY_AFTER}\r\nX-Request-ID: {error['request_id']}\r\n"
                f"Connection: close\r\n\r\n{body}").encode()

    def handle(self, listener, client, addr):
        address = addr[0] if isinstance(addr, tuple) else None  # a unix socket's peer has no address: a proxy
        if address is None or not self.max_per_address:
            return super().handle(listener, client, addr)
        if self.open_connections[address] >= self.max_per_address:
            return self.refuse(client)
        self.open_connections[address] += 1
        try:
            super().handle(listener, client, addr)
        finally:
            self.open_connections[address] -= 1
            if not self.open_connections[address]:
                del self.open_connections[address]

    def refuse(self, client) -> None:
        try:
            with gevent.Timeout(RETRY_AFTER, False):  # a client that reads nothing cannot hold the greenlet
                client.sendall(self.refusal())
            client.setblocking(False)
            client.recv(DRAIN_BYTES)
        except OSError:  # gone already, or nothing arrived yet
            pass
        finally:
            client.close()


def drain(body, seconds: float) -> bool:
    """Reads and drops what is left of a request's body, at most DRAIN_BODY_BYTES within `seconds`; True when it all
    came. A body read whole already costs one call that reads nothing."""
    drained = 0
    with gevent.Timeout(seconds, False):
        try:
            while drained <= DRAIN_BODY_BYTES:
                chunk = body.read(DRAIN_BYTES)
                if not chunk:
                    return True
                drained += len(chunk)
        except (OSError, ParseException):  # the client went away, or its chunked body is malformed
            pass
    return False
