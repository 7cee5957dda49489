"""What the match's commands and reads share: the wiring, the repository of matches, and this moment."""
import threading
import time

from domain import match
from eventstore.base import EventStore
from eventstore.clock import utc_at
from service.accounts import AccountService
from service.errors import NotFound
from service.matches.reactions import Reaction
from service.matches.reactions.bot_turns import BotTurns
from service.matches.reactions.clocks import Deadlines
from service.matches.reactions.finished import Finished
from service.matches.reactions.listing import StatusListing
from service.matches.reactions.rated import Rated
from service.matches.reactions.transparency import Logged
from service.ports import (BotScheduler, Ladders, Metrics, NoLadders, NoMetrics, NoQuota, NoTimers, NoTournaments,
                           NoTransparency, Quota, TournamentScheduler, Transparency, TurnTimers)
from service.repository import Current, Repository

RECENT_MATCHES = 500  # folded states remembered per process (service/repository.py), 25-60 KB each
CHALLENGE_EXPIRY = 600  # seconds an invitation waits for its answer before the match is canceled


class MatchBase:
    def __init__(self, store: EventStore, bots: BotScheduler, snapshot_every: int = 25, clock=time.time,
                 sleep=time.sleep, keep_finished_extras: int = 86400, accounts: AccountService | None = None,
                 recent_matches: int = RECENT_MATCHES, archive_after: float = 0,
                 timers: TurnTimers | None = None, defer=None, tournaments: TournamentScheduler = NoTournaments(),
                 challenge_expiry: float = CHALLENGE_EXPIRY, invitations: Quota = NoQuota(),
                 metrics: Metrics = NoMetrics(), ladders: Ladders = NoLadders(),
                 transparency: Transparency = NoTransparency()):
        """`keep_finished_extras`: seconds a finished match keeps its snapshots and idempotency records
        (a late retry of the last move still gets its first answer); the log and meta are kept.
        `accounts`: None serves no accounts (seat tokens only), as a worker that only plays bots needs.
        `recent_matches`: how many matches' folded states this process remembers (0: none).
        `archive_after`: seconds after it finished that a match's log is archived (compressed out of the hot
        keys, read back transparently: docs/deployment.md); 0: never.
        `timers`: where a turn clock's next deadline is scheduled (default: nowhere, the janitor's pass only).
        `defer(seconds, call)`: runs `call` that much later without holding the caller (a timer fired
        early by RQ's whole-second scheduling; default: a thread timer, lost with its process, which the
        janitor makes up for).
        `tournaments`: told when a match of a tournament finishes, so the tournament advances.
        `challenge_expiry`: seconds an invited account has to accept before the match is canceled.
        `invitations`: the quota of matches inviting other accounts, per inviting account.
        `metrics`: where moves, appends, bot turns and timeouts are counted.
        `ladders`: where a rated match is rated when it finishes (service/ladders.py).
        `transparency`: where a finished match's head hash is logged (service/transparency.py)."""
        self._store = store
        self._accounts = accounts
        self._bots = bots
        self._clock = clock
        self._sleep = sleep
        self._timers = timers or NoTimers()
        self._defer = defer or _in_a_thread
        self._challenge_expiry = challenge_expiry
        self._invitations = invitations
        self._metrics = metrics
        self._matches = Repository(store, match.evolve_all, _missing, snapshot_every=snapshot_every,
                                   remembered=recent_matches)
        self._reactions: list[Reaction] = [
            StatusListing(store), BotTurns(store, bots), Deadlines(store, self._timers),
            Finished(store, tournaments, metrics, clock, keep_finished_extras, archive_after), Rated(ladders),
            Logged(transparency)]

    def _load(self, match_id: str, upto: int | None = None) -> Current:
        """The match at `upto` (default: now)."""
        return self._matches.load(match_id, upto)

    def _meta(self, match_id: str) -> dict:
        return self._matches.meta(match_id)

    def _stamp(self) -> str:
        """This moment as the time of the events about to be appended: a turn clock folds the same time."""
        return utc_at(self._clock())


def _missing(match_id: str) -> NotFound:
    return NotFound("match_not_found", f"no match {match_id!r}")


def _in_a_thread(seconds: float, call) -> None:
    timer = threading.Timer(seconds, call)
    timer.daemon = True
    timer.start()

