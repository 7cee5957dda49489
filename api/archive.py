"""The finished matches as a data set (docs/archive.md): their exports streamed as NDJSON, oldest first, every
match's, an account's or a tournament's; gzipped for a client that accepts it."""
import zlib

import orjson
from flask import Response, request
from flask.views import MethodView

from api.context import service
from api.limits import StrictBlueprint
from api.schemas.archive import UNSTATED_EXPORT_RULES, ExportsQuery
from api.schemas.new_match import unstated
from observability.metrics import held_open
from service.matches import Selection

NDJSON = "application/x-ndjson"
# zlib's level 1, as the API's other answers (api/app.py): exports of Mantis matches 3.98x smaller for 0.43 ms of CPU
# a match, against 4.92x for 0.91 ms at level 6 (docs/archive.md); a dump compresses its files harder, on the client
GZIP_LEVEL = 1
GZIP_WRAPPER = 16 + zlib.MAX_WBITS  # zlib's window bits for a gzip header and trailer
FLUSH_EVERY = 100  # exports compressed between two flushes, so a slow stream still sends as it goes

archive = StrictBlueprint("archive", __name__, url_prefix="/v1",
                          description="Finished matches as a data set: their exports streamed as NDJSON, oldest "
                                      "first, resumable (docs/archive.md).")
STREAM_DOC = {"description": unstated(UNSTATED_EXPORT_RULES), "responses": {"200": {
    "description": "One export a line (GET /v1/matches/<id>/export's document of a finished match, the `Export` "
                   "schema), oldest first by when each match finished; the matches of the last 10 seconds are left "
                   "for a later request. At most `limit` lines: resume with `after` = the last line's `match_id`. "
                   "gzip with 'Accept-Encoding: gzip'.",
    "content": {NDJSON: {"schema": {"$ref": "#/components/schemas/Export"}}}}}}


@archive.route("/matches/export")
class FinishedMatchesExport(MethodView):
    @archive.arguments(ExportsQuery, location="query")
    @archive.doc(operationId="exportFinishedMatches", **STREAM_DOC)
    def get(self, query):
        """Every finished match's export as NDJSON, filtered by game, rating and when it finished."""
        return exports_response(query)


@archive.route("/accounts/<reference>/matches/export")
class AccountMatchesExport(MethodView):
    @archive.arguments(ExportsQuery, location="query")
    @archive.doc(operationId="exportAccountMatches", **STREAM_DOC)
    def get(self, query, reference):
        """The finished matches of an account (by id or name) as NDJSON; 404 account_not_found."""
        return exports_response(query, account=reference)


@archive.route("/tournaments/<tournament_id>/matches/export")
class TournamentMatchesExport(MethodView):
    @archive.arguments(ExportsQuery, location="query")
    @archive.doc(operationId="exportTournamentMatches", **STREAM_DOC)
    def get(self, query, tournament_id):
        """The finished matches of a tournament as NDJSON; 404 tournament_not_found."""
        return exports_response(query, tournament=tournament_id)


def exports_response(query: dict, account: str | None = None, tournament: str | None = None) -> Response:
    """The stream of the exports the query selects, of an account's or a tournament's matches if one is named.
    The selection is checked before the answer starts, so a refusal is a 4xx in the error shape, never a cut stream."""
    since, until = (round(query[name].timestamp() * 1000) if name in query else None for name in ("since", "until"))
    selection = Selection(game=query.get("game"), rated=query.get("rated"), account=account, tournament=tournament,
                          since=since or 0, until=until)
    exported = service().finished_exports(selection, query.get("after"), query["limit"])
    lines = (orjson.dumps(document) + b"\n" for document in exported)
    gzipped = request.accept_encodings["gzip"] > 0
    headers = {"Cache-Control": "no-store", "Vary": "Accept-Encoding", **({"Content-Encoding": "gzip"} if gzipped else {})}
    # direct_passthrough: sent as it is made, untouched by the after-request compressor
    return Response(counted(gzip(lines) if gzipped else lines), mimetype=NDJSON, headers=headers,
                    direct_passthrough=True)


def gzip(lines):
    """The lines as one gzip stream, flushed every FLUSH_EVERY lines."""
    compressor = zlib.compressobj(GZIP_LEVEL, zlib.DEFLATED, GZIP_WRAPPER)
    for count, line in enumerate(lines, start=1):
        chunk = compressor.compress(line)
        if count % FLUSH_EVERY == 0:
            chunk += compressor.flush(zlib.Z_SYNC_FLUSH)
        if chunk:
            yield chunk
    yield compressor.flush()


def counted(body):
    """The body, counted as an open export stream while it is sent (cardroom_open_connections)."""
    with held_open("export"):
        yield from body
