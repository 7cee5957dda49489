"""The jobs a worker runs. The worker's entry point (bootstrap/worker.py) hands them the service."""
from service.matches import MatchService
from service.tournaments import TournamentService

_service: MatchService | None = None
_tournaments: TournamentService | None = None


def configure(service: MatchService, tournaments: TournamentService | None = None) -> None:
    global _service, _tournaments
    _service, _tournaments = service, tournaments


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
