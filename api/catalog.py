"""The catalog: games, bots, health."""
import logging

import redis
from flask import current_app
from flask.views import MethodView

from api.errors import error_response
from api.etags import Blueprint
from api.schemas.catalog import Bots, Game, Games, Health, Live, Ready
from api.schemas.errors import Error
from domain.bots import BOTS
from domain.games import GAMES
from service.errors import NotFound, NotReady

log = logging.getLogger(__name__)

games = Blueprint("games", __name__, url_prefix="/v1/games", description="The games this server plays")
bots = Blueprint("bots", __name__, url_prefix="/v1/bots", description="The bots that can take a seat")
health = Blueprint("health", __name__, url_prefix="/health",
                   description="Liveness, readiness (Redis, bot workers, RQ's scheduler) and Redis reachability")


@games.route("")
class GameList(MethodView):
    @games.response(200, Games)
    @games.doc(operationId="listGames")
    def get(self):
        """Every game: id, name, player range, options with defaults and the move vocabulary."""
        return {"games": [catalog_entry(game_id) for game_id in GAMES]}


@games.route("/<game_id>")
class GameDetail(MethodView):
    @games.response(200, Game)
    @games.doc(operationId="getGame")
    def get(self, game_id):
        """One game of the catalog."""
        if game_id not in GAMES:
            raise NotFound("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}")
        return catalog_entry(game_id)


def catalog_entry(game_id: str) -> dict:
    return {**GAMES[game_id].INFO.catalog_entry(), "rules": f"/docs/games/{game_id}"}


@bots.route("")
class BotList(MethodView):
    @bots.response(200, Bots)
    @bots.doc(operationId="listBots")
    def get(self):
        """The bot kinds a seat can be given ({"bot": "<id>"})."""
        return {"bots": [kind.catalog_entry() for kind in BOTS.values()]}


REDIS_UNREACHABLE = "Redis unreachable"
NOT_CHECKED = "not checked: Redis unreachable"


@health.route("")
class HealthCheck(MethodView):
    @health.response(200, Health)
    @health.doc(operationId="health")
    def get(self):
        """200 while the API can reach Redis, 503 when it cannot."""
        current_app.extensions["cardroom.health"]()  # a Redis error becomes the one 503 (api/errors.py)
        return {"status": "ok", "redis": "ok"}


@health.route("/live")
class Liveness(MethodView):
    @health.response(200, Live)
    @health.doc(operationId="live")
    def get(self):
        """200 while this process answers; asks nothing of Redis (a container restarted for Redis's outage would
        not bring Redis back)."""
        return {"status": "live"}


@health.route("/ready")
class Readiness(MethodView):
    @health.response(200, Ready)
    @health.alt_response(503, schema=Error, description="not_ready: `checks` names what fails")
    @health.doc(operationId="ready")
    def get(self):
        """200 when Redis answers, an RQ worker on the bot queue beats and RQ's scheduler is alive; else 503 with
        each check's outcome."""
        checks: dict[str, str] = {}
        for name, check in current_app.extensions["cardroom.readiness"].items():
            # once Redis is found out of reach, each further check would wait out REDIS_TIMEOUT too: three of them
            # outlasted a healthcheck's 3 s
            checks[name] = NOT_CHECKED if REDIS_UNREACHABLE in checks.values() else outcome(check)
        failing = [name for name, result in checks.items() if result != "ok"]
        if failing:
            return error_response(503, "not_ready", f"failing: {', '.join(failing)}", checks=checks)
        return {"status": "ready", "checks": checks}


def outcome(check) -> str:
    """"ok", or what fails. A Redis error names no host or port, as the 503 redis_unreachable does."""
    try:
        check()
    except NotReady as missing:
        return str(missing)
    except (redis.ConnectionError, redis.TimeoutError):
        return REDIS_UNREACHABLE
    except Exception:  # noqa: BLE001 - a check that breaks fails, and the readiness answer still comes
        log.exception("readiness check failed")
        return "the check failed (logged)"
    return "ok"
