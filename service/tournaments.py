"""The tournament use cases: create, advance (record finished matches, start the next tables), and the reads.

A tournament is its own aggregate in the event store ("t:<id>", service.matches.tournament_key), with the same
hash chain as a match. It advances by itself: `advance(id, version)` runs in the workers (workers/jobs.py),
scheduled after its creation, after each advance that left work, and when one of its matches finishes
(MatchService tells its TournamentScheduler). An advance at a version the tournament has left does nothing; an
advance that loses the race to append leaves its freshly created matches unplayed by the tournament (they are
never recorded: only a table's match_started names its match). The janitor re-schedules a tournament that has
work and has not moved for a while (`stalled`), which recovers jobs lost with a killed worker.
"""
import hashlib
import json
import logging
import secrets
import time
import uuid

from domain import clock, match, standings as standings_math, tournament
from domain.errors import InvalidSetup
from domain.lifecycle import SeatSpec
from eventstore.base import EventStore, VersionConflict
from eventstore.clock import utc_at, utc_now
from service.accounts import AccountService, named_by
from service.errors import Conflict, Forbidden, NotFound, ServiceError, Unprocessable
from service.matches import MatchService
from service.repository import NEW, Current, Repository, tournament_key
from service.ports import TournamentScheduler
from service.ratings import ratings

CATALOG = "tournaments"
EXPORT_FORMAT = "cardroom-tournament/1"
RECENT_TOURNAMENTS = 200  # how far back the janitor looks for a stalled tournament, newest first
log = logging.getLogger(__name__)


class TournamentService:
    def __init__(self, store: EventStore, matches: MatchService, jobs: TournamentScheduler, max_matches: int,
                 accounts: AccountService | None = None, clock=time.time):
        """`max_matches`: the most matches one tournament may play (more: 422 too_many_matches)."""
        self._store = store
        self._tournaments = Repository(store, tournament.evolve_all, _missing, key=tournament_key)
        self._matches = matches
        self._jobs = jobs
        self._max_matches = max_matches
        self._accounts = accounts
        self._clock = clock

    # --- commands -----------------------------------------------------------------------------------
    def create(self, spec: dict, credential: str | None = None) -> dict:
        """`credential`: the creator's key, needed to enter other accounts: each is invited by its own policy and
        the tournament waits for every invited entry (docs/challenges.md)."""
        owner = self._accounts.authenticate(credential) if credential and self._accounts else None
        entrants = [self._entrant(e, owner) for e in spec["entrants"]]
        invitation = self._matches.invitation(owner, entrants)
        seed, salt = secrets.token_hex(32), secrets.token_hex(16)
        events = tournament.create({**spec, "entrants": entrants}, seed, salt, self._max_matches, invitation)
        state = tournament.evolve_all(None, events)
        tournament_id = uuid.uuid4().hex
        self._store.index(tournament_id, spec["game"], catalog=CATALOG)
        meta = {"seed": seed, "salt": salt, "created_at": utc_now(), "started": repr(self._clock()),
                **({"invitation": json.dumps(invitation)} if invitation else {})}
        for entrant in entrants:  # before the append: an invitation is never lost, only maybe listed for nothing
            if entrant.get("invited"):
                self._require_accounts().note_invitation(entrant["account"], tournament_key(tournament_id))
        appended = self._append(tournament_id, NEW, events, state, meta)
        self._jobs.schedule(tournament_id, appended.head.version)
        return self.document(tournament_id, state, meta)

    def accept(self, tournament_id: str, credential: str | None) -> dict:
        """The invited account accepts its entry; once no entry is pending the tournament starts. A retry after it
        accepted answers the same."""
        return self._answer(tournament_id, credential, tournament.accept_entry)

    def decline(self, tournament_id: str, credential: str | None) -> dict:
        """The invited account refuses its entry: the tournament is canceled before any match."""
        return self._answer(tournament_id, credential, lambda state, entrant: tournament.decline_entry(
            state, entrant, *self._secrets(tournament_id)))

    def advance(self, tournament_id: str, version: int) -> str:
        """Records its finished matches and starts the tables max_parallel allows: "stale" if the tournament
        is no longer at `version` (or another advance appended first), "idle" if there was nothing to do;
        a tournament whose invitations expired is canceled ("canceled")."""
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        if state["version"] == version and state["status"] == tournament.WAITING:
            return self._expire(tournament_id, current)
        if state["version"] != version or state["status"] != tournament.RUNNING:
            return "stale"
        events = []
        for match_id, result in self._finished_unrecorded(state):
            recorded = tournament.record(state, match_id, result, meta["seed"], meta["salt"])
            events += recorded
            state = tournament.evolve_all(state, recorded)
        for round_number, table in tournament.to_start(state):
            new_match_id = self._start_match(tournament_id, state, meta, round_number, table)
            if new_match_id is None:
                break  # refused for now (an account at its limit): the janitor tries again
            started = tournament.start(state, round_number, table, new_match_id)
            events += started
            state = tournament.evolve_all(state, started)
        if not events:
            return "idle"
        try:
            appended = self._append(tournament_id, current, events, state)
        except VersionConflict:
            log.warning("tournament %s moved on during an advance from version %d", tournament_id, version)
            return "stale"
        # a match that finished while this advance ran may have found the old version's job already taken
        if state["status"] == tournament.RUNNING and self._finished_unrecorded(state):
            self._jobs.schedule(tournament_id, appended.head.version)
        return "finished" if state["status"] == tournament.FINISHED else "advanced"

    def stalled(self, stall_after: float) -> list[tuple[str, int]]:
        """(tournament, version) of the recent running tournaments with work to do (a finished match not
        recorded, a table to start) that have not moved for `stall_after` seconds."""
        listed = self._store.matches(None, None, RECENT_TOURNAMENTS, catalog=CATALOG)
        keys = [tournament_key(t) for _, t in listed]
        now, found = self._clock(), []
        for (_, tournament_id), meta in zip(listed, self._store.metas(keys)):
            if not meta or meta.get("status") not in (tournament.RUNNING, tournament.WAITING) \
                    or now - float(meta["updated_at"]) < stall_after:
                continue
            state = self._load(tournament_id).state
            deadline = tournament.entry_deadline(state)
            if tournament.to_start(state) or self._finished_unrecorded(state) or (deadline and deadline <= now * 1000):
                found.append((tournament_id, state["version"]))
        return found

    # --- reads --------------------------------------------------------------------------------------
    def get(self, tournament_id: str) -> dict:
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        return self.document(tournament_id, state, meta)

    def state(self, tournament_id: str) -> tuple[dict, dict]:
        """The folded state and the document, for a stream that follows the log from there."""
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        return state, self.document(tournament_id, state, meta)

    def standings(self, tournament_id: str) -> dict:
        state = self._load(tournament_id).state
        return with_ratings(state)

    def list_tournaments(self, game: str | None, cursor: int | None, limit: int) -> dict:
        listed = self._store.matches(game, cursor, limit, catalog=CATALOG)
        metas = self._store.metas([tournament_key(t) for _, t in listed])
        found = [_summary(t, meta) for (_, t), meta in zip(listed, metas) if meta and "status" in meta]
        return {"tournaments": found, "next_cursor": listed[-1][0] if len(listed) == limit else None}

    def export(self, tournament_id: str) -> dict:
        """The tournament's log and every started match's export: what `cardroom verify` checks offline."""
        state = self._load(tournament_id).state
        match_ids = [t["match"] for r in state["rounds"] for t in r["tables"] if t["match"]]
        return {"format": EXPORT_FORMAT, "tournament_id": tournament_id,
                "complete": state["status"] == tournament.FINISHED, "exported_at": utc_now(),
                "events": self._store.read(tournament_key(tournament_id)),
                "matches": [self._matches.export(m, None) for m in match_ids]}

    def document(self, tournament_id: str, state: dict, meta: dict) -> dict:
        done, total = tournament.progress(state)
        elapsed = float(meta.get("updated_at", meta["started"])) - float(meta["started"])
        running = state["status"] == tournament.RUNNING
        eta = elapsed / done * (total - done) if running and done else None
        return {"id": tournament_id, "name": state["name"], "game": state["game"], "options": state["options"],
                "format": state["format"], "status": state["status"], "version": state["version"],
                "canceled": state.get("canceled"), "invited_until": _utc(state.get("invited_until")),
                "entrants": state["entrants"], "table_size": state["table_size"], "rounds": state["rounds_planned"],
                "deals": state["deals"], "max_parallel": state["max_parallel"], "clock": state.get("clock"),
                "created_at": meta["created_at"], "progress": {"done": done, "total": total},
                "eta_seconds": eta, "commitment": state["commitment"], "deal_commitments": state["deal_commitments"],
                "seed": state["seed"], "salt": state["salt"],
                "pairings": [{"round": n, "byes": r["byes"], "tables": [
                    {"table": i, "entrants": t["entrants"], "deal": t.get("deal"), "match": t["match"],
                     "result": t["result"]} for i, t in enumerate(r["tables"])]}
                    for n, r in enumerate(state["rounds"], 1)]}

    # --- the steps ----------------------------------------------------------------------------------
    def _entrant(self, spec: SeatSpec, owner: dict | None) -> SeatSpec:
        """An account entrant: the creator's own is entered; another is invited, or entered at once, as its
        policy says (docs/challenges.md)."""
        if not spec.get("account"):
            return spec
        try:
            account = self._require_accounts().resolve(spec["account"])
        except NotFound as missing:  # part of a spec that cannot run, as an unknown bot is
            raise Unprocessable(missing.reason, missing.message) from None
        return named_by(account, owner)

    def _answer(self, tournament_id: str, credential: str | None, answer) -> dict:
        account = self._accounts.authenticate(credential) if self._accounts else None
        current = self._load(tournament_id)
        meta, state = current.meta, current.state
        entrant = next((i for i, e in enumerate(state["entrants"]) if account and e.get("account") == account["id"]),
                       None)
        if entrant is None:
            raise Forbidden("not_invited", "your account is no entrant of this tournament")
        if not state["entrants"][entrant].get("invited"):  # answered before: a retry
            if answer is tournament.accept_entry and state.get("canceled") is None:
                return self.document(tournament_id, state, meta)
            if answer is not tournament.accept_entry and entrant in (state.get("canceled") or {}).get("entrants", []):
                return self.document(tournament_id, state, meta)
        try:
            events = answer(state, entrant)
        except InvalidSetup as refused:
            raise Conflict(refused.reason, refused.message) from None
        state = tournament.evolve_all(state, events)
        try:
            appended = self._append(tournament_id, current, events, state)
        except VersionConflict:
            raise Conflict("busy", "the tournament changed while answering; try again") from None
        self._require_accounts().forget_invitation(state["entrants"][entrant]["account"], tournament_key(tournament_id))
        if state["status"] == tournament.RUNNING:
            self._jobs.schedule(tournament_id, appended.head.version)
        return self.document(tournament_id, state, meta)

    def _expire(self, tournament_id: str, current: Current) -> str:
        meta, state = current.meta, current.state
        try:
            events = tournament.expire_entries(state, clock.millis(utc_at(self._clock())), meta["seed"], meta["salt"])
        except InvalidSetup:
            return "idle"
        try:
            self._append(tournament_id, current, events, tournament.evolve_all(state, events))
        except VersionConflict:
            return "stale"
        for entrant in tournament.invited_entrants(state):
            self._require_accounts().forget_invitation(state["entrants"][entrant]["account"],
                                                       tournament_key(tournament_id))
        return "canceled"

    def _require_accounts(self) -> AccountService:
        if self._accounts is None:
            raise Unprocessable("accounts_unavailable", "this server keeps no accounts")
        return self._accounts

    def _secrets(self, tournament_id: str) -> tuple[str, str]:
        meta = self._tournaments.meta(tournament_id)
        return meta["seed"], meta["salt"]

    def _start_match(self, tournament_id: str, state: dict, meta: dict, round_number: int, table: int) -> str | None:
        paired = state["rounds"][round_number - 1]["tables"][table]
        seats = [_seat(state["entrants"][e]) for e in paired["entrants"]]
        # a duplicate deal's seed makes the same cards at every rotation (domain/match.py: the deal draws from it)
        seed = tournament.deal_seed(meta["seed"], paired["deal"]) if "deal" in paired else None
        # one id per table: two advances racing at one version start the same match, never an orphan
        match_id = table_match_id(tournament_id, round_number, table)
        if self._store.meta(match_id) is not None:
            return match_id
        try:
            self._matches.create(state["game"], state["options"], seats, seed, clock_spec=state.get("clock"),
                                 tournament=tournament_id, match_id=match_id)
        except VersionConflict:
            pass  # the racing advance created it a moment ago
        except ServiceError as refused:
            log.warning("tournament %s: round %d table %d not started: %s", tournament_id, round_number, table,
                        refused.message)
            return None
        return match_id

    def _finished_unrecorded(self, state: dict) -> list[tuple[str, dict]]:
        running = [t["match"] for r in state["rounds"] for t in r["tables"] if t["match"] and t["result"] is None]
        return [(m, json.loads(meta["result"])) for m, meta in zip(running, self._store.metas(running))
                if meta and meta.get("status") == match.FINISHED]

    def _append(self, tournament_id: str, current: Current, events: list[dict], state: dict, meta=None):
        done, total = tournament.progress(state)
        meta = {**(meta or {}), "status": state["status"], "game": state["game"], "name": state["name"],
                "format": state["format"], "done": str(done), "total": str(total), "updated_at": repr(self._clock())}
        return self._tournaments.save(tournament_id, current, events, state, meta)

    def _load(self, tournament_id: str) -> Current:
        if not _well_formed(tournament_id):
            raise _missing(tournament_id)
        return self._tournaments.load(tournament_id)


def _utc(millis: int | None) -> str | None:
    return None if millis is None else utc_at(millis / 1000)


def _missing(tournament_id: str) -> NotFound:
    return NotFound("tournament_not_found", f"no tournament {tournament_id!r}")


def with_ratings(state: dict) -> dict:
    table = standings_math.standings(state)
    rated = ratings(state)
    for row in table["entrants"]:
        row["rating"] = rated[row["entrant"]]
    return table


def _seat(entrant: dict) -> SeatSpec:
    if entrant.get("account"):
        return {"account": entrant["account"]}
    return {"bot": entrant["bot"], "name": entrant["name"], "bot_options": entrant.get("bot_options", {})}


def _summary(tournament_id: str, meta: dict) -> dict:
    return {"id": tournament_id, "name": meta["name"], "game": meta["game"], "format": meta["format"],
            "status": meta["status"], "created_at": meta["created_at"],
            "progress": {"done": int(meta["done"]), "total": int(meta["total"])}}


def _well_formed(tournament_id: str) -> bool:
    return tournament_id.isalnum() and len(tournament_id) <= 64


def table_match_id(tournament_id: str, round_number: int, table: int) -> str:
    return hashlib.sha256(f"{tournament_id}:{round_number}:{table}".encode()).hexdigest()[:32]
