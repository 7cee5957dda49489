"""What the tournament's commands, upkeep and reads share: the wiring, the repository of tournaments (each its own
aggregate "t:<id>" in the event store, service.repository.tournament_key, with the same hash chain as a match)."""
import time

from domain import tournament
from eventstore.base import EventStore
from service.accounts import AccountService
from service.errors import NotFound, Unprocessable
from service.matches import MatchService
from service.ports import TournamentScheduler
from service.repository import Current, Repository, tournament_key

CATALOG = "tournaments"


class TournamentBase:
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

    def _require_accounts(self) -> AccountService:
        if self._accounts is None:
            raise Unprocessable("accounts_unavailable", "this server keeps no accounts")
        return self._accounts

    def _append(self, tournament_id: str, current: Current, events: list[dict], state: dict, meta=None):
        done, total = tournament.progress(state)
        meta = {**(meta or {}), "status": state["status"], "game": state["game"], "name": state["name"],
                "format": state["format"], "done": str(done), "total": str(total), "updated_at": repr(self._clock())}
        return self._tournaments.save(tournament_id, current, events, state, meta)

    def _load(self, tournament_id: str) -> Current:
        if not _well_formed(tournament_id):
            raise _missing(tournament_id)
        return self._tournaments.load(tournament_id)


def _missing(tournament_id: str) -> NotFound:
    return NotFound("tournament_not_found", f"no tournament {tournament_id!r}")


def _well_formed(tournament_id: str) -> bool:
    return tournament_id.isalnum() and len(tournament_id) <= 64
