"""Play again (docs/challenges.md): a seat's account asks a finished match's rematch, the same game, options, clock and
rated flag for the same players, one seat on; and the link that invites anyone to a match's open seats.

One rematch per match, however many ask and however they race: its id is derived from the finished match's, so two
creations of it are one append and the second is refused (VersionConflict) before anything else of it is written;
the finished match's meta then names it (`rematch`, outside the log, which ended with the match), so a later request
answers it without creating anything.
"""
import hashlib

from domain import match
from domain.errors import InvalidSetup
from eventstore.base import VersionConflict
from eventstore.clock import utc_at
from service.errors import Conflict, Forbidden
from service.matches.callers import account_seat
from service.matches.documents import REMATCH, document
from service.matches.seating import Seating
from service.repository import Current


class Rematches(Seating):
    def rematch(self, match_id: str, credential: str | None) -> tuple[dict, bool]:
        """The rematch of a finished match, asked by the account (its key) of one of its seats: (the rematch as the
        asker sees it, whether this request created it). Created, it seats the asker at once and invites the other
        accounts by their policies, as any match naming them does; asked again, it is answered as it is, and the
        asker's seat, if it is still invited, accepts it (both players asking is both agreeing)."""
        current = self._load(match_id)
        account = self._asker(current, credential)
        if current.meta.get("tournament"):
            raise Conflict("tournament_match", "a tournament's match is not played again by itself: its tournament "
                                               "pairs its players")
        try:
            seats = match.rematch_seats(current.state)
        except InvalidSetup as refused:
            raise Conflict(refused.reason, refused.message) from None
        rematch_id, created = current.meta.get(REMATCH) or rematch_id_of(match_id), False
        if self._store.meta(rematch_id) is None:
            state = current.state
            try:
                self.create(state["game"], state["options"], seats, credential=credential,
                            clock_spec=state["clock"]["spec"] if state.get("clock") else None,
                            match_id=rematch_id, rated=bool(state.get("rated")), rematch_of=match_id)
                created = True
            except VersionConflict:  # another request created it first: answer that one
                pass
        if current.meta.get(REMATCH) is None:  # named by whoever gets here first, after a crash too
            self._store.annotate(match_id, {REMATCH: rematch_id})
        return self._answered(rematch_id, account, credential), created

    def _asker(self, current: Current, credential: str | None) -> dict:
        """The account asking for a rematch, which must hold a seat of the match: a rematch seats accounts, and a
        seat held by a name and a seat token has none to ask or to invite again."""
        accounts = self._require_accounts()
        if credential is not None and accounts.by_credential(credential) is None \
                and self._seat_of_credential(current.meta, credential) is not None:
            raise Forbidden("account_required", "a rematch is asked with the key of a seat's account; a seat played "
                                                "with a seat token only may join the rematch's open seat instead")
        account = accounts.authenticate(credential)
        if account_seat(current.meta, account["id"]) is None:
            raise Forbidden("not_a_seat", "only the accounts seated in a match may ask for its rematch")
        return account

    def _answered(self, rematch_id: str, account: dict, credential: str | None) -> dict:
        """The rematch as the asker sees it: a seat still invited accepts (the consent flow's own accept)."""
        current = self._load(rematch_id)
        seat = account_seat(current.meta, account["id"])
        if seat in match.invited_seats(current.state):
            try:
                return self.accept(rematch_id, credential)
            except Conflict as refused:
                if refused.reason != "not_invited":
                    raise
                current = self._load(rematch_id)  # the same account's other request accepted it meanwhile
        return document(rematch_id, current.state, seat)

    def invite(self, match_id: str) -> dict:
        """What a link inviting anyone to the match's open seats says: the open seats, and when the match is
        canceled if its invited accounts have not accepted by then (no date: the open seats wait as long as it takes)."""
        state = self._load(match_id).state
        open_seats = [seat for seat, s in enumerate(state["seats"]) if s["open"]] \
            if state["status"] == match.WAITING else []
        if not open_seats:
            raise Conflict("no_open_seats", "this match has no open seat to invite anyone to")
        deadline = match.invitation_deadline(state)
        return {"match": match_id, "open_seats": open_seats,
                **({"expires_at": utc_at(deadline / 1000)} if deadline is not None else {})}


def rematch_id_of(match_id: str) -> str:
    """The id of a match's rematch: the same for every request, so that creating it twice is one match."""
    return hashlib.sha256(f"rematch:{match_id}".encode()).hexdigest()[:32]
