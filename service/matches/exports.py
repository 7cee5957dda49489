"""The finished matches as a data set (docs/archive.md): streams of their exports, every match's, an account's or a
tournament's, oldest first by when each finished, resumable after the last match received; and the listing of the
matches that finished before those listings existed.

A stream reads a page of its listing at a time and one match's log at a time, so what a request holds is a page of
ids and one export, however many matches it sends. It stops short of the last SETTLE_MS: a match is listed just before
the append that finishes it (reactions/finished.py), so a match listed then may not have finished yet, and a client
that resumes after the last match it got must still find it."""
import json
from collections.abc import Iterator
from dataclasses import dataclass

from domain import clock, match
from domain.games import get_game
from service.errors import NotFound, Unprocessable
from service.matches.queries import MatchQueries
from service.matches.reactions.finished import finished_listings, listing_of
from service.repository import tournament_key

PAGE = 100  # ids read from a listing at a time
SETTLE_MS = 10_000  # how long after it was listed a match surely has its finishing append, or never will
MOST_PER_REQUEST = 10_000  # matches one request streams at most; the client resumes after the last
RELIST_BATCH = 500  # finished matches of the catalog read at a time by `list_finished_matches`


@dataclass(frozen=True)
class Selection:
    """Which finished matches: of one account or one tournament (else all), of a game, rated or not, finished from
    `since` to before `until` (milliseconds since the epoch)."""
    game: str | None = None
    rated: bool | None = None
    account: str | None = None
    tournament: str | None = None
    since: int = 0
    until: int | None = None


class Exports(MatchQueries):
    def finished_exports(self, selection: Selection, after: str | None = None,
                         limit: int = MOST_PER_REQUEST) -> Iterator[dict]:
        """The exports of the selected finished matches, oldest first, after the match `after` if given, at most
        `limit`. Checks the selection at once (a bad one raises here, before anything is sent)."""
        listing = self._listing(selection)
        if selection.until is not None and selection.until <= selection.since:
            raise Unprocessable("empty_interval", "`until` must come after `since`")
        page = self._store.finished(listing, selection.since, after, PAGE)
        if page is None:
            raise Unprocessable("after_not_listed", "`after` names no finished match of this stream")
        until = round(self._clock() * 1000) - SETTLE_MS
        if selection.until is not None:
            until = min(until, selection.until)
        return self._exports(listing, selection, page, until, limit)

    def _exports(self, listing: str, selection: Selection, page: list[tuple[int, str]], until: int,
                 limit: int) -> Iterator[dict]:
        sent = 0
        while page:
            for (at, match_id), meta in zip(page, self._store.metas([m for _, m in page])):
                if at >= until:
                    return
                if meta and self._selected(match_id, meta, selection):
                    yield self._exported(match_id, meta, None)
                    sent += 1
                    if sent == limit:
                        return
            page = self._store.finished(listing, selection.since, page[-1][1], PAGE) or []

    def _selected(self, match_id: str, meta: dict, selection: Selection) -> bool:
        """Whether a listed match is finished (its listing may come from an append that did not happen, or not yet)
        and of the selected game and rating. Every match's listings are by game and rating already; an account's and
        a tournament's are not, and the rating is read from the log's first event there."""
        if meta.get("status") != match.FINISHED or selection.game not in (None, meta["game"]):
            return False
        if selection.rated is None or (selection.account is None and selection.tournament is None):
            return True
        return bool(self._store.read(match_id, upto=1)[0]["data"].get("rated")) == selection.rated

    def _listing(self, selection: Selection) -> str:
        """The listing the selection reads (its other filters are checked on each match); unknown names are 404."""
        if selection.game is not None:
            get_game(selection.game)
        if selection.account is not None:
            return f"account:{self._require_accounts().resolve(selection.account)['id']}"
        if selection.tournament is not None:
            if self._store.meta(tournament_key(selection.tournament)) is None:
                raise NotFound("tournament_not_found", f"no tournament {selection.tournament!r}")
            return f"tournament:{selection.tournament}"
        return listing_of(selection.game, selection.rated)

    def list_finished_matches(self) -> int:
        """Lists every finished match of the catalog among the finished matches, at the time of its match_finished
        event: for the matches that finished before those listings were kept (`python -m bootstrap.relist`).
        Listing a match again changes nothing. Returns how many it listed."""
        listed, before = 0, None
        while batch := self._store.matches(None, before, RELIST_BATCH, status=match.FINISHED):
            for (before, match_id), meta in zip(batch, self._store.metas([m for _, m in batch])):
                if meta and meta.get("status") == match.FINISHED:
                    self._relist(match_id, meta)
                    listed += 1
        return listed

    def _relist(self, match_id: str, meta: dict) -> None:
        version = int(meta["version"])
        created, finished = self._store.read(match_id, upto=1)[0], self._store.read(match_id, after=version - 1)[0]
        state = {"game": meta["game"], "rated": created["data"].get("rated"), "seats": json.loads(meta["seats"])}
        self._store.list_finished(match_id, clock.millis(finished["time"]),
                                  finished_listings(state, meta.get("tournament")))
