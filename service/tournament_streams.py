"""Stream a tournament: each event of its log as it is appended (all public), and after each run of events the
tournament document (as GET /v1/tournaments/<id> shows it), until it is finished. Resuming after version N gives
exactly the events after N. The frames are service.streams.Frame, written by api/streams.py as SSE or NDJSON."""
from collections.abc import Iterator

from domain import tournament
from service.errors import NotFound
from service.hub import Hub
from service.repository import tournament_key
from service.streams import Frame, log_frames
from service.tournaments import TournamentService


class TournamentStreams:
    def __init__(self, tournaments: TournamentService, hub: Hub, keep_alive_seconds: float):
        self._tournaments = tournaments
        self._hub = hub
        self._keep_alive = keep_alive_seconds

    def open(self, tournament_id: str, after: int | None = None) -> Iterator[Frame | None]:
        """Frames after version `after` (default: now, the document first); None is a keep-alive."""
        state, _ = self._tournaments.state(tournament_id)
        if after is not None and after > state["version"]:
            raise NotFound("version_not_found", f"this tournament is at version {state['version']}, "
                                                f"not yet at {after}: resume after a version you were sent")
        return self._frames(tournament_id, state, state["version"] if after is None else after)

    def _frames(self, tournament_id: str, state: dict, after: int) -> Iterator[Frame | None]:
        return log_frames(self._hub, tournament_key(tournament_id), state, after, self._keep_alive,
                          tournament.evolve_all, lambda _, events: [Frame(e["version"], e["type"], e) for e in events],
                          lambda _: self._document(tournament_id), lambda now: now["status"] == tournament.FINISHED)

    def _document(self, tournament_id: str) -> Frame:
        _, document = self._tournaments.state(tournament_id)
        return Frame(document["version"], "tournament", {"type": "tournament", **document})
