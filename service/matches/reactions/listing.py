"""The listing of matches by status (GET /v1/matches?status=): kept a superset of the truth, listed under the new
status before the append and unlisted from the old one after it; a listing checks each entry against the meta."""
from eventstore.base import Catalog, Head
from service.matches.reactions import Change


class StatusListing:
    def __init__(self, store: Catalog):
        self._store = store

    def before(self, change: Change) -> None:
        if change.after["status"] != change.meta.get("status"):
            self._store.list_status(change.match_id, change.after["game"], change.after["status"])

    def after(self, change: Change, head: Head) -> None:
        was = change.meta.get("status")
        if was is not None and change.after["status"] != was:
            self._store.unlist_status(change.match_id, change.after["game"], was)
