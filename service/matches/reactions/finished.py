"""A match that finishes: it is listed among the finished matches (the streams of exports read those listings), its
snapshots and idempotency records expire (its log and meta are the audit and stay), its log is archived once
ARCHIVE_AFTER has passed (the janitor's `archive_due`), and its tournament advances.

It is listed before the append that finishes it, at that moment: a crash right after the append leaves nothing to make
up, and a listing whose append never happened is skipped by the readers (the meta says the match is not finished) and
moved to the later time when the match does finish (docs/archive.md)."""
from collections.abc import Callable

from domain import match
from eventstore.base import EventStore, Head
from service.matches.reactions import Change
from service.ports import Metrics, TournamentScheduler
from service.repository import tournament_key

ARCHIVE_BATCH = 100  # finished matches archived per pass, the longest due first


class Finished:
    def __init__(self, store: EventStore, tournaments: TournamentScheduler, metrics: Metrics,
                 clock: Callable[[], float], keep_extras: int, archive_after: float):
        """`keep_extras`: seconds a finished match keeps its snapshots and idempotency records (a late retry of the
        last move still gets its first answer); `archive_after`: seconds until its log is archived (0: never)."""
        self._store = store
        self._tournaments = tournaments
        self._metrics = metrics
        self._clock = clock
        self._keep_extras = keep_extras
        self._archive_after = archive_after

    def before(self, change: Change) -> None:
        if change.after["status"] == match.FINISHED:
            self._store.list_finished(change.match_id, int(change.at * 1000),
                                      finished_listings(change.after, change.meta.get("tournament")))

    def after(self, change: Change, head: Head) -> None:
        if change.after["status"] != match.FINISHED:
            return
        self._store.expire_extras(change.match_id, self._keep_extras)
        if self._archive_after:
            self._store.archive_when(change.match_id, self._clock() + self._archive_after)
        if change.meta.get("tournament"):
            self._metrics.tournament_match_finished()
            self._advance(change.meta["tournament"])

    def _advance(self, tournament_id: str) -> None:
        """Schedules the tournament's advance from its version now (service/tournaments.py records the match)."""
        meta = self._store.meta(tournament_key(tournament_id))
        if meta:
            self._tournaments.schedule(tournament_id, int(meta["version"]))


def archive_due(store: EventStore, now: float) -> list[str]:
    """Archive the finished matches whose time has come (a batch, the longest due first); their ids."""
    return [match_id for match_id in store.archives_due(now, ARCHIVE_BATCH) if store.archive(match_id)]


def finished_listings(state: dict, tournament: str | None) -> list[str]:
    """The listings of finished matches a match is in: all of them, its game's, rated or not (alone and with its game),
    each seated account's and its tournament's."""
    game, rated = state["game"], int(bool(state.get("rated")))
    accounts = sorted({seat["account"] for seat in state["seats"] if seat.get("account")})
    return ["all", f"game:{game}", f"rated:{rated}", f"game:{game}:rated:{rated}",
            *(f"account:{account}" for account in accounts), *([f"tournament:{tournament}"] if tournament else [])]


def listing_of(game: str | None, rated: bool | None) -> str:
    """The listing of every finished match of `game` (None: any), rated or not as `rated` says (None: both)."""
    parts = ([f"game:{game}"] if game else []) + ([f"rated:{int(rated)}"] if rated is not None else [])
    return ":".join(parts) or "all"
