"""The jobs a worker runs. The worker's entry point (bootstrap/worker.py) hands them the service."""
from collections.abc import Callable

from service.matches import MatchService
from service.tournaments import TournamentService

_service: MatchService | None = None
_tournaments: TournamentService | None = None
_pair_seeks: Callable[[str], dict | None] | None = None


def configure(service: MatchService, tournaments: TournamentService | None = None,
              pair_seeks: Callable[[str], dict | None] | None = None) -> None:
    """`pair_seeks(game)`: one pairing pass over the game's seek pool, unless another holds it (workers/janitor.py)."""
    global _service, _tournaments, _pair_seeks
    _service, _tournaments, _pair_seeks = service, tournaments, pair_seeks


def play_bot_turn(match_id: str, seat: int, version: int) -> str:
    return _configured().play_bot_turn(match_id, seat, version)


def time_out(match_id: str, version: int) -> str:
    """A turn clock's timer: times out the seats whose deadline passed, if the match is still at `version`."""
    return _configured().time_out(match_id, version)


def _configured() -> MatchService:
    if _service is None:
        raise RuntimeError("this worker was not configured: start it with `python -m bootstrap.worker`")
    return _service


def advance_tournament(tournament_id: str, version: int) -> str:
    if _tournaments is None:
        raise RuntimeError("this worker was not configured: start it with `python -m bootstrap.worker`")
    return _tournaments.advance(tournament_id, version)


def pair_seeks(game: str) -> dict | None:
    """A pairing pass nudged by a seek that arrived: the pass's counts, or None if another pass held the pool."""
    if _pair_seeks is None:
        raise RuntimeError("this worker was not configured: start it with `python -m bootstrap.worker`")
    return _pair_seeks(game)
