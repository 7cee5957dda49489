"""The catalog: games, bots, health."""
from flask import current_app
from flask.views import MethodView

from api.limits import Blueprint
from api.schemas import Bots, Game, Games, Health
from domain.bots import BOTS
from domain.games import GAMES
from service.errors import NotFound

games = Blueprint("games", __name__, url_prefix="/v1/games", description="The games this server plays")
bots = Blueprint("bots", __name__, url_prefix="/v1/bots", description="The bots that can take a seat")
health = Blueprint("health", __name__, url_prefix="/health", description="Liveness and Redis reachability")


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


@health.route("")
class HealthCheck(MethodView):
    @health.response(200, Health)
    @health.doc(operationId="health")
    def get(self):
        """200 while the API can reach Redis, 503 when it cannot."""
        current_app.extensions["cardroom.health"]()  # a Redis error becomes the one 503 (api/errors.py)
        return {"status": "ok", "redis": "ok"}
