"""Stream an aggregate's log to a caller, one way for both (log_frames): a match (MatchStreams), each event as it is
appended, redacted as GET .../events redacts it (the same `present`), and after each run of events the match
document as of its last one (as GET /v1/matches/<id> shows it, plus the caller's legal moves), until the match is
over; a tournament (TournamentStreams), each event of its log (all public) and after each run of events the
tournament document (as GET /v1/tournaments/<id> shows it), until it is finished. Resuming after version N gives
exactly the events after N. The frames are transport-neutral: api/streams.py writes them as SSE or NDJSON.
"""
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from domain import match, tournament
from service.errors import NotFound
from service.live.hub import Hub
from service.matches import MatchService, document, owed_moves, present
from service.repository import tournament_key
from service.tournaments import TournamentService


@dataclass(frozen=True)
class Frame:
    version: int  # the version the caller has seen once it has this frame: resume after it
    type: str     # "match" for the match document, else the event's type
    data: dict    # the JSON object the frame carries; its "type" is `type`


class MatchStreams:
    def __init__(self, matches: MatchService, hub: Hub, keep_alive_seconds: float):
        self._matches = matches
        self._hub = hub
        self._keep_alive = keep_alive_seconds

    def open(self, match_id: str, token: str | None, after: int | None = None) -> Iterator[Frame | None]:
        """The frames of the match for the caller's seat (a spectator without a token) after version
        `after` (default: now, so the match document comes first). None is a keep-alive: nothing happened
        for `keep_alive_seconds`. Checks the match, the token and `after` here, before any frame."""
        state, seat = self._matches.state_for(match_id, token)
        return self._frames(match_id, state, seat, resume_point("match", state["version"], after))

    def _frames(self, match_id: str, state: dict, seat: int | None, after: int) -> Iterator[Frame | None]:
        def presented(state: dict, events: list[dict]) -> list[Frame]:
            # once the match is over its whole log is public, the batch that ended it included
            finished = state["status"] == match.FINISHED
            return [Frame(e["version"], e["type"], present(state, finished, e, seat)) for e in events]

        return log_frames(self._hub, match_id, state, after, self._keep_alive, match.evolve_all, presented,
                          lambda now: self._document(match_id, now, seat), lambda now: now["status"] == match.FINISHED)

    @staticmethod
    def _document(match_id: str, state: dict, seat: int | None) -> Frame:
        return Frame(state["version"], "match", {"type": "match", **document(match_id, state, seat),
                                                 "legal_moves": owed_moves(state, seat)})


class TournamentStreams:
    def __init__(self, tournaments: TournamentService, hub: Hub, keep_alive_seconds: float):
        self._tournaments = tournaments
        self._hub = hub
        self._keep_alive = keep_alive_seconds

    def open(self, tournament_id: str, after: int | None = None) -> Iterator[Frame | None]:
        """Frames after version `after` (default: now, the document first); None is a keep-alive."""
        state, _ = self._tournaments.state(tournament_id)
        return self._frames(tournament_id, state, resume_point("tournament", state["version"], after))

    def _frames(self, tournament_id: str, state: dict, after: int) -> Iterator[Frame | None]:
        return log_frames(self._hub, tournament_key(tournament_id), state, after, self._keep_alive,
                          tournament.evolve_all, lambda _, events: [Frame(e["version"], e["type"], e) for e in events],
                          lambda _: self._document(tournament_id), lambda now: now["status"] == tournament.FINISHED)

    def _document(self, tournament_id: str) -> Frame:
        _, document = self._tournaments.state(tournament_id)
        return Frame(document["version"], "tournament", {"type": "tournament", **document})


def resume_point(kind: str, version: int, after: int | None) -> int:
    """The version a stream of a `kind` of log at `version` starts after: `after`, which the log must have reached,
    or (None) now."""
    if after is not None and after > version:
        raise NotFound("version_not_found", f"this {kind} is at version {version}, not yet at {after}: "
                                            "resume after a version you were sent")
    return version if after is None else after


def log_frames(hub: Hub, key: str, state: dict, after: int, keep_alive: float,
               fold: Callable[[dict, list[dict]], dict], frames_of: Callable[[dict, list[dict]], list[Frame]],
               document: Callable[[dict], Frame], finished: Callable[[dict], bool]) -> Iterator[Frame | None]:
    """The frames of an aggregate's log (a match's, a tournament's) after version `after`, from `state` folded up to
    its version: the document first when following from now; then each run of events as `frames_of` shows it, and
    the document once the stream has caught up with the log, until the aggregate is `finished`. None is a
    keep-alive: nothing happened for `keep_alive` seconds."""
    if after == state["version"]:
        yield document(state)
        if finished(state):
            return
    with hub.follow(key, after) as follower:
        while True:
            events = follower.next(keep_alive)
            if not events:
                yield None
                continue
            # fold only what the state has not seen (a resume reads events the loaded state holds)
            state = fold(state, [e for e in events if e["version"] > state["version"]])
            yield from frames_of(state, events)
            if follower.version == state["version"]:
                yield document(state)
                if finished(state):
                    return
