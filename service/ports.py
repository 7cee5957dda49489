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


class Metrics(Protocol):
    """The figures the use cases report (observability/metrics.py exports them for Prometheus)."""

    def appended(self, seconds: float) -> None:
        """One append to the event store took `seconds`."""

    def move_played(self, game: str) -> None:
        """A move (a person's or a bot's) was appended to a match of `game`."""

    def bot_turn(self, kind: str, outcome: str, waited: float | None) -> None:
        """A bot of `kind` took its turn: `outcome` "played" or "stale"; `waited`: the seconds from the append
        that made it the bot's turn to the bot's move appended (None when it did not play)."""

    def clock_timed_out(self, lateness: float) -> None:
        """A seat's turn clock ran out and its timeout was appended `lateness` seconds after the deadline."""

    def tournament_match_finished(self) -> None:
        """A match played for a tournament finished."""


class NoMetrics:
    """Reports nowhere: for tools and tests that do not look at figures."""

    def appended(self, seconds: float) -> None:
        return None

    def move_played(self, game: str) -> None:
        return None

    def bot_turn(self, kind: str, outcome: str, waited: float | None) -> None:
        return None

    def clock_timed_out(self, lateness: float) -> None:
        return None

    def tournament_match_finished(self) -> None:
        return None


class Ladders(Protocol):
    """Rated play (service/ladders.py): what a rated match's end asks of it."""

    def note_due(self, match_id: str, since: float) -> None:
        """Before the append that finishes a rated match: its rating is due (the janitor retries it)."""

    def rate(self, match_id: str, state: dict, at: str) -> str:
        """Rates the finished match on its ladder, once however often asked."""


class NoLadders:
    """Rates nothing: for tools and tests that do not look at ladders."""

    def note_due(self, match_id: str, since: float) -> None:
        return None

    def rate(self, match_id: str, state: dict, at: str) -> str:
        return "unrated"


class Transparency(Protocol):
    """The transparency log (service/transparency.py): what a match's end asks of it."""

    def note_due(self, match_id: str, since: float) -> None:
        """Before the append that finishes a match: its leaf is due (the janitor appends it if this process dies)."""

    def record(self, match_id: str, head: str) -> int:
        """Appends the finished match's head hash as a leaf, once however often asked; its index."""


class NoTransparency:
    """Logs nothing: for tools and tests that do not look at the transparency log."""

    def note_due(self, match_id: str, since: float) -> None:
        return None

    def record(self, match_id: str, head: str) -> int:
        return -1


class SeekScheduler(Protocol):
    def schedule(self, game: str, version: int) -> None:
        """Arrange for a pairing pass over the game's seek pool soon (a seek arrived: the pool is at `version`)."""


class NoSeekPasses:
    """Schedules no pairing pass: the periodic one (the workers' janitor) is then the only one."""

    def schedule(self, game: str, version: int) -> None:
        return None
