"""The Flask application: blueprints, the one error shape, the OpenAPI document, the docs pages, and the
HTTP extensions (gzip, CORS)."""
from pathlib import Path
from typing import TypedDict

from flask import Flask
from flask_compress import Compress
from flask_cors import CORS
from flask_smorest import Api

from api import errors, limits, play_socket
from api.request_ids import HEADER as REQUEST_ID_HEADER
from api.request_ids import add_request_ids
from api.accounts import account_routes
from api.admin import admin as admin_routes
from api.archive import archive
from api.catalog import bots, games, health
from api.docs import add_swagger_ui, rules_pages
from api.feed import feed as feed_routes
from api.etags import CODINGS
from api.json_provider import OrjsonProvider
from api.rate_limits import RATE_LIMIT_HEADERS, RateLimits, limit_by_caller
from api.matches import matches
from api.metrics import add_metrics, instrument
from api.schemas import streams as stream_schemas
from api.schemas.common import referenced
from api.schemas.errors import Error, Refusals
from api.schemas.games import components
from api.schemas.matches import ClockSpec
from api.schemas import new_match
from api.schemas.new_match import NOT_A_CLOCK, entrant_alternatives, entrant_schema
from api.schemas.play_socket import PlayAnswer, PlayMessage
from api.schemas.seeks import CreateSeek, seek_rules
from api.schemas.tournaments import CreateTournament, EntrantSpec, tournament_rules
from api.seeks import seek_routes
from api.static_answers import serve
from api.streams import streams as stream_routes
from api.ratings import rating_routes
from api.tournaments import tournaments as tournament_routes
from api.transparency import transparency_routes
from api.viewer import viewer
from domain.games import GAMES
from observability.exposition import Exposition
from service.accounts import AccountService
from service.admin import AdminService
from service.live.feed import AccountFeeds
from service.live.streams import MatchStreams, TournamentStreams
from service.matches import MatchService
from service.seeks import SeekService
from service.ladders import LadderService
from service.tournaments import TournamentService
from service.transparency import TransparencyService

# gzip what is worth it. Never a stream (text/event-stream, application/x-ndjson): gzip would hold events back
# until its buffer fills, so they are not listed here, and streamed answers are never compressed (COMPRESS_STREAMS).
COMPRESSED_TYPES = ["application/json", "text/html", "text/css", "application/javascript", "text/javascript"]
# Level 1 (nginx's default too): a 33 KB log took 0.4 ms to 8.7 KB, against 1.1 ms to 7.4 KB at level 6.
GZIP_LEVEL = 1
# An answer under 1 KiB travels in one TCP segment, headers included, gzipped or not: compressing it saves the
# client no time and costs both ends CPU. A move's answer is about 600 bytes, which plain saves the server about
# 70 µs of CPU (docs/performance.md). flask-compress's default is 500.
GZIP_MIN_BYTES = 1024
# Browsers may call the API from any page allowed by `cors_origins`; a seat token travels in the
# Authorization header (never a cookie), so a page can only act with a token its user gave it. A page may read the
# headers that pace it (RateLimit-Policy, RateLimit, Retry-After): a browser hides any not exposed.
class CorsHeaders(TypedDict):
    allow_headers: list[str]
    expose_headers: list[str]
    methods: list[str]
    max_age: int


CORS_HEADERS: CorsHeaders = {"allow_headers": ["Authorization", "Content-Type", "Idempotency-Key", "If-None-Match",
                                  REQUEST_ID_HEADER],
                "expose_headers": ["ETag", REQUEST_ID_HEADER, *RATE_LIMIT_HEADERS, "Retry-After"],
                "methods": ["GET", "POST", "PATCH", "DELETE", "OPTIONS"], "max_age": 600}


class CardroomApi(Api):
    """flask-smorest's Api with every HTTP error in cardroom's error shape (304 is not an error: no body), and
    /openapi.json built once per process (api/static_answers.py)."""

    ERROR_SCHEMA = Error

    def _openapi_json(self):
        return serve("openapi.json", super()._openapi_json)

    def handle_http_exception(self, error):
        if error.code == 304:
            return error.get_response()
        return errors.respond(error)

    def _init_spec(self, *args, **kwargs):
        super()._init_spec(*args, **kwargs)
        self.ma_plugin.converter.add_attribute_function(referenced)


def create_app(service: MatchService, health_check, max_body_bytes: int = 65536, cors_origins=("*",),
               rules_dir: Path | None = None, rate_limits: RateLimits | None = None,
               streams: MatchStreams | None = None, accounts: AccountService | None = None,
               feeds: AccountFeeds | None = None, tournaments: TournamentService | None = None,
               tournament_streams: TournamentStreams | None = None, admin: AdminService | None = None,
               exposition: Exposition | None = None, metrics_token: str | None = None,
               readiness: dict | None = None, ladders: LadderService | None = None,
               seeks: SeekService | None = None, transparency: TransparencyService | None = None) -> Flask:
    """`streams`: the live streams of matches (GET .../stream); without them the app serves no stream.
    `accounts`: the same AccountService the match service was given; without it, no /v1/accounts.
    `feeds`: the accounts' turn feeds (GET /v1/accounts/me/stream), on the same hub as `streams`.
    `tournaments` (and their streams): without them, no /v1/tournaments. `admin`: the operator's actions
    (/v1/admin, answering 404 admin_disabled without an ADMIN_KEY); without it, none.
    `exposition`: what GET /metrics answers (default: this process's figures); `metrics_token`: who may read it
    (api/metrics.py). `readiness`: GET /health/ready's checks by name, each returning when it passes and raising
    (NotReady or a Redis error) when not; without them, `health_check` alone, as "redis". `ladders`: rated play's
    leaderboards (/v1/ratings, and the ratings on an account's page); needs `accounts`. `seeks`: the seek pools
    (/v1/seeks); without them, none. `transparency`: the log of finished matches (/v1/transparency); without it,
    none."""
    app = Flask("cardroom")
    app.url_map.converters["default"] = limits.PathParameter  # before any route is added
    add_request_ids(app)  # first: every later hook's refusal has its request id
    instrument(app)  # next, so that a request's time includes every other hook
    app.json = OrjsonProvider(app)
    app.config.update(
        API_TITLE="cardroom", API_VERSION="v1", OPENAPI_VERSION="3.0.3", OPENAPI_URL_PREFIX="/",
        OPENAPI_JSON_PATH="openapi.json", MAX_CONTENT_LENGTH=max_body_bytes,
        API_SPEC_OPTIONS={"info": {"description": "An event-sourced server for hidden-information card games. "
                                                  "Every error is the Error schema. Rules: /docs/games."}},
        COMPRESS_ALGORITHM=list(CODINGS), COMPRESS_LEVEL=GZIP_LEVEL, COMPRESS_MIN_SIZE=GZIP_MIN_BYTES,
        COMPRESS_MIMETYPES=COMPRESSED_TYPES, COMPRESS_STREAMS=False,
    )
    app.extensions["cardroom.service"] = service
    app.extensions["cardroom.health"] = health_check
    app.extensions["cardroom.readiness"] = readiness or {"redis": health_check}
    app.extensions["cardroom.streams"] = streams
    app.extensions["cardroom.accounts"] = accounts
    app.extensions["cardroom.feeds"] = feeds
    app.extensions["cardroom.tournaments"] = tournaments
    app.extensions["cardroom.tournament_streams"] = tournament_streams
    app.extensions["cardroom.admin"] = admin
    app.extensions["cardroom.ladders"] = ladders
    app.extensions["cardroom.seeks"] = seeks
    app.extensions["cardroom.transparency"] = transparency
    api = CardroomApi(app, spec_kwargs={"extra_plugins": [Refusals()]})
    api.spec.components.security_scheme("seatToken", {"type": "http", "scheme": "bearer",
                                                      "description": "the seat token from creating or joining, "
                                                                     "or the key of the account holding the seat"})
    api.spec.components.security_scheme("accountKey", {"type": "http", "scheme": "bearer",
                                                       "description": "an account's API key"})
    api.spec.components.security_scheme("adminKey", {"type": "http", "scheme": "bearer",
                                                     "description": "the server's ADMIN_KEY setting"})
    for game in GAMES.values():
        for name, schema in components(game.INFO).items():
            api.spec.components.schema(name, schema)
    for name, schema in new_match.components().items():  # the body of POST /v1/matches, game by game
        api.spec.components.schema(name, schema)
    # a tournament's body documents its clock by the schema that reads it, with the match's rule added
    api.spec.components.schema("ClockSpec", {"not": NOT_A_CLOCK}, schema=ClockSpec)
    # the seek's and the tournament's bodies: their schemas' fields, and the rules between the fields
    for name, schema in entrant_alternatives().items():
        api.spec.components.schema(name, schema)
    api.spec.components.schema("EntrantSpec", entrant_schema(), schema=EntrantSpec)
    api.spec.components.schema("CreateTournament", tournament_rules(), schema=CreateTournament)
    api.spec.components.schema("CreateSeek", seek_rules(), schema=CreateSeek)
    api.spec.components.schema("PlayMessage", schema=PlayMessage)  # the play socket's messages
    api.spec.components.schema("PlayAnswer", schema=PlayAnswer)
    for name, described in stream_schemas.components().items():  # the streams' frames and the log's events
        if isinstance(described, dict):
            api.spec.components.schema(name, described)
        else:
            api.spec.components.schema(name, schema=described)
    for blueprint in (games, bots, matches, archive, health):
        api.register_blueprint(blueprint)
    if streams is not None:
        api.register_blueprint(stream_routes)
    if ladders is not None:
        api.register_blueprint(rating_routes)
    if accounts is not None:
        api.register_blueprint(account_routes)
    if feeds is not None:
        api.register_blueprint(feed_routes)
    if tournaments is not None and tournament_streams is not None:
        api.register_blueprint(tournament_routes)
    if admin is not None:
        api.register_blueprint(admin_routes)
    if seeks is not None:
        api.register_blueprint(seek_routes)
    if transparency is not None:
        api.register_blueprint(transparency_routes)
    add_swagger_ui(app)
    app.register_blueprint(rules_pages(rules_dir))
    app.register_blueprint(viewer)
    play_socket.add_play_socket(app, api.spec, max_body_bytes)
    add_metrics(app, exposition or Exposition(None), metrics_token)
    errors.register(app)
    Compress(app)
    CORS(app, resources=[r"/v1/*", "/openapi.json", r"/health.*"], origins=list(cors_origins), **CORS_HEADERS)
    app.before_request(limits.refuse_oversized_request)
    if rate_limits:
        limit_by_caller(app, rate_limits)
    return app
