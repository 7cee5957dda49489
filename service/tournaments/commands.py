"""The tournament's commands: create it, and an invited account's answer to its entry (accept or decline)."""
import json
import secrets
import uuid

from domain import tournament
from domain.errors import InvalidSetup
from domain.lifecycle import SeatSpec
from domain.tournament import TournamentSpec
from eventstore.base import VersionConflict
from eventstore.clock import utc_now
from service.accounts import named_by
from service.errors import Conflict, Forbidden, NotFound, Unprocessable
from service.repository import NEW, tournament_key
from service.tournaments.base import CATALOG, TournamentBase
from service.tournaments.documents import document


class TournamentCommands(TournamentBase):
    def create(self, spec: TournamentSpec, credential: str | None = None) -> dict:
        """`credential`: the creator's key, needed to enter other accounts: each is invited by its own policy and
        the tournament waits for every invited entry (docs/challenges.md)."""
        owner = self._accounts.authenticate(credential) if credential and self._accounts else None
        entrants = [self._entrant(e, owner) for e in spec["entrants"]]
        invitation = self._matches.invitation(owner, entrants)
        seed, salt = secrets.token_hex(32), secrets.token_hex(16)
        events = tournament.create({**spec, "entrants": entrants}, seed, salt, self._max_matches, invitation,
                                   owner["id"] if owner else None)
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
        return document(tournament_id, state, meta)

    def accept(self, tournament_id: str, credential: str | None) -> dict:
        """The invited account accepts its entry; once no entry is pending the tournament starts. A retry after it
        accepted answers the same."""
        return self._answer(tournament_id, credential, tournament.accept_entry)

    def decline(self, tournament_id: str, credential: str | None) -> dict:
        """The invited account refuses its entry: the tournament is canceled before any match."""
        return self._answer(tournament_id, credential, lambda state, entrant: tournament.decline_entry(
            state, entrant, *self._secrets(tournament_id)))

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
                return document(tournament_id, state, meta)
            if answer is not tournament.accept_entry and entrant in (state.get("canceled") or {}).get("entrants", []):
                return document(tournament_id, state, meta)
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
        return document(tournament_id, state, meta)

    def _secrets(self, tournament_id: str) -> tuple[str, str]:
        meta = self._tournaments.meta(tournament_id)
        return meta["seed"], meta["salt"]
