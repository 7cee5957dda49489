"""A match that finishes: its snapshots and idempotency records expire (its log and meta are the audit and stay),
its log is archived once ARCHIVE_AFTER has passed (the janitor's `archive_due`), and its tournament advances."""
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
        return None  # nothing to note: a finished match's meta says so in the append itself

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
