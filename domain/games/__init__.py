"""The catalog: every game module by its id. Each is registered as a domain.protocol.Game, which mypy checks."""
from domain.errors import InvalidSetup
from domain.games import blockers, flipout, mantis, ninestax
from domain.protocol import Game

_MODULES: list[Game] = [mantis, blockers, ninestax, flipout]
GAMES: dict[str, Game] = {game.INFO.id: game for game in _MODULES}


def get_game(game_id: str) -> Game:
    try:
        return GAMES[game_id]
    except KeyError:
        raise InvalidSetup("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}") from None
