"""A finished match's head hash goes into the transparency log (service/transparency.py). Noted due before the append
that ends the match, appended after it: a process that dies in between leaves the note, which the janitor's
`record_due` reads; a match's leaf is appended once, however often asked (the store looks it up first)."""
from eventstore.base import Head
from service.matches.reactions import Change, finishes
from service.ports import Transparency


class Logged:
    def __init__(self, log: Transparency):
        self._log = log

    def before(self, change: Change) -> None:
        if finishes(change):
            self._log.note_due(change.match_id, change.at)

    def after(self, change: Change, head: Head) -> None:
        if finishes(change):
            self._log.record(change.match_id, head.hash)
