"""Deadlines: a turn clock's next deadline, or pending invitations' expiry (docs/clocks.md, docs/challenges.md). It
is noted before the append (a crash after it leaves it to the janitor), forgotten after an append that leaves none,
and its timer scheduled after the append; the janitor times out the matches whose noted deadline passed (`overdue`)."""
from collections.abc import Callable

from domain import match
from eventstore.base import EventStore, Head
from service.errors import NotFound
from service.matches.reactions import Change
from service.ports import TurnTimers

OVERDUE_BATCH = 1000  # passed deadlines looked at per janitor pass, earliest first


class Deadlines:
    def __init__(self, store: EventStore, timers: TurnTimers):
        self._store = store
        self._timers = timers

    def before(self, change: Change) -> None:
        deadline = next_deadline(change.after)
        if deadline is not None:
            self._store.note_deadline(change.match_id, deadline)

    def after(self, change: Change, head: Head) -> None:
        deadline = next_deadline(change.after)
        if deadline is not None:
            self._timers.schedule(change.match_id, head.version, deadline)
        elif change.after.get("clock") is not None or (change.before and next_deadline(change.before) is not None):
            self._store.note_deadline(change.match_id, None)  # after: a refused append must not lose the last one


def overdue(store: EventStore, load: Callable[[str], dict], now: float, grace: float) -> list[tuple[str, int]]:
    """(match, version) of the matches whose deadline passed more than `grace` seconds ago: the timers lost with a
    crashed worker or a Redis restart. Forgets the matches with no deadline any more and notes again the deadline
    of those whose noted one was not current (a lost race of two notes). `load(match_id)`: its state now."""
    found = []
    for match_id, noted in store.deadlines_passed(now - grace, OVERDUE_BATCH):
        try:
            state = load(match_id)
        except NotFound:
            state = None
        deadline = next_deadline(state) if state else None
        if state and deadline is not None and deadline < now - grace:
            found.append((match_id, state["version"]))
        elif deadline != noted:
            store.note_deadline(match_id, deadline)
    return found


def next_deadline(state: dict) -> float | None:
    """The earliest deadline of the match, in seconds since the epoch: a seat's turn clock, or its pending
    invitations' expiry; None if there is none."""
    deadlines = list(match.deadlines(state).values())
    invitations = match.invitation_deadline(state)
    deadlines += [invitations] if invitations is not None else []
    return min(deadlines) / 1000 if deadlines else None
