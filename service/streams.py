"""Stream a match to a caller: each event as it is appended, redacted as GET .../events redacts it (the
same `present`), and after each run of events the match document as of its last one (as GET
/v1/matches/<id> shows it, plus the caller's legal moves), until the match is over. Resuming after
version N gives exactly the events after N. The frames are transport-neutral: api/streams.py writes them
as SSE or NDJSON.
"""
from collections.abc import Iterator
from dataclasses import dataclass

from domain import match
from service.errors import NotFound
from service.hub import Hub
from service.matches import MatchService, document, present


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
        if after is not None and after > state["version"]:
            raise NotFound("version_not_found", f"this match is at version {state['version']}, "
                                                f"not yet at {after}: resume after a version you were sent")
        return self._frames(match_id, state, seat, state["version"] if after is None else after)

    def _frames(self, match_id: str, state: dict, seat: int | None, after: int) -> Iterator[Frame | None]:
        if after == state["version"]:
            yield self._document(match_id, state, seat)
            if state["status"] == match.FINISHED:
                return
        with self._hub.follow(match_id, after) as follower:
            while True:
                events = follower.next(self._keep_alive)
                if not events:
                    yield None
                    continue
                # fold only what the state has not seen (a resume reads events the loaded state holds)
                state = match.evolve_all(state, [e for e in events if e["version"] > state["version"]])
                # once the match is over its whole log is public, the batch that ended it included
                finished = state["status"] == match.FINISHED
                for event in events:
                    yield Frame(event["version"], event["type"], present(state["game"], finished, event, seat))
                if follower.version == state["version"]:
                    yield self._document(match_id, state, seat)
                    if finished:
                        return

    @staticmethod
    def _document(match_id: str, state: dict, seat: int | None) -> Frame:
        owes = seat is not None and seat in match.to_act(state) and not match.played_by_server(state, seat)
        legal = match.legal_moves(state, seat) if owes else []
        return Frame(state["version"], "match", {"type": "match", **document(match_id, state, seat),
                                                 "legal_moves": legal})
