"""A service wired to the in-memory store, with bots that play at once (after the command that woke them)."""
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.matches import MatchService
from service.tournaments import TournamentService


class InlineBots:
    """Runs scheduled bot turns right away, one after another, never recursively."""

    def __init__(self):
        self.service = None
        self.scheduled: list[tuple[str, int, int]] = []
        self._draining = False

    def requeue(self, match_id, seat, version):
        self.schedule(match_id, seat, version)

    def schedule(self, match_id, seat, version):
        self.scheduled.append((match_id, seat, version))
        if self._draining or self.service is None:
            return
        self._draining = True
        try:
            while self.scheduled:
                self.service.play_bot_turn(*self.scheduled.pop(0))
        finally:
            self._draining = False


class RecordedBots:
    """Remembers what was scheduled and plays nothing."""

    def __init__(self):
        self.scheduled: list[tuple[str, int, int]] = []

    def schedule(self, match_id, seat, version):
        self.scheduled.append((match_id, seat, version))

    def requeue(self, match_id, seat, version):
        self.schedule(match_id, seat, version)


def make_service(bots=None, snapshot_every=25, store=None, accounts=None, tournaments=None, **options):
    """`accounts`: an AccountService to share with the app (default: a new one on the in-memory store);
    `tournaments`: the TournamentScheduler its tournament matches tell when they finish; `options`: MatchService's."""
    bots = bots if bots is not None else RecordedBots()
    accounts = accounts or AccountService(InMemoryAccountStore())
    service = MatchService(store or InMemoryEventStore(), bots, snapshot_every=snapshot_every, accounts=accounts,
                           **({"tournaments": tournaments} if tournaments is not None else {}), **options)
    if isinstance(bots, InlineBots):
        bots.service = service
    return service


class InlineTournaments:
    """Runs scheduled tournament advances right away, one after another, never recursively (a match finished
    by inline bots during an advance schedules the next one, run once that advance returns)."""

    def __init__(self):
        self.service = None
        self.scheduled: list[tuple[str, int]] = []
        self.outcomes: list[str] = []
        self._draining = False

    def schedule(self, tournament_id, version):
        self.scheduled.append((tournament_id, version))
        if self._draining or self.service is None:
            return
        self._draining = True
        try:
            while self.scheduled:
                self.outcomes.append(self.service.advance(*self.scheduled.pop(0)))
        finally:
            self._draining = False


class RecordedTournaments:
    """Remembers what was scheduled and advances nothing."""

    def __init__(self):
        self.scheduled: list[tuple[str, int]] = []

    def schedule(self, tournament_id, version):
        self.scheduled.append((tournament_id, version))


def make_tournaments(jobs=None, bots=None, store=None, max_matches=1000, accounts=None):
    """A TournamentService over a match service on the same in-memory store (bots inline by default)."""
    jobs = jobs if jobs is not None else RecordedTournaments()
    store = store or InMemoryEventStore()
    matches = make_service(bots if bots is not None else InlineBots(), store=store, accounts=accounts,
                           tournaments=jobs)
    tournaments = TournamentService(store, matches, jobs, max_matches, accounts=matches._accounts)
    if isinstance(jobs, InlineTournaments):
        jobs.service = tournaments
    return tournaments
