"""A rated match that finishes is rated on its ladder (service/ladders.py). Noted due before the append that ends
it, rated after: a process that dies in between leaves the note, which the janitor's `rate_due` reads; rating
twice is refused by the ladder's log itself (the match's id is the append's idempotency key)."""
from eventstore.base import Head
from eventstore.clock import utc_at
from service.matches.reactions import Change, finishes
from service.ports import Ladders


class Rated:
    def __init__(self, ladders: Ladders):
        self._ladders = ladders

    def before(self, change: Change) -> None:
        if _finishes_rated(change):
            self._ladders.note_due(change.match_id, change.at)

    def after(self, change: Change, head: Head) -> None:
        if _finishes_rated(change):
            self._ladders.rate(change.match_id, change.after, utc_at(change.at))


def _finishes_rated(change: Change) -> bool:
    return change.after.get("rated", False) and finishes(change)
