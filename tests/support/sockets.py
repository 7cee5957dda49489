"""The play socket in tests: an app served on a real port (werkzeug's threaded server: WebSockets need one),
and a client that sends a message and reads its answer."""
import json
import threading
from contextlib import contextmanager

from simple_websocket import Client
from werkzeug.serving import make_server


@contextmanager
def served(app):
    """Serves `app` on a free port in a thread; yields the ws:// URL of its play socket."""
    server = make_server("127.0.0.1", 0, app, threaded=True)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"ws://127.0.0.1:{server.server_port}/v1/play"
    finally:
        server.shutdown()
        thread.join()


@contextmanager
def play_socket_client(url: str):
    socket = Client.connect(url)
    try:
        yield socket
    finally:
        if socket.connected:  # the server may have closed it
            socket.close()


def ask(socket, message) -> dict:
    """Sends one message (a dict as JSON, or a str as it is) and returns the answer, decoded."""
    socket.send(message if isinstance(message, str) else json.dumps(message))
    return json.loads(socket.receive(timeout=10))


def move_message(created: dict, seat: int, version: int, move=None, **more) -> dict:
    """The play socket's message for `seat` of a match as created over HTTP (its seat tokens), at `version`."""
    return {"match_id": created["id"], "token": created["seats"][seat]["token"], "expected_version": version,
            "move": {"action": "score"} if move is None else move, **more}
