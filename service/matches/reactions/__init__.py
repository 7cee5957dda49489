"""What follows a saved change of a match, each in its own module: the listing by status, the bot turns awaited,
the clock's deadlines, and what a finished match sets off (retention, archiving, its tournament).

The store's indexes and notes cannot share the append's Lua script (other Redis Cluster slots), so each reaction
has two halves around the append: `before` notes what a crash right after the append must not lose (the janitor
reads those notes: each module keeps its janitor query beside its reaction), `after` does what needs the append
to have happened (it never runs for a refused append). Every command's change goes through the same reactions.
"""
from dataclasses import dataclass
from typing import Protocol

from domain import match
from eventstore.base import Head


@dataclass(frozen=True)
class Change:
    """A change of a match about to be appended: the state before it (empty for a match being created), the state
    it makes, the meta before it, and when (seconds since the epoch)."""
    match_id: str
    before: dict
    after: dict
    meta: dict
    at: float


class Reaction(Protocol):
    def before(self, change: Change) -> None:
        """Notes, before the append, what the janitor must find if the process dies right after it."""

    def after(self, change: Change, head: Head) -> None:
        """Acts once the change is appended, at `head`."""


def finishes(change: Change) -> bool:
    """The change ends the match (it was not finished before)."""
    return change.after["status"] == match.FINISHED and (change.before or {}).get("status") != match.FINISHED
