"""An account's turn feed: the account's matches as they start and end, every turn it owes, and the invitations
it is sent (`challenge`, and `challenge_canceled` when one is declined or expires), live.

Everything the feed says is read from the matches' metas, which each append writes in the same step as
the events (one Lua script in Redis): no side write that a crash between two writes could lose. The
feed learns of a change by watching the account's matches' logs through the hub (one reader per
process), and learns of a new match of the account by the account's count of noted matches, which the
service writes BEFORE the match's append (so a match the account is seated in is always noted). It counts
them when the account's index of matches moves (in Redis the noting also appends to the log `noted_log`,
which the hub follows like a match's), and every `poll_seconds` besides, should a wake-up be missed. A
connection starts with the account's open matches (and, when resumed, the matches noted since), so a
turn owed is never lost: a client that reconnects is told every turn it owes now. A resumed connection was told
before of the matches noted up to its position, so it is not told again that they started, nor that it is
`synced`: only what it may have missed (the turns owed, the matches noted since).

The frames are transport-neutral (service/live/streams.py's Frame): api/feed.py writes them as SSE or NDJSON.
A frame's `version` is the feed's position, the number of the account's matches it has caught up with.
"""
import json
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from domain import match
from eventstore.accounts import noted_log
from eventstore.base import Log
from service.accounts import AccountService
from service.errors import NotFound
from service.live.hub import Hub, Watch
from service.live.streams import Frame
from service.matches import MatchService, account_seat, invitation_document
from service.repository import TOURNAMENT

POLL_SECONDS = 1.0  # how often a feed counts the account's matches, woken or not (the fallback of the wake-up)
CATCH_UP_BATCH = 100  # matches noted since the resume point read per round trip


# (match id, seat, version the meta shows) -> the your_turn's version and what else it carries, or None when
# the seat is no longer to act
TurnOf = Callable[[str, int, int], dict | None]


def _bare_turn(match_id: str, seat: int, version: int) -> dict:
    return {"version": version}


@dataclass
class _Told:
    """What a connection has told of one match."""
    started: bool = False
    challenged: bool = False
    turn: int = 0  # the version of the last your_turn sent (0: none)


class AccountFeeds:
    def __init__(self, accounts: AccountService, matches: MatchService, store: Log, hub: Hub,
                 keep_alive_seconds: float, poll_seconds: float = POLL_SECONDS):
        self._accounts = accounts
        self._matches = matches
        self._store = store
        self._hub = hub
        self._keep_alive = keep_alive_seconds
        self._poll = poll_seconds

    def open(self, credential: str | None, after: int | None = None, views: bool = False) -> Iterator[Frame | None]:
        """The feed of the account whose key `credential` is (None frames are keep-alives). First every
        active match of the account (`match_started`) and every turn it owes (`your_turn`), then `synced`;
        resumed `after` a position sent before, every turn it owes and the matches noted since (with their
        `match_finished` if they are over), and neither `match_started` of the matches noted before nor
        `synced`, which it was told then; then each change as it happens. `views`: each `your_turn` also
        carries the seat's view and legal moves (so a bot needs no read a turn). Checks the key and `after`
        before any frame."""
        account = self._accounts.authenticate(credential)
        noted = self._accounts.noted(account["id"])
        if after is not None and after > noted:
            raise NotFound("position_not_found", f"this feed is at position {noted}, not yet at {after}: "
                                                 "resume after a position you were sent")
        return self._frames(account["id"], noted, after, self._matches.turn_of if views else _bare_turn)

    def _frames(self, account_id: str, noted: int, after: int | None, turn: TurnOf) -> Iterator[Frame | None]:
        with self._hub.watch() as watch:
            feed = _Feed(account_id, self._store, watch, turn)
            resumed = after is not None
            fresh = self._noted_between(account_id, noted if after is None else after, noted)
            invited = [ref for ref in self._accounts.invitation_ids(account_id) if not ref.startswith(TOURNAMENT)]
            pending = self._accounts.open_match_ids(account_id) + invited
            known = sorted(set(pending) - set(fresh))
            news = feed.news(known, announced=resumed) + feed.news(fresh, new=True)
            yield from _framed(news if resumed else news + [("synced", {})], noted)
            index = noted_log(account_id)
            watch.add({index: noted})
            position, polled, spoke = noted, time.monotonic(), time.monotonic()
            while True:
                moved = watch.wait(max(0.0, min(polled + self._poll, spoke + self._keep_alive) - time.monotonic()))
                news = feed.news([log for log in moved if log != index])
                if index in moved or time.monotonic() >= polled + self._poll:
                    polled, now = time.monotonic(), self._accounts.noted(account_id)
                    news += feed.news(self._noted_between(account_id, position, now), new=True)
                    position = now
                if news:
                    spoke = time.monotonic()
                    yield from _framed(news, position)
                elif time.monotonic() - spoke >= self._keep_alive:
                    spoke = time.monotonic()
                    yield None

    def _noted_between(self, account_id: str, after: int, upto: int) -> list[str]:
        """The matches noted at positions after < position <= upto, oldest first."""
        found: list[str] = []
        while upto > after:
            batch = self._accounts.match_ids(account_id, upto + 1, min(CATCH_UP_BATCH, upto - after))
            found[:0] = [match_id for position, match_id in reversed(batch) if position > after]
            upto = min([position for position, _ in batch], default=after + 1) - 1
        return found


class _Feed:
    """One connection's view of the account's matches: which it watches and what it told of each."""

    def __init__(self, account_id: str, store: Log, watch: Watch, turn: TurnOf):
        self._account_id = account_id
        self._store = store
        self._watch = watch
        self._turn = turn
        self._told: dict[str, _Told] = {}

    def news(self, match_ids: list[str], new: bool = False, announced: bool = False) -> list[tuple[str, dict]]:
        """(type, data) of what these matches show that was not told yet; `new`: the client never heard of
        them, so a match of them already over is told, started and finished; `announced`: the client was told
        before that those active now had started."""
        news = []
        for match_id, meta in zip(match_ids, self._store.metas(match_ids) if match_ids else []):
            news += self._news_of(match_id, meta, new, announced)
        return news

    def _news_of(self, match_id: str, meta: dict | None, new: bool, announced: bool) -> list[tuple[str, dict]]:
        if not meta or "status" not in meta:  # noted, its creation not appended yet (or lost by a crash)
            return self._keep(match_id, 0)
        seat, status, told = account_seat(meta, self._account_id), meta["status"], self._told.get(match_id)
        if status == match.WAITING:  # watched while the account holds, or may take again, a seat
            return self._challenge(match_id, meta, seat) + self._keep(match_id, int(meta["version"]))
        if seat is None or (status == match.FINISHED and told is None and not new):
            self._forget(match_id)
            return []
        told = told or _Told(started=announced)
        canceled = json.loads(meta["result"]).get("canceled") if status == match.FINISHED else None
        if canceled:
            self._forget(match_id)
            return [("challenge_canceled", {"match": match_id, "seat": seat, "reason": canceled["reason"]})]
        news = []
        if not told.started:
            told.started = True
            news.append(("match_started", {"match": match_id, "game": meta["game"], "seat": seat}))
        if status == match.FINISHED:
            self._forget(match_id)
            return news + [("match_finished", {"match": match_id, "seat": seat, "result": json.loads(meta["result"])})]
        version = int(meta["version"])
        if seat in json.loads(meta["to_act"]) and version > told.turn:
            turn = self._turn(match_id, seat, version)
            if turn is not None and turn["version"] > told.turn:
                told.turn = turn["version"]
                news.append(("your_turn", {"match": match_id, "seat": seat, "game": meta["game"], **turn}))
        self._told[match_id] = told
        return news + self._keep(match_id, version)

    def _challenge(self, match_id: str, meta: dict, seat: int | None) -> list[tuple[str, dict]]:
        """The invitation of the account's seat, once a connection, while it awaits the account's answer."""
        told = self._told.setdefault(match_id, _Told())
        if seat is None or told.challenged or not json.loads(meta["seats"])[seat].get("invited"):
            return []
        told.challenged = True
        return [("challenge", invitation_document(match_id, meta, seat))]

    def _keep(self, match_id: str, version: int) -> list:
        self._told.setdefault(match_id, _Told())
        self._watch.add({match_id: version})
        return []

    def _forget(self, match_id: str) -> None:
        self._told.pop(match_id, None)
        self._watch.drop(match_id)


def _framed(news: list[tuple[str, dict]], position: int) -> Iterator[Frame]:
    for kind, data in news:
        yield Frame(position, kind, {"type": kind, **data, "position": position})
