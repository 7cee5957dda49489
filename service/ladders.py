"""Rated play's use cases: rate a finished rated match on its ladder, read the leaderboards, rebuild them from the
logs (docs/ladder.md).

Each ladder is an aggregate of its own in the matches' store ("l:<ladder>", service/repository.py), whose log is
one match_rated or match_not_rated event per finished rated match, and one rating_voided per operator's void
(domain/ladder.py). A match is decided once: the ladder's append carries the match's id as its idempotency key, so
a retry (the janitor's, a rebuild's) finds it recorded and appends nothing; a void carries "void:<match>".
The leaderboards (eventstore/leaderboards.py) are a projection of those logs: each append is projected after it,
and `rebuild` recomputes them, and every rating, from the matches' own logs.
"""
import math
import time
from collections import defaultdict

from domain import ladder, match
from domain.errors import InvalidSetup
from domain.games import get_game
from eventstore.base import Appended, EventStore, Head, VersionConflict
from eventstore.clock import utc_at
from eventstore.leaderboards import ESTABLISHED, PROVISIONAL, LeaderboardStore
from service import ratings
from service.errors import Conflict, NotFound
from service.repository import NEW, Current, Repository

LADDERS = "ladders"  # the catalog of ladders (the store's catalogs, as tournaments')
LADDER = "l:"  # a ladder's log is kept beside the matches', under this prefix
ATTEMPTS = 5  # appends of one rating tried while other ratings of the ladder get in first
# No snapshots: a ladder never finishes, so its snapshots (each holding every player) would pile up for ever (the
# store keeps them all, for loads at a past version); a process folds the log once and remembers the ladder,
# reading only the new events after that (bench/ladders.py: the cold load's cost)
SNAPSHOT_EVERY = 0
HISTORY = 50  # rating points shown per account and ladder
DUE_BATCH = 100
VOID = "void:"  # the idempotency key of a match's void in its ladder's log, beside the match's own id


def ladder_key(ladder_id: str) -> str:
    return f"{LADDER}{ladder_id}"


class LadderService:
    def __init__(self, store: EventStore, boards: LeaderboardStore, clock=time.time, remembered: int = 20):
        self._store = store
        self._boards = boards
        self._clock = clock
        self._ladders = Repository(store, ladder.evolve_all, _missing_ladder, key=ladder_key,
                                   snapshot_every=SNAPSHOT_EVERY, remembered=remembered)
        self._matches = Repository(store, match.evolve_all, _missing_match)

    # --- rating a finished match (service/matches/reactions/rated.py) -------------------------------
    def note_due(self, match_id: str, since: float) -> None:
        """Before the append that finishes a rated match: what the janitor finds if the rating never happens."""
        self._boards.note_due(match_id, since)

    def rate(self, match_id: str, state: dict, at: str) -> str:
        """Rates the finished match `state` on its ladder at `at` (its end, UTC): "rated", "not_rated" (recorded
        on the ladder with its reason), "already" (decided before), "unrated" (it counts for nobody), "busy" (left
        due for the janitor)."""
        if ladder.ranks(state) is None:
            self._boards.done(match_id)
            return "unrated"
        ladder_id = _ladder_of(state)
        for _ in range(ATTEMPTS):
            current = self._current(ladder_id)
            recorded = self._store.recall(ladder_key(ladder_id), match_id)
            if recorded:
                if not self._store.recall(ladder_key(ladder_id), VOID + match_id):
                    self._project(ladder_id, int(recorded))
                self._boards.done(match_id)
                return "already"
            event = _decided(ladder_id, match_id, at, state, current.state)
            if current.head.version == 0:  # listed before its first append: a crash leaves it listed, never lost
                self._store.index(ladder_id, state["game"], catalog=LADDERS)
            try:
                appended = self._ladders.save(ladder_id, current, [event], ladder.evolve(current.state, event),
                                              {"game": state["game"], "updated_at": repr(self._clock())},
                                              idempotency=(match_id, str(current.head.version + 1)))
            except VersionConflict:
                continue
            version = appended.head.version if isinstance(appended, Appended) else int(appended.record)
            self._project(ladder_id, version)
            return ("rated" if event["type"] == "match_rated" else "not_rated") if isinstance(appended, Appended) \
                else "already"
        return "busy"

    def rate_due(self, due_for: float) -> list[tuple[str, str]]:
        """The janitor's pass: rates the matches whose rating has been due for `due_for` seconds; (match, outcome)."""
        return [(match_id, self.rate_stored(match_id))
                for match_id in self._boards.due(self._clock() - due_for, DUE_BATCH)]

    def rate_stored(self, match_id: str) -> str:
        """Rates a finished match from its log (the janitor's retry of a rating lost with its process)."""
        try:
            current = self._matches.load(match_id)
        except NotFound:
            self._boards.done(match_id)
            return "unrated"
        if current.state["status"] != match.FINISHED:
            return "unfinished"
        return self.rate(match_id, current.state, self._finished_at(match_id, current.head))

    def _current(self, ladder_id: str) -> Current:
        try:
            return self._ladders.load(ladder_id)
        except NotFound:
            return NEW

    def _project(self, ladder_id: str, version: int) -> None:
        """Writes the rows of the players of the ladder's match_rated at `version`, as the ladder stands now, and
        their points of that match; then the match's rating is done."""
        event = self._event_at(ladder_id, version)
        if event["type"] == "match_rated":
            state = self._ladders.load(ladder_id).state
            seats = event["data"]["seats"]
            rows = [_row(seat["player"], state["players"][seat["player"]]) for seat in seats]
            self._boards.put(ladder_id, rows, [(version, _point(event["data"], seat)) for seat in seats])
        self._boards.done(event["data"]["match"])

    def _event_at(self, ladder_id: str, version: int) -> dict:
        return self._store.read(ladder_key(ladder_id), after=version - 1, upto=version)[0]

    def _finished_at(self, match_id: str, head: Head) -> str:
        return self._store.read(match_id, after=head.version - 1, upto=head.version)[0]["time"]

    # --- reads --------------------------------------------------------------------------------------
    def leaderboard(self, game: str, edition: str | None, players: int, offset: int, limit: int,
                    provisional: bool = False) -> dict:
        """A page of the ladder of `game` (in `edition`, where it has editions) at `players` players, best first:
        of its established players, or of its provisional ones, listed apart (domain/ladder.py's `provisional`)."""
        try:
            options = get_game(game).options({"edition": edition} if edition else {}, players)
        except InvalidSetup as refused:
            if refused.reason == "unknown_game":
                raise NotFound("game_not_found", refused.message) from None
            raise
        ladder_id = ladder.ladder_id(game, options, players)
        rows, totals = self._boards.page(ladder_id, offset, limit, provisional)
        total, following = totals[PROVISIONAL if provisional else ESTABLISHED], offset + len(rows)
        return {"ladder": ladder_id, "game": game, "options": options, "players": players,
                "provisional": provisional, "total": total, "totals": totals,
                "offset": offset, "next_offset": following if following < total else None,
                "entries": [{**entry(row), "rank": offset + i + 1} for i, row in enumerate(rows)]}

    def ratings_of(self, player: str) -> list[dict]:
        """The player's rating on each ladder it has played, with its last points, the most played first."""
        found = []
        for ladder_id, game in self._ladder_ids():
            (row,) = self._boards.rows(ladder_id, [player])
            if row:
                found.append({"ladder": ladder_id, "game": game, **entry(row),
                              "history": self.history(ladder_id, player)})
        return sorted(found, key=lambda rating: (-rating["games"], rating["ladder"]))

    def rating_of(self, player: str, game: str, options: dict, players: int) -> dict:
        """The player's {mu, sigma} on the ladder of these terms (a newcomer's when it has played none there): what
        matchmaking pairs by (service/seeks.py's `ratings`). Read from the leaderboard: one lookup."""
        (row,) = self._boards.rows(ladder.ladder_id(game, options, players), [player])
        return {"mu": row["mu"], "sigma": row["sigma"]} if row else ratings.initial()

    def history(self, ladder_id: str, player: str) -> list[dict]:
        """The player's rating after each of its last rated matches on the ladder, oldest first."""
        points = self._boards.history(ladder_id, player, HISTORY)
        if not points:
            raise NotFound("rating_not_found", f"{player!r} has played no rated match on the ladder {ladder_id!r}")
        return points

    def decision(self, match_id: str) -> dict:
        """What the ladder made of a finished rated match: rated, not rated (with the reason) or voided (by whom and
        why), and its seats as ranked. 404 match_not_found; 404 rating_not_found when no ladder has decided it (not a
        rated match, not finished, aborted or canceled, or its rating still due)."""
        try:
            finished = self._matches.load(match_id).state
        except NotFound:
            raise _missing_match(match_id) from None
        ladder_id = _ladder_of(finished)
        recorded = self._store.recall(ladder_key(ladder_id), match_id) if ladder.ranks(finished) else None
        if not recorded:
            raise NotFound("rating_not_found", f"no ladder has rated match {match_id}: not a rated match, not "
                                               "finished, aborted or canceled, or its rating is still due")
        data = self._event_at(ladder_id, int(recorded))["data"]
        void = self._store.recall(ladder_key(ladder_id), VOID + match_id)
        voided = self._event_at(ladder_id, int(void))["data"] if void else None
        return {"match": match_id, "ladder": ladder_id, "at": data["at"], "rated": "reason" not in data and not void,
                "reason": data.get("reason"), "seats": data["seats"],
                "voided": {key: voided[key] for key in ("at", "by", "reason")} if voided else None}

    def _ladder_ids(self) -> list[tuple[str, str]]:
        """(ladder, game) of every ladder."""
        listed = self._store.matches(None, None, 10_000, catalog=LADDERS)
        return [(ladder_id, meta["game"]) for (_, ladder_id), meta
                in zip(listed, self._store.metas([ladder_key(i) for _, i in listed])) if meta]

    # --- void and rebuild --------------------------------------------------------------------------
    def void(self, match_id: str, by: str, reason: str) -> dict:
        """The operator takes a rated match's rating back: `rating_voided` in its ladder's log, with the standings
        of its players (and of everyone rated after them) recomputed as if it had never been rated; then the
        ladder's leaderboard is replaced. 404 match_not_found; 409 match_not_rated (not rated on a ladder: unrated,
        unfinished, or not counted), rating_voided (voided already), busy (the ladder kept changing)."""
        try:
            finished = self._matches.load(match_id).state
        except NotFound:
            raise _missing_match(match_id) from None
        if ladder.ranks(finished) is None:
            raise Conflict("match_not_rated", f"match {match_id} is not a finished rated match")
        ladder_id, key = _ladder_of(finished), ladder_key(_ladder_of(finished))
        for _ in range(ATTEMPTS):
            current = self._current(ladder_id)
            if self._store.recall(key, VOID + match_id):
                raise Conflict("rating_voided", f"the rating of match {match_id} is voided already")
            recorded = self._store.recall(key, match_id)
            if not recorded or self._event_at(ladder_id, int(recorded))["type"] != "match_rated":
                raise Conflict("match_not_rated", f"match {match_id} moved no rating on {ladder_id}")
            kept = [(version, data) for version, data in _counted(self._store.read(key)) if data["match"] != match_id]
            replayed, histories = _replayed(ladder_id, kept)
            event = ladder.voided(ladder_id, match_id, utc_at(self._clock()), by, reason, current.state, replayed)
            after = ladder.evolve(current.state, event)
            try:
                self._ladders.save(ladder_id, current, [event], after,
                                   {"game": finished["game"], "updated_at": repr(self._clock())},
                                   idempotency=(VOID + match_id, str(current.head.version + 1)))
            except VersionConflict:
                continue
            self._replace(ladder_id, after, histories)
            return {"match": match_id, "ladder": ladder_id, "players": sorted(event["data"]["players"])}
        raise Conflict("busy", f"the ladder {ladder_id} kept changing: try again")

    def rebuild(self) -> dict:
        """Rates what is due, then recomputes every ladder from the matches' logs, in the ladder's order (whether
        each match is rated, its ranks from its result, openskill from the ratings recomputed so far, each void's
        standings), and replaces its leaderboard with the result. `differences`: the matches whose recomputed
        decision or rating is not the one their ladder recorded (none unless the rules of rating changed since)."""
        for match_id in self._boards.due(math.inf, 10_000):
            self.rate_stored(match_id)
        ladders, matches, differences = 0, 0, []
        for ladder_id, _ in self._ladder_ids():
            state: dict | None = None
            kept: list[tuple[int, dict]] = []
            for version, recorded in enumerate(self._store.read(ladder_key(ladder_id)), start=1):
                data = recorded["data"]
                if recorded["type"] == "rating_voided":
                    kept = [(v, rated) for v, rated in kept if rated["match"] != data["match"]]
                    assert state is not None  # a void follows its match's rating
                    event = ladder.voided(ladder_id, data["match"], data["at"], data["by"], data["reason"], state,
                                          _replayed(ladder_id, kept)[0])
                else:
                    event = _decided(ladder_id, data["match"], data["at"], self._matches.load(data["match"]).state,
                                     state)
                    kept += [(version, event["data"])] if event["type"] == "match_rated" else []
                    matches += 1
                if event["data"] != data:
                    differences.append(data["match"])
                state = ladder.evolve(state, event)
            self._replace(ladder_id, state, _replayed(ladder_id, kept)[1])
            ladders += 1
        return {"ladders": ladders, "matches": matches, "differences": differences}

    def _replace(self, ladder_id: str, state: dict | None, histories: dict[str, list]) -> None:
        players = state["players"] if state else {}
        self._boards.replace(ladder_id, [_row(p, standing) for p, standing in players.items()], histories)


def _ladder_of(finished: dict) -> str:
    return ladder.ladder_id(finished["game"], finished["options"], len(finished["seats"]))


def _decided(ladder_id: str, match_id: str, at: str, finished: dict, state: dict | None) -> dict:
    """The ladder's event for the finished rated match `finished` at `state`: match_rated, or match_not_rated with
    the reason the ladder's rules give."""
    ranked = ladder.ranks(finished)
    if ranked is None:
        raise ValueError(f"match {match_id} is on a ladder but counts for nobody")
    entrants = [{**ladder.player(seat), "rank": rank} for seat, rank in zip(finished["seats"], ranked)]
    reason = ladder.unrated_reason(state, finished, entrants, at)
    if reason:
        return ladder.not_rated(ladder_id, match_id, at, entrants, reason)
    return _rated(ladder_id, match_id, at, entrants, state)


def _counted(log: list[dict]) -> list[tuple[int, dict]]:
    """(version, data) of each match_rated of a ladder's log whose rating was not voided since."""
    voided = {event["data"]["match"] for event in log if event["type"] == "rating_voided"}
    return [(version, event["data"]) for version, event in enumerate(log, start=1)
            if event["type"] == "match_rated" and event["data"]["match"] not in voided]


def _replayed(ladder_id: str, kept: list[tuple[int, dict]]) -> tuple[dict | None, dict[str, list]]:
    """The ladder folded from the rated matches `kept` ((version, match_rated's data), in order) alone, openskill
    recomputed from their ranks; and each player's history, its points at their ladder versions. A match whose
    seats stand where its record says they stood before it keeps its recorded ratings (openskill would give them
    again): only the matches a void reaches are recomputed. The ratings are followed in a dict of their own and the
    ladder folded once at the end: folding match by match would copy every player each match."""
    standings: dict[str, dict] = {}
    events: list[dict] = []
    histories: defaultdict[str, list] = defaultdict(list)
    for version, data in kept:
        before = [standings.get(seat["player"]) or ratings.initial() for seat in data["seats"]]
        if before != [seat["before"] for seat in data["seats"]]:
            entrants = [{key: seat[key] for key in ("player", "name", "kind", "rank")} for seat in data["seats"]]
            data = _rated_from(ladder_id, data["match"], data["at"], entrants, before)["data"]
        for seat in data["seats"]:
            standings[seat["player"]] = seat["after"]
            histories[seat["player"]].append((version, _point(data, seat)))
        events.append({"type": "match_rated", "data": data})
    return (ladder.evolve_all(None, events) if events else None), histories


def _rated(ladder_id: str, match_id: str, at: str, entrants: list[dict], state: dict | None) -> dict:
    """The match_rated event of `entrants` on the ladder at `state`: openskill from their standings there."""
    before = [ladder.standing(state, e["player"]) or ratings.initial() for e in entrants]
    return _rated_from(ladder_id, match_id, at, entrants, before)


def _rated_from(ladder_id: str, match_id: str, at: str, entrants: list[dict], before: list[dict]) -> dict:
    return ladder.rated(ladder_id, match_id, at, entrants, before, ratings.rate(before, [e["rank"] for e in entrants]))


def _row(player: str, standing: dict) -> dict:
    return {"player": player, "name": standing["name"], "kind": standing["kind"], "mu": standing["mu"],
            "sigma": standing["sigma"], "ordinal": ratings.shown(standing["mu"], standing["sigma"])["ordinal"],
            "games": standing["games"], "last_played": standing["last_played"], "version": standing["version"],
            "provisional": ladder.provisional(standing)}


def _point(data: dict, seat: dict) -> dict:
    return {"match": data["match"], "at": data["at"], "name": seat["name"], "rank": seat["rank"], **seat["after"]}


def entry(row: dict) -> dict:
    """A leaderboard entry as the API shows it. A row written before players could be provisional (until a rebuild
    rewrites it, docs/ladder.md) is on the ranked board, and shown as it is listed."""
    return {"player": row["player"], "name": row["name"], "kind": row["kind"], **ratings.shown(row["mu"], row["sigma"]),
            "games": row["games"], "last_played": row["last_played"], "provisional": row.get("provisional", False)}


def _missing_ladder(ladder_id: str) -> NotFound:
    return NotFound("ladder_not_found", f"no ladder {ladder_id!r}")


def _missing_match(match_id: str) -> NotFound:
    return NotFound("match_not_found", f"no match {match_id!r}")

