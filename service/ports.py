"""What the service needs from the outside that is not the event store."""
from typing import Protocol


class BotScheduler(Protocol):
    def schedule(self, match_id: str, seat: int, version: int) -> None:
        """Arrange for the bot at `seat` to play the turn awaited at `version` (at most once per turn)."""

    def requeue(self, match_id: str, seat: int, version: int) -> None:
        """Arrange it again, replacing a job that is not waiting to run (the operator's push for a lost turn)."""


class TurnTimers(Protocol):
    def schedule(self, match_id: str, version: int, at: float) -> None:
        """Arrange for the match's turn clock to be checked at `at` (seconds since the epoch), if the match is
        still at `version` then (at most once per version)."""


class NoTimers:
    """Schedules no timer: the janitor's pass (MatchService.overdue_clocks) is then the only one."""

    def schedule(self, match_id: str, version: int, at: float) -> None:
        return None


class NoBots:
    """A scheduler that schedules nothing: for tools that only read."""

    def schedule(self, match_id: str, seat: int, version: int) -> None:
        return None

    def requeue(self, match_id: str, seat: int, version: int) -> None:
        return None


class TournamentScheduler(Protocol):
    def schedule(self, tournament_id: str, version: int) -> None:
        """Arrange for the tournament to advance from `version` (at most once per version)."""


class NoTournaments:
    """Schedules no tournament: for tools and tests that advance tournaments themselves."""

    def schedule(self, tournament_id: str, version: int) -> None:
        return None


class Quota(Protocol):
    def take(self, who: str) -> float | None:
        """Counts one use by `who`: None while within the quota, else the seconds until it allows one more."""


class NoQuota:
    """No bound: for tests and tools."""

    def take(self, who: str) -> float | None:
        return None
