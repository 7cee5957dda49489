"""What the workers and the janitor ask of a tournament: advance it (record its finished matches, start the next
tables, cancel it when its invitations expired), and find the tournaments that stalled."""
import hashlib
import json
import logging

from domain import clock, match, tournament
from domain.errors import InvalidSetup
from domain.lifecycle import SeatSpec
from eventstore.base import VersionConflict
from eventstore.clock import utc_at
from service.errors import ServiceError
from service.repository import Current, tournament_key
from service.tournaments.base import CATALOG, TournamentBase

RECENT_TOURNAMENTS = 200  # how far back the janitor looks for a stalled tournament, newest first
log = logging.getLogger(__name__)


class TournamentUpkeep(TournamentBase):
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
                                 tournament=tournament_id, match_id=match_id, seed_owner=state.get("owner"))
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


def _seat(entrant: dict) -> SeatSpec:
    if entrant.get("account"):
        return {"account": entrant["account"]}
    return {"bot": entrant["bot"], "name": entrant["name"], "bot_options": entrant.get("bot_options", {})}


def table_match_id(tournament_id: str, round_number: int, table: int) -> str:
    return hashlib.sha256(f"{tournament_id}:{round_number}:{table}".encode()).hexdigest()[:32]
