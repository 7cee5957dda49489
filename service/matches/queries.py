"""The match's reads: the caller's view of it now or at a version, its legal moves, its log, its replay steps, its
export and audit, the listings, and an account's matches and pending invitations. Nothing here writes but the
cleaning of an account's index of matches found finished."""
import json
from collections.abc import Callable

from domain import match
from domain.games import get_game
from eventstore.clock import utc_now
from service.audit import EXPORT_FORMAT, Verdict, verify_log
from service.errors import Forbidden, NotFound
from service.matches.callers import Callers, account_seat
from service.matches.documents import REMATCH, document, invitation_document, owed_moves, present, seats, summary
from service.repository import TOURNAMENT


class MatchQueries(Callers):
    def get(self, match_id: str, credential: str | None) -> dict:
        _, answer = self.tagged_get(match_id, credential)
        return answer()

    def tagged_get(self, match_id: str, credential: str | None) -> tuple[dict, Callable[[], dict]]:
        """A read of the match in one store call: its tag (as `tag` gives it) and how to build the answer,
        which a client whose copy is current (304) is spared. The load carries the meta and only the events
        after the version this process remembers (none, when that is current); tag and answer are of the
        same version."""
        current = self._load(match_id)
        seat = self._seat(current.meta, credential, required=False)
        tag = {"version": current.head.version, "head": current.head.hash, "seat": seat, **_rematch_tag(current.meta)}
        return tag, lambda: document(match_id, current.state, seat, current.meta.get(REMATCH))

    def state_for(self, match_id: str, credential: str | None) -> tuple[dict, int | None]:
        """The match's folded state and the caller's seat (None: a spectator), for a reader that follows the
        log from there and shows the caller only `document` and `present`."""
        current = self._load(match_id)
        return current.state, self._seat(current.meta, credential, required=False)

    def turn_of(self, match_id: str, seat: int, version: int) -> dict | None:
        """What a seat's turn feed tells with a `your_turn` announced at `version` (the meta's) when it carries
        views: the version the seat is to act at, its view and its legal moves, from the match as loaded (which
        may be newer); None when the seat is no longer to act."""
        state = self._load(match_id).state
        if state["version"] < version or seat not in match.to_act(state):
            return None
        return {"version": state["version"], "view": match.view(state, seat), "legal_moves": owed_moves(state, seat)}

    def legal_moves(self, match_id: str, credential: str | None) -> dict:
        current = self._load(match_id)
        seat = self._seat(current.meta, credential, required=True)
        return {"version": current.state["version"], "seat": seat,
                "moves": match.legal_moves(current.state, seat)}

    def tag(self, match_id: str, credential: str | None = None, seat_required: bool = False) -> dict:
        """What a read of this match depends on: where its log ends and who reads it. One meta read, no
        load, so a client whose copy is current can be told so without folding the log."""
        meta = self._meta(match_id)
        return {"version": int(meta["version"]), "head": meta["head"],
                "seat": self._seat(meta, credential, required=seat_required), **_rematch_tag(meta)}

    def events(self, match_id: str, credential: str | None, after: int = 0, limit: int | None = None) -> dict:
        """The log after version `after`, at most `limit` events; `next_after` is where the next page starts
        (None once the page reaches the end). Versions are 1, 2, ... with no gap, so a page is a range."""
        meta = self._meta(match_id)
        seat = self._seat(meta, credential, required=False)
        version = int(meta["version"])
        upto = version if limit is None else min(after + limit, version)
        events = self._store.read(match_id, after=after, upto=upto)
        return {"version": version, "next_after": upto if after < upto < version else None,
                "events": [present(meta, meta["status"] == match.FINISHED, e, seat) for e in events]}

    def state_at(self, match_id: str, credential: str | None, version: int, as_seat: int | None = None,
                 full: bool = False) -> dict:
        """The match as it was at `version`: the caller's view; once the match is finished, any seat's
        view (`as_seat`) or the full state (`full`) too."""
        loaded = self._load(match_id, upto=version)  # its meta is the match's now, whatever `version`
        meta, state = loaded.meta, loaded.state
        seat = self._seat(meta, credential, required=False)
        if not 1 <= version <= int(meta["version"]):
            raise NotFound("version_not_found", f"this match has versions 1 to {meta['version']}")
        if (full or as_seat is not None) and meta["status"] != match.FINISHED:
            raise Forbidden("match_not_finished", "other seats' views and the full state are public at the end")
        if as_seat is not None and not 0 <= as_seat < len(state["seats"]):
            raise NotFound("seat_not_found", f"this match has seats 0 to {len(state['seats']) - 1}")
        shown = document(match_id, state, seat if as_seat is None else as_seat, meta.get(REMATCH))
        if full:
            shown["full_state"] = state["game_state"]
        return shown

    def moves(self, match_id: str) -> dict:
        """The steps to replay a match by: every move so far with the versions around it. A move's events are
        its `moved` event and the game's events that follow up to the next `moved` (domain/match.py), so
        GET .../state?version=<at> is the table the move was made at and ?version=<version> shows its effect;
        `start` is the table as dealt, before the first move (None while seats are open)."""
        meta = self._meta(match_id)
        log = self._store.read(match_id)
        moved = [e for e in log if e["type"] == "moved"]
        ends = [e["version"] - 1 for e in moved[1:]] + [len(log)]
        steps = [{"at": e["version"] - 1, "version": end, "seat": e["data"]["seat"], "move": e["data"]["move"]}
                 for e, end in zip(moved, ends)]
        start = None if meta["status"] == match.WAITING else moved[0]["version"] - 1 if moved else len(log)
        return {"version": len(log), "start": start, "moves": steps}

    def export(self, match_id: str, credential: str | None) -> dict:
        """One self-contained document for `cardroom verify`: complete once the match is finished,
        redacted for the caller before."""
        meta = self._meta(match_id)
        return self._exported(match_id, meta, self._seat(meta, credential, required=False))

    def _exported(self, match_id: str, meta: dict, seat: int | None) -> dict:
        """The export of the match whose meta this is, for `seat` (None: a spectator)."""
        finished = meta["status"] == match.FINISHED
        events = self._store.read(match_id)
        created = events[0]["data"]
        return {"format": EXPORT_FORMAT, "match_id": match_id, "complete": finished, "exported_at": utc_now(),
                "exported_for": None if finished else seat, "game": created["game"],
                "options": created["options"], "seats": seats(json.loads(meta["seats"])),
                "commitment": created["commitment"], "seed_source": created["seed_source"],
                "events": events if finished else [present(meta, False, e, seat) for e in events]}

    def audit(self, match_id: str) -> dict:
        """The verifier run on the stored log; before the end with the server's secret seed, which it keeps."""
        meta = self._meta(match_id)
        events = self._store.read(match_id)
        verdict = verify_log(events, seed=meta["seed"], salt=meta["salt"]).as_dict()
        return {**verdict, "summary": Verdict(**verdict).summary()}

    def list_matches(self, game: str | None, status: str | None, cursor: int | None, limit: int) -> dict:
        """Reads the status index (or the catalog) and checks each entry against the meta, so an entry left
        under a former status by a crash is skipped, never shown."""
        if game is not None:
            get_game(game)
        found, before = [], cursor
        while True:
            batch = self._store.matches(game, before, limit, status=status)
            for (position, match_id), meta in zip(batch, self._store.metas([m for _, m in batch])):
                before = position
                if meta and (status is None or meta.get("status") == status):
                    found.append(summary(match_id, meta))
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < limit:
                return {"matches": found, "next_cursor": None}

    def account_matches(self, credential: str | None, status: str | None, cursor: int | None, limit: int) -> dict:
        """The matches of the caller's account, newest first, each with the account's seat; like
        list_matches, each entry is checked against the meta (a seat left, a crash before the append)."""
        account = self._require_accounts().authenticate(credential)
        return self.matches_of(account["id"], status, cursor, limit)

    def matches_of(self, account_id: str, status: str | None, cursor: int | None, limit: int) -> dict:
        """An account's matches as account_matches shows them: what an account's public page lists."""
        accounts = self._require_accounts()
        found, before = [], cursor
        while True:
            batch = accounts.match_ids(account_id, before, limit)
            for (position, match_id), meta in zip(batch, self._store.metas([m for _, m in batch])):
                before = position
                seat = account_seat(meta, account_id) if meta and "status" in meta else None
                if meta and seat is not None and (status is None or meta["status"] == status):
                    found.append({**summary(match_id, meta), "seat": seat})
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < limit:
                return {"matches": found, "next_cursor": None}

    def invitations(self, credential: str | None) -> dict:
        """The matches and tournaments inviting the caller's account that await its answer, oldest first;
        forgets the others."""
        accounts = self._require_accounts()
        account = accounts.authenticate(credential)
        ids = accounts.invitation_ids(account["id"])
        pending, done = [], []
        for match_id, meta in zip(ids, self._store.metas(ids)):
            if not meta or "status" not in meta:
                continue  # noted, its creation not appended yet (or lost by a crash)
            if match_id.startswith(TOURNAMENT):  # answered or expired: forgotten then (service/tournaments.py)
                if meta["status"] == match.WAITING:
                    pending.append(invitation_document(match_id, meta, None))
                else:
                    done.append(match_id)
                continue
            seats = json.loads(meta["seats"])
            seat = account_seat(meta, account["id"])
            if meta["status"] != match.WAITING or seat is None or not seats[seat].get("invited"):
                done.append(match_id)
                continue
            pending.append(invitation_document(match_id, meta, seat))
        if done:
            accounts.close_matches(account["id"], done)
        return {"challenges": sorted(pending, key=lambda c: c["created_at"])}


def _rematch_tag(meta: dict) -> dict:
    """A finished match's rematch, named in its meta without an append, changes its document but not its log's end:
    the tag says it (only once there is one, so the tags of every other match stay as they were)."""
    return {REMATCH: meta[REMATCH]} if REMATCH in meta else {}
