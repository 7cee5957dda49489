"""A service wired to the in-memory store, with bots that play at once (after the command that woke them)."""
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.matches import MatchService


class InlineBots:
    """Runs scheduled bot turns right away, one after another, never recursively."""

    def __init__(self):
        self.service = None
        self.scheduled: list[tuple[str, int, int]] = []
        self._draining = False

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


def make_service(bots=None, snapshot_every=25, store=None, accounts=None):
    """`accounts`: an AccountService to share with the app (default: a new one on the in-memory store)."""
    bots = bots if bots is not None else RecordedBots()
    accounts = accounts or AccountService(InMemoryAccountStore())
    service = MatchService(store or InMemoryEventStore(), bots, snapshot_every=snapshot_every, accounts=accounts)
    if isinstance(bots, InlineBots):
        bots.service = service
    return service
