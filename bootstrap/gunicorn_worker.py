"""gunicorn's gevent worker with a cap on the connections one client address holds open in it.

Without one, one address could hold every connection a worker serves (bootstrap/gunicorn_conf.py): requests
whose headers or body never end, streams, play sockets, and the API stops answering anyone. A connection over
the cap is answered 429 in the API's error shape and closed before its request is read.

The address is the socket's peer: behind a proxy every client shares the proxy's address (docs/reliability.md).

gunicorn's master loads this module by its path (bootstrap/gunicorn_conf.py), so it imports nothing of the app
at the top: the app is imported in each worker, after gevent has patched the standard library.
"""
import json
from collections import Counter
from functools import cached_property

import gevent
from gunicorn.workers.ggevent import GeventWorker

# Seconds a refused client is told to wait: connections of the same address close within HEADER_TIMEOUT when
# idle, so a retry soon after may find room.
RETRY_AFTER = 1
# What a refusal reads of the request before closing, so that the close does not reset the connection (which
# may discard the answer before the client reads it); never waiting for more.
DRAIN_BYTES = 65536


def bounded_worker(max_per_address: int) -> type["BoundedGeventWorker"]:
    """The worker class for gunicorn's `worker_class` setting; 0 = no cap."""
    return type("BoundedGeventWorker", (BoundedGeventWorker,), {"max_per_address": max_per_address})


class BoundedGeventWorker(GeventWorker):
    max_per_address = 0

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
