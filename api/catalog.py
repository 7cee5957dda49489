"""The catalog: games, bots, health."""
from flask import current_app
from flask.views import MethodView
from flask_smorest import Blueprint

from api.schemas import Bots, Game, Games, Health
from domain.bots import BOTS
from domain.games import GAMES
from service.errors import NotFound, Unavailable

games = Blueprint("games", __name__, url_prefix="/v1/games", description="The games this server plays")
bots = Blueprint("bots", __name__, url_prefix="/v1/bots", description="The bots that can take a seat")
health = Blueprint("health", __name__, url_prefix="/health", description="Liveness and Redis reachability")


@games.route("")
class GameList(MethodView):
    @games.response(200, Games)
    def get(self):
        """Every game: id, name, player range, options with defaults and the move vocabulary."""
        return {"games": [game.INFO.catalog_entry() for game in GAMES.values()]}


@games.route("/<game_id>")
class GameDetail(MethodView):
    @games.response(200, Game)
    def get(self, game_id):
        """One game of the catalog."""
        if game_id not in GAMES:
            raise NotFound("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}")
        return GAMES[game_id].INFO.catalog_entry()


@bots.route("")
class BotList(MethodView):
    @bots.response(200, Bots)
    def get(self):
        """The bot kinds a seat can be given ({"bot": "<id>"})."""
        return {"bots": [kind.catalog_entry() for kind in BOTS.values()]}


@health.route("")
class HealthCheck(MethodView):
    @health.response(200, Health)
    def get(self):
        """200 while the API can reach Redis, 503 when it cannot."""
        try:
            current_app.extensions["cardroom.health"]()
        except Exception as failure:
            raise Unavailable("redis_unreachable", f"Redis cannot be reached: {failure}") from None
        return {"status": "ok", "redis": "ok"}
