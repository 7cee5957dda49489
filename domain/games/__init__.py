"""The catalog: every game module by its id."""
from domain.errors import InvalidSetup
from domain.games import blockers, flipout, mantis, ninestax

GAMES = {module.INFO.id: module for module in (mantis, blockers, ninestax, flipout)}


def get_game(game_id: str):
    try:
        return GAMES[game_id]
    except KeyError:
        raise InvalidSetup("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}") from None
