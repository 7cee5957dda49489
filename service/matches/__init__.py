"""The match aggregate's use cases (docs/architecture.md): commands (commands.py, seating.py, upkeep.py, rematches.py)
and reads (queries.py; exports.py, the streams of finished matches' exports) over one repository
(service/repository.py), with what follows a saved change as reactions
(reactions/), the caller's seat and consent in callers.py and what a client is shown in documents.py.

MatchService is all of them for the layers above: the API, the play socket and the RQ jobs send it the same
commands."""
from service.matches.callers import account_seat, token_required
from service.matches.documents import document, invitation_document, owed_moves, present
from service.matches.exports import Exports, Selection
from service.matches.rematches import Rematches
from service.matches.upkeep import Upkeep

__all__ = ["MatchService", "Selection", "account_seat", "document", "invitation_document", "owed_moves", "present",
           "token_required"]


class MatchService(Rematches, Upkeep, Exports):
    """Every use case of a match, in one object the entry points hold."""
