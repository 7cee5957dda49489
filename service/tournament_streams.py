"""Stream a tournament: each event of its log as it is appended (all public), and after each run of events the
tournament document (as GET /v1/tournaments/<id> shows it), until it is finished. Resuming after version N gives
exactly the events after N. The frames are service.streams.Frame, written by api/streams.py as SSE or NDJSON."""
from collections.abc import Iterator

from domain import tournament
from service.errors import NotFound
from service.hub import Hub
from service.repository import tournament_key
from service.streams import Frame
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
        if after == state["version"]:
            yield self._document(tournament_id)
            if state["status"] == tournament.FINISHED:
                return
        with self._hub.follow(tournament_key(tournament_id), after) as follower:
            while True:
                events = follower.next(self._keep_alive)
                if not events:
                    yield None
                    continue
                for event in events:
                    yield Frame(event["version"], event["type"], event)
                document = self._document(tournament_id)
                yield document
                if document.data["status"] == tournament.FINISHED:
                    return

    def _document(self, tournament_id: str) -> Frame:
        _, document = self._tournaments.state(tournament_id)
        return Frame(document["version"], "tournament", {"type": "tournament", **document})
