"""The tournament use cases: create, advance (record finished matches, start the next tables), and the reads:
commands (commands.py), the workers' and the janitor's (upkeep.py) and reads (queries.py) over one repository
(service/repository.py), with what a client is shown in documents.py.

A tournament is its own aggregate in the event store ("t:<id>", service.repository.tournament_key), with the same
hash chain as a match. It advances by itself: `advance(id, version)` runs in the workers (workers/jobs.py),
scheduled after its creation, after each advance that left work, and when one of its matches finishes
(MatchService tells its TournamentScheduler). An advance at a version the tournament has left does nothing; an
advance that loses the race to append leaves its freshly created matches unplayed by the tournament (they are
never recorded: only a table's match_started names its match). The janitor re-schedules a tournament that has
work and has not moved for a while (`stalled`), which recovers jobs lost with a killed worker.
"""
from service.tournaments.commands import TournamentCommands
from service.tournaments.queries import EXPORT_FORMAT, TournamentQueries
from service.tournaments.upkeep import TournamentUpkeep

__all__ = ["EXPORT_FORMAT", "TournamentService"]


class TournamentService(TournamentCommands, TournamentUpkeep, TournamentQueries):
    """Every use case of a tournament, in one object the entry points hold."""
