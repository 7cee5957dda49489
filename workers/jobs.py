"""The jobs a worker runs. The worker's entry point (bootstrap/worker.py) hands them the service."""
from service.matches import MatchService

_service: MatchService | None = None


def configure(service: MatchService) -> None:
    global _service
    _service = service


def play_bot_turn(match_id: str, seat: int, version: int) -> str:
    return _configured().play_bot_turn(match_id, seat, version)


def time_out(match_id: str, version: int) -> str:
    """A turn clock's timer: times out the seats whose deadline passed, if the match is still at `version`."""
    return _configured().time_out(match_id, version)


def _configured() -> MatchService:
    if _service is None:
        raise RuntimeError("this worker was not configured: start it with `python -m bootstrap.worker`")
    return _service
