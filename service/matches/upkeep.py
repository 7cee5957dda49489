"""What the timers and the janitor ask of the matches: a deadline passed (a turn clock's timeout, or pending
invitations' expiry), the bot turns and deadlines that crashed processes lost, and the archiving of old matches."""
from domain import clock, match
from eventstore.base import VersionConflict
from service.matches.commands import MatchCommands
from service.matches.reactions import bot_turns, clocks, finished
from service.matches.reactions.clocks import next_deadline
from service.repository import Current

MAX_TIMEOUTS_AT_ONCE = 8  # seats timed out by one timer when their deadlines passed together (a reaction window)
EARLY_WAIT_SECONDS = 1.0  # a timer this early is deferred in its process (RQ keeps whole seconds); earlier: again


class Upkeep(MatchCommands):
    def time_out(self, match_id: str, version: int) -> str:
        """What a timer guarding `version` does when it fires: 'stale' if the match moved on (or the timer is
        a duplicate), 'early' if no deadline has passed yet (it is deferred or scheduled again), else
        'timed_out' once every seat whose time ran out has had its timeout appended."""
        if int(self._meta(match_id)["version"]) != version:
            return "stale"
        outcome = "stale"
        for _ in range(MAX_TIMEOUTS_AT_ONCE):
            current = self._load(match_id)
            deadline = next_deadline(current.state)
            if current.state["version"] != version or deadline is None:
                return outcome
            early = deadline - self._clock()
            if outcome == "stale" and early > 0:  # RQ's scheduler files a job under its whole second
                if early > EARLY_WAIT_SECONDS:
                    return self._reschedule(match_id, current.state)
                self._defer(early, lambda: self.time_out(match_id, version))
                return "early"
            now = self._stamp()
            if current.state["status"] == match.WAITING:  # the only deadline before the deal: the invitations'
                return self._expire_invitations(match_id, current, now)
            late = clock.due(current.state["clock"], clock.millis(now))
            if not late:  # after a timeout, only the seats already late too (a reaction window)
                return outcome
            events = match.time_out(current.state, late[0], clock.millis(now), current.meta["seed"],
                                    current.meta["salt"])
            try:
                state = self._append_now(match_id, current, events, now)
            except VersionConflict:
                return outcome
            self._metrics.clock_timed_out(clock.millis(now) / 1000 - deadline)
            version, outcome = state["version"], "timed_out"
        return outcome

    def _expire_invitations(self, match_id: str, current: Current, now: str) -> str:
        events = match.expire_invitations(current.state, clock.millis(now), current.meta["seed"], current.meta["salt"])
        try:
            self._append_now(match_id, current, events, now)
        except VersionConflict:
            return "stale"
        for seat in current.state["seats"]:
            if seat.get("invited"):
                self._require_accounts().close_matches(seat["account"], [match_id])
        return "expired"

    def _reschedule(self, match_id: str, state: dict) -> str:
        deadline = next_deadline(state)
        if deadline is None:
            return "stale"
        self._timers.schedule(match_id, state["version"], deadline)
        return "early"

    def overdue_clocks(self, grace: float) -> list[tuple[str, int]]:
        """(match, version) of the matches whose deadline passed more than `grace` seconds ago (reactions/clocks.py)."""
        return clocks.overdue(self._store, lambda match_id: self._load(match_id).state, self._clock(), grace)

    def stalled_bot_turns(self, stall_after: float, give_up_after: float) -> list[tuple[str, int, int]]:
        """(match, seat, version) of bot turns awaited too long (reactions/bot_turns.py)."""
        return bot_turns.stalled(self._store, self._clock(), stall_after, give_up_after)

    def archive_finished(self) -> list[str]:
        """Archive the finished matches whose time has come (reactions/finished.py); their ids."""
        return finished.archive_due(self._store, self._clock())
