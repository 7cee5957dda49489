"""The play socket: moves over one WebSocket (GET /v1/play) instead of an HTTP request each.

Each message is the body of POST /v1/matches/<match_id>/moves with the match, the credential and the
idempotency key in it (PlayMessage); each answer is what that POST would answer, with its status (PlayAnswer).
The same service call, rate limit and error bodies as the HTTP route; only the transport differs. What it
spares is a move's HTTP: gunicorn's request parsing and sending, Flask's request context, routing and
after-request hooks, more than a third of a move's server CPU (docs/performance.md). Answers come
in the order of the messages; one socket may move any number of seats and matches.

simple-websocket (on wsproto) because it runs in gunicorn's gevent workers as they are: a socket holds a
greenlet, not a worker, as a stream (GET .../stream) does. The route is flask-sock's, but with a server whose
frames are refused at their header when it declares more than the largest message (SizeCheckedServer).
"""
from contextlib import suppress
from dataclasses import replace

from flask import Flask, Response, current_app, request
from marshmallow import ValidationError
from simple_websocket import ConnectionClosed, Server
from wsproto import ConnectionType, WSConnection
from wsproto.events import AcceptConnection
from wsproto.extensions import Extension
from wsproto.frame_protocol import CloseReason, RsvBits

from api.context import forget_request_memo, service
from api.errors import SCHEMA_MISMATCH, describe, error_body
from api.limits import loads
from api.rate_limits import caller, rate_limited
from api.request_ids import HEADER as REQUEST_ID_HEADER
from api.schemas.play_socket import PlayMessage, RequestId
from observability.metrics import held_open
from service import log_context

# GET /v1/play in the OpenAPI document, which has no words for a WebSocket's messages: the components name them.
OPERATION = {
    "operationId": "playSocket", "tags": ["matches"],
    "summary": "The play socket: moves over one WebSocket (docs/play-socket.md)",
    "description": "Upgrade to a WebSocket. Each text message is a PlayMessage (POST .../moves in one object: "
                   "match_id, token, move, expected_version, idempotency_key?, id?); each answer a PlayAnswer "
                   "{id, status, body}: the status and body POST .../moves would answer, in the messages' order.",
    "responses": {
        "101": {"description": "Switching Protocols: the socket is open"},
        "400": {"description": "not a WebSocket request (websocket_mismatch)",
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/Error"}}}}}}
# A ping after this many seconds of silence closes a socket whose peer is gone (no pong by the next ping).
PING_SECONDS = 25
# Messages read but not answered yet, beyond which the socket is closed (1008): the socket's reader takes in
# whatever arrives, so without a bound a client sending faster than its moves are played would fill memory.
MAX_WAITING = 64
POLICY_VIOLATION = 1008
MESSAGE = PlayMessage()
ID = RequestId()


def add_play_socket(app: Flask, spec, max_message_bytes: int) -> None:
    """GET /v1/play, documented in `spec` (apispec's); a message over `max_message_bytes` closes the socket with
    1009 (message too big)."""
    def play_socket():
        ws = SizeCheckedServer(request.environ, max_message_size=max_message_bytes, ping_interval=PING_SECONDS)
        try:
            with held_open("play_socket"):
                play(ws)
        except ConnectionClosed:
            pass
        with suppress(ConnectionClosed):  # closed by the client, or by the server for a reason given already
            ws.close()
        return Answered(ws.mode)

    app.route("/v1/play", endpoint="play_socket", websocket=True)(play_socket)
    spec.path(rule=next(app.url_map.iter_rules("play_socket")), operations={"get": OPERATION})


class DeclaredSizeLimit(Extension):
    """Refuses a frame whose header declares more than `max_bytes` (1009, message too big) when the header
    arrives: simple-websocket counts a message's bytes as they come, so a header declaring 2^62 bytes followed
    by nothing held the socket. Never offered nor negotiated: the client sees no extension, only the close."""
    name = "cardroom-declared-size-limit"

    def __init__(self, max_bytes: int):
        self.max_bytes = max_bytes

    def enabled(self) -> bool:
        return True

    def offer(self) -> bool:
        return False

    def frame_inbound_header(self, proto, opcode, rsv, payload_length) -> CloseReason | RsvBits:
        return CloseReason.MESSAGE_TOO_BIG if payload_length > self.max_bytes else RsvBits(False, False, False)


class SizeCheckedConnection(WSConnection):
    """wsproto's server connection, with DeclaredSizeLimit among the extensions it accepts with, and the
    request's X-Request-ID on its upgrade answer (the socket's log lines carry it too)."""

    def __init__(self, max_bytes: int):
        super().__init__(ConnectionType.SERVER)
        self.limit = DeclaredSizeLimit(max_bytes)

    def send(self, event):
        if isinstance(event, AcceptConnection):
            request_id = log_context.request_id()  # bound by api/request_ids.py before any view, the socket's too
            request_ids = [(REQUEST_ID_HEADER.encode(), request_id.encode())] if request_id else []
            event = replace(event, extensions=[*event.extensions, self.limit],
                            extra_headers=[*event.extra_headers, *request_ids])
        return super().send(event)


class SizeCheckedServer(Server):
    def handshake(self):
        self.ws = SizeCheckedConnection(self.max_message_size)
        super().handshake()


class Answered(Response):
    """What the route returns once the socket is done (flask-sock's way): the socket has written all there is,
    so the server must write no answer on it. gunicorn ends the request on StopIteration; werkzeug's server
    (the tests') on a dropped connection, where an answer would reach the client as a garbled frame."""

    def __init__(self, mode: str):
        super().__init__()
        self.mode = mode

    def __call__(self, environ, start_response):
        if self.mode == "gunicorn":
            raise StopIteration()
        raise ConnectionAbortedError("the WebSocket is closed")


def play(ws) -> None:
    while True:
        message = ws.receive()
        if len(ws.input_buffer) >= MAX_WAITING:
            ws.close(POLICY_VIOLATION, f"more than {MAX_WAITING} messages waiting for their answers")
            return
        ws.send(answer(message))


def answer(message: str | bytes) -> str:
    """The PlayAnswer to one message."""
    forget_request_memo()  # what a key found is remembered for one message, as for one request
    fields = None
    try:
        fields = loads(message.encode() if isinstance(message, str) else message)
        play = MESSAGE.load(fields)
        with log_context.bound_contextvars(match_id=play["match_id"], seat=None):  # one message's match and seat
            status, body = play_move(play)
    except ValidationError as error:
        status, body = 422, error_body(422, "invalid_request", SCHEMA_MISMATCH, {"json": error.messages})
    except Exception as error:  # noqa: BLE001 - every error answers in the one shape, as over HTTP
        body, _ = describe(error)
        status = body["code"]
    # a text message, as JSON is text (a browser would be handed a binary message as a Blob)
    return current_app.json.dumps({"id": _request_id(fields), "status": status, "body": body})


def play_move(message: dict) -> tuple[int, dict]:
    """As POST .../moves: counted against the moves' rate limit of the key's account or the socket's address."""
    token = message["token"]
    count_move = current_app.extensions.get("cardroom.count_move")
    if count_move:
        whom = caller(f"Bearer {token}")
        standing = count_move(whom)
        if standing.refused:
            return 429, rate_limited(standing, whom)[0]
    return 201, service().move(message["match_id"], token, message["move"], message["expected_version"],
                               message.get("idempotency_key"))


def _request_id(fields):
    """The message's id when it has a valid one: an answer carries nothing it was not sure to have been sent."""
    try:
        return ID.deserialize(fields["id"])
    except (TypeError, KeyError, ValidationError):
        return None
