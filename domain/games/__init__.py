"""The catalog: every game module by its id, and every version of its rules that made a match. Each is registered
as a domain.protocol.Game, which mypy checks.

A game's rules version (`INFO.rules_version`) is logged in each match's match_created, and a match is replayed and
verified by the rules of its version, never by newer ones (docs/fairness.md, "Rules versions"): changing a game's
rules keeps the module of the old version callable (e.g. `mantis_v1.py`, listed here beside the new `mantis.py`).
A log that names no version was made before versions were logged: version 1 by definition.
"""
from domain.errors import InvalidSetup
from domain.games import blockers, flipout, mantis, ninestax
from domain.protocol import Game

FIRST_RULES = 1  # the version of a log that names none
_MODULES: list[Game] = [mantis, blockers, ninestax, flipout]  # with every older rules version still recorded
RULES: dict[str, dict[int, Game]] = {
    game_id: {module.INFO.rules_version: module for module in _MODULES if module.INFO.id == game_id}
    for game_id in dict.fromkeys(module.INFO.id for module in _MODULES)}
GAMES: dict[str, Game] = {game_id: versions[max(versions)] for game_id, versions in RULES.items()}  # the current


def get_game(game_id: str, rules_version: int | None = None) -> Game:
    """The game's current rules, or those of `rules_version` (a logged match's)."""
    try:
        versions = RULES[game_id]
    except KeyError:
        raise InvalidSetup("unknown_game", f"no game {game_id!r}; games: {', '.join(GAMES)}") from None
    if rules_version is None:
        return GAMES[game_id]
    try:
        return versions[rules_version]
    except KeyError:
        raise InvalidSetup("unknown_rules_version",
                           f"{game_id} has rules versions {', '.join(map(str, sorted(versions)))}, "
                           f"not {rules_version!r}: a newer server made this match") from None
