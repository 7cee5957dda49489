"""GET /v1/matches/<id>/stream: a match's frames as Server-Sent Events or as NDJSON (docs/streams.md)."""
import json

from flask import Response, current_app, request
from flask.views import MethodView
from flask_smorest import Blueprint

from api.context import credential
from api.schemas.common import StreamQuery
from api.schemas.errors import refusals
from observability.metrics import held_open
from service.errors import ServiceError
from service.live.streams import Frame, MatchStreams

SSE, NDJSON = "text/event-stream", "application/x-ndjson"
RETRY_MS = 2000  # how long an SSE client waits before it reconnects
# Last-Event-ID's most digits: every 15-digit number is below 2**53 (JSON's largest exact integer), so the header's
# schema, a string of digits, admits exactly what the server reads (a 16-digit one may pass 2**53 - 1)
VERSION_DIGITS = 15
# no cache or proxy may hold frames back; a compressor must pass the response through (see api/app.py)
HEADERS = {"Cache-Control": "no-cache, no-store", "X-Accel-Buffering": "no"}



def sse_body(frame: str, resume: str) -> dict:
    """A text/event-stream body whose frames are `frame` (a component's name, or words); `resume`: what an id is.
    Each event is described by `itemSchema`, as OpenAPI 3.2 says it and as schemathesis reads it whatever the
    document's version (tests/unit/test_api_fuzz.py checks every event against it); no `schema`, which generators
    would read the whole body by (openapi-python-client made a model of it and failed on the text)."""
    return {"itemSchema": {
        "type": "object", "description": f"one Server-Sent Event: `data` is one {frame} as JSON, `event` its `type`, "
                                         f"`id` {resume}; a comment line is a keep-alive; `retry: {RETRY_MS}` first",
        "properties": {"id": {"type": "string"}, "event": {"type": "string"}, "data": {"type": "string"},
                       "retry": {"type": "integer"}}}}


def stream_content(frame: str, resume: str) -> dict:
    """A stream's 200 content: NDJSON, one `frame` a line (an empty line is a keep-alive), or SSE."""
    return {NDJSON: {"schema": {"$ref": f"#/components/schemas/{frame}"}}, SSE: sse_body(frame, resume)}


def last_event_id_header(resume: str) -> dict:
    """The Last-Event-ID header parameter (the route's: flask-smorest replaces an operation's parameters with its
    query's)."""
    return {"in": "header", "name": "Last-Event-ID", "required": False,
            "schema": {"type": "string", "pattern": "^[0-9]*$", "maxLength": VERSION_DIGITS},
            "description": f"resume after this {resume} (an SSE client sends it when it reconnects; it wins over "
                           "`after`); empty: as without it"}


streams = Blueprint("streams", __name__, url_prefix="/v1/matches",
                    description="Live streams of a match's events, for the caller's seat (docs/streams.md).")


@streams.route("/<match_id>/stream", parameters=[last_event_id_header("version")])
class MatchStream(MethodView):
    @streams.arguments(StreamQuery, location="query")
    @streams.doc(**refusals({
        400: ["invalid_last_event_id: Last-Event-ID is not a version"],
        403: ["token_rejected: the token is no seat's of this match"],
        404: ["match_not_found", "version_not_found: the match has not reached the version resumed after"]}))
    @streams.doc(security=[{"seatToken": []}, {}], operationId="streamMatch", responses={
        "200": {"description": "Every event after the version resumed from, as GET .../events shows it, each "
                               "run of events followed by the match document (type `match`: GET /v1/matches/<id> "
                               "plus `legal_moves` for the caller's seat); without a resume point the document "
                               "comes first. It ends with the document after match_finished. A keep-alive "
                               "whenever nothing happened for a while.",
                "content": stream_content("MatchStreamFrame", "the version: resume after it")}})
    def get(self, query, match_id):
        """The match live: Server-Sent Events, or NDJSON with 'Accept: application/x-ndjson'."""
        return stream_response(match_streams().open(match_id, credential(), resume_point(query)), "stream")


def match_streams() -> MatchStreams:
    return current_app.extensions["cardroom.streams"]


def stream_response(frames, opened: str) -> Response:
    """`frames` as Server-Sent Events, or NDJSON for 'Accept: application/x-ndjson'; `opened`: the kind of
    connection it is counted as (cardroom_open_connections)."""
    kind = request.accept_mimetypes.best_match([SSE, NDJSON], default=SSE)
    body = written(frames, sse, opened, b"retry: %d\n\n" % RETRY_MS) if kind == SSE else written(frames, ndjson, opened)
    # direct_passthrough: the body goes out frame by frame, untouched by after-request compressors
    return Response(body, mimetype=kind, headers=HEADERS, direct_passthrough=True)


def resume_point(query: dict) -> int | None:
    """Where a stream resumes: after the Last-Event-ID an SSE client sends when it reconnects, else `after`."""
    after = last_event_id()
    return query.get("after") if after is None else after


def last_event_id() -> int | None:
    header = request.headers.get("Last-Event-ID")
    if header is None or header == "":
        return None
    if not (len(header) <= VERSION_DIGITS and header.isascii() and header.isdigit()):
        raise ServiceError("invalid_last_event_id", "Last-Event-ID is the version of the last frame you got: "
                                                    f"a whole number of at most {VERSION_DIGITS} digits")
    return int(header)


def sse(frame: Frame | None) -> bytes:
    if frame is None:
        return b": keep-alive\n\n"
    return (f"id: {frame.version}\nevent: {frame.type}\ndata: {json.dumps(frame.data)}\n\n").encode()


def ndjson(frame: Frame | None) -> bytes:
    return b"\n" if frame is None else json.dumps(frame.data).encode() + b"\n"


def written(frames, writer, opened: str, preamble: bytes = b""):
    """The response body; closing it (the client left) closes the frames, which stops following the log.
    `opened`: the kind of connection it is counted as while it is sent (cardroom_open_connections)."""
    with held_open(opened):
        try:
            if preamble:
                yield preamble
            for frame in frames:
                yield writer(frame)
        finally:
            frames.close()
