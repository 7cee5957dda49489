"""The match use cases: create, join, read as the caller may see it, move, and play a bot's turn.

Every command is load -> decide -> append (with the expected head) -> snapshot -> schedule bots.
The secret seed, its salt and the seat tokens' hashes live in the match's meta, never in the log
until the seed and salt are revealed by match_finished.
"""
import hashlib
import hmac
import json
import logging
import secrets
import threading
import time
import uuid
from dataclasses import dataclass
from typing import Callable

from domain import clock, match
from domain.bots import BOTS
from domain.errors import IllegalMove, InvalidSetup
from domain.games import get_game
from domain.rng import Rng
from eventstore.base import Duplicate, EventStore, Head, VersionConflict
from eventstore.chain import canonical
from eventstore.clock import utc_at, utc_now
from service import log_context
from service.accounts import INVITE, REFUSE, AccountService, invitation_from
from service.audit import EXPORT_FORMAT, Verdict, verify_log
from service.errors import Conflict, Forbidden, NotFound, RateLimited, Unauthorized, Unprocessable
from service.ports import (BotScheduler, Metrics, NoMetrics, NoQuota, NoTimers, NoTournaments, Quota,
                           TournamentScheduler, TurnTimers)
from service.recent import RecentMatches

JOIN_ATTEMPTS = 5
MAX_TIMEOUTS_AT_ONCE = 8  # seats timed out by one timer when their deadlines passed together (a reaction window)
EARLY_WAIT_SECONDS = 1.0  # a timer this early is deferred in its process (RQ keeps whole seconds); earlier: again
STALLED_BATCH = 1000  # awaited bot turns looked at per janitor pass, oldest first
OVERDUE_BATCH = 1000  # passed clock deadlines looked at per janitor pass, earliest first
RECENT_MATCHES = 500  # folded states remembered per process (service/recent.py), 25-60 KB each
ARCHIVE_BATCH = 100  # finished matches archived per pass, the longest due first
CHALLENGE_EXPIRY = 600  # seconds an invitation waits for its answer before the match is canceled
log = logging.getLogger(__name__)
# ONE_BOT_AT_A_TIME: when several bot seats are to act at once (9STAX's answers to an effect), only the first
# is scheduled; its move makes a new version, which schedules the next. So one match never holds more than
# one worker, and no search is thrown away because another seat's move got in first.


def token_required() -> Unauthorized:
    return Unauthorized("token_required", "send your seat token as 'Authorization: Bearer <token>'")


@dataclass(frozen=True)
class Current:
    """A match as loaded: its meta (secrets included), its folded state and where its log ends."""
    meta: dict
    state: dict
    head: Head


class MatchService:
    def __init__(self, store: EventStore, bots: BotScheduler, snapshot_every: int = 25, clock=time.time,
                 sleep=time.sleep, keep_finished_extras: int = 86400, accounts: AccountService | None = None,
                 recent_matches: int = RECENT_MATCHES, archive_after: float = 0,
                 timers: TurnTimers | None = None, defer=None, tournaments: TournamentScheduler = NoTournaments(),
                 challenge_expiry: float = CHALLENGE_EXPIRY, invitations: Quota = NoQuota(),
                 metrics: Metrics = NoMetrics()):
        """`keep_finished_extras`: seconds a finished match keeps its snapshots and idempotency records
        (a late retry of the last move still gets its first answer); the log and meta are kept.
        `accounts`: None serves no accounts (seat tokens only), as a worker that only plays bots needs.
        `recent_matches`: how many matches' folded states this process remembers (0: none).
        `archive_after`: seconds after it finished that a match's log is archived (compressed out of the hot
        keys, read back transparently: docs/deployment.md); 0: never.
        `timers`: where a turn clock's next deadline is scheduled (default: nowhere, the janitor's pass only).
        `defer(seconds, call)`: runs `call` that much later without holding the caller (a timer fired
        early by RQ's whole-second scheduling; default: a thread timer, lost with its process, which the
        janitor makes up for).
        `tournaments`: told when a match of a tournament finishes, so the tournament advances.
        `challenge_expiry`: seconds an invited account has to accept before the match is canceled.
        `invitations`: the quota of matches inviting other accounts, per inviting account.
        `metrics`: where moves, appends, bot turns and timeouts are counted."""
        self._store = store
        self._accounts = accounts
        self._bots = bots
        self._snapshot_every = snapshot_every
        self._clock = clock
        self._sleep = sleep
        self._keep_finished_extras = keep_finished_extras
        self._recent = RecentMatches(recent_matches)
        self._archive_after = archive_after
        self._timers = timers or NoTimers()
        self._defer = defer or _in_a_thread
        self._tournaments = tournaments
        self._challenge_expiry = challenge_expiry
        self._invitations = invitations
        self._metrics = metrics

    # --- commands -----------------------------------------------------------------------------------
    def create(self, game: str, options: dict, seats: list[dict], seed: str | None = None,
               credential: str | None = None, clock_spec: dict | None = None, tournament: str | None = None,
               match_id: str | None = None) -> dict:
        """`credential`: the creator's bearer credential, if any: an account key makes it the owner (who may
        seed a match whose every human seat is its own, and invite other accounts: docs/challenges.md).
        `clock_spec`: the turn clock (docs/clocks.md). `tournament`: the tournament it is played for (whose
        entrants accepted their entry, so their accounts are seated at once); `match_id`: the id it must have
        (default: a new one), so that creating it twice is one match (the second raises VersionConflict)."""
        _check_storable({"game": game, "options": options, "seats": seats, "seed": seed})
        owner = self._caller_account(credential)
        seats = [self._seat_of_account(spec, owner, tournament) if spec.get("account") else spec for spec in seats]
        invitation = self.invitation(owner, seats) if not tournament else None
        seed_source = match.SERVER_SEED if seed is None else match.CLIENT_SEED
        seed = secrets.token_hex(32) if seed is None else seed
        salt = secrets.token_hex(16)
        events = match.create(game, options, seats, match.commitment(seed, salt), seed_source,
                              owner["id"] if owner else None, clock_spec, invitation)
        now = self._stamp()
        state = match.evolve_all(None, _timed(events, now))
        opening = match.open_events(state, seed)
        state = match.evolve_all(state, _timed(opening, now))
        tokens = {seat: secrets.token_urlsafe(24) for seat, s in enumerate(state["seats"])
                  if not s["bot"] and not s["open"] and not s.get("account")}  # an account's key acts for its seat
        match_id = match_id or uuid.uuid4().hex
        seated = [seat["account"] for seat in state["seats"] if seat.get("account") and not seat.get("invited")]
        for account_id in seated:
            self._check_room(account_id)
        for seat in state["seats"]:  # before the append, as the catalog: a crash leaves it listed, never lost
            if seat.get("account"):
                self._accounts.note_match(seat["account"], match_id, invited=bool(seat.get("invited")))
        secrets_meta = {"seed": seed, "salt": salt, "created_at": utc_now(), "seed_source": seed_source,
                        "tokens": json.dumps([_digest(tokens[s]) if s in tokens else None
                                              for s in range(len(state["seats"]))]),
                        **({"tournament": tournament} if tournament else {}),
                        **({"invitation": json.dumps(invitation)} if invitation else {})}
        self._store.index(match_id, game)  # first, so that a crash right after the append leaves it findable
        self._append(match_id, Current({}, None, Head()), events + opening, state, now, secrets_meta)
        document = self.document(match_id, state, None)
        for seat, token in tokens.items():
            document["seats"][seat]["token"] = token
        return document

    def join(self, match_id: str, name: str | None, credential: str | None = None) -> dict:
        """Take the first open seat: for the account whose key is `credential` (its key then acts for the
        seat), else anonymously under `name` with a new seat token."""
        account = self._caller_account(credential)
        if account is None and name is None:
            raise Unauthorized("name_or_key_required", "give a name, or join with your account's key")
        token = None if account else secrets.token_urlsafe(24)

        def take_a_seat(current: Current) -> tuple[int, list[dict], str | None]:
            seat, events = match.join(current.state, name or account["name"], current.meta["seed"],
                                      account and account["id"])
            if account:  # the match exists and has a seat for the account: count it, before the append
                self._check_room(account["id"])
                self._accounts.note_match(account["id"], match_id)
            return seat, events, token and _digest(token)

        seat, state = self._change_seats(match_id, take_a_seat, "joining")
        return {"seat": seat, "match": self.document(match_id, state, seat), **({"token": token} if token else {})}

    def accept(self, match_id: str, credential: str | None) -> dict:
        """The invited account takes its seat (docs/challenges.md); the deal follows once no seat is awaited.
        Counts against the account's open matches from now. A retry after it accepted answers the same."""
        account = self._require_accounts().authenticate(credential)

        def take_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._invited_seat(current, account)
            events = match.accept(current.state, seat, current.meta["seed"])
            self._check_room(account["id"])
            self._accounts.note_match(account["id"], match_id)  # before the append: counted, never lost
            return seat, events, None

        current = self._load(match_id)
        seat = self._invited_seat(current, account)
        if current.state["status"] != match.FINISHED and not current.state["seats"][seat].get("invited"):
            return self.document(match_id, current.state, seat)
        seat, state = self._change_seats(match_id, take_the_seat, "accepting")
        return self.document(match_id, state, seat)

    def decline(self, match_id: str, credential: str | None) -> dict:
        """The invited account refuses its seat: the match is canceled. A retry after it declined answers the same."""
        account = self._require_accounts().authenticate(credential)

        def refuse_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._invited_seat(current, account)
            return seat, match.decline(current.state, seat, current.meta["seed"], current.meta["salt"]), None

        current = self._load(match_id)
        seat = self._invited_seat(current, account)
        if (current.state["result"] or {}).get("canceled", {}).get("reason") == match.DECLINED \
                and seat in current.state["result"]["canceled"]["seats"]:
            return self.document(match_id, current.state, seat)
        seat, state = self._change_seats(match_id, refuse_the_seat, "declining")
        self._accounts.close_matches(account["id"], [match_id])
        return self.document(match_id, state, seat)

    def invitations(self, credential: str | None) -> dict:
        """The matches and tournaments inviting the caller's account that await its answer, oldest first;
        forgets the others."""
        account = self._require_accounts().authenticate(credential)
        ids = self._accounts.invitation_ids(account["id"])
        pending, done = [], []
        for match_id, meta in zip(ids, self._store.metas(ids)):
            if not meta or "status" not in meta:
                continue  # noted, its creation not appended yet (or lost by a crash)
            if match_id.startswith(TOURNAMENT):  # answered or expired: forgotten then (service/tournaments.py)
                if meta["status"] == match.WAITING:
                    pending.append(invitation_document(match_id, meta, None))
                else:
                    done.append(match_id)
                continue
            seats = json.loads(meta["seats"])
            seat = account_seat(meta, account["id"])
            if meta["status"] != match.WAITING or seat is None or not seats[seat].get("invited"):
                done.append(match_id)
                continue
            pending.append(invitation_document(match_id, meta, seat))
        if done:
            self._accounts.close_matches(account["id"], done)
        return {"challenges": sorted(pending, key=lambda c: c["created_at"])}

    def leave(self, match_id: str, token: str | None) -> dict:
        """Give the caller's seat up before the deal: it opens again (its token stops working) and the match
        leaves the account's open matches."""
        def give_up_the_seat(current: Current) -> tuple[int, list[dict], None]:
            seat = self._seat(current.meta, token, required=True)
            return seat, match.leave(current.state, seat), None

        _, state = self._change_seats(match_id, give_up_the_seat, "leaving")
        return self.document(match_id, state, None)

    def move(self, match_id: str, token: str | None, move: dict, expected_version: int,
             idempotency_key: str | None = None) -> dict:
        current = self._recent.get(match_id)
        if current is None or current.head.version != expected_version:
            current = self._load(match_id)  # at the expected version, the append alone checks it is current
        seat = self._seat(current.meta, token, required=True)
        if match.played_by_server(current.state, seat):
            raise Unprocessable("seat_played_by_server", "the greedy bot plays this seat to the end of the match "
                                                         "(it resigned, forfeited or timed out too often)")
        key, request = None, None
        if idempotency_key:  # only a request that may be retried needs its fingerprint and its answer kept
            key, request = f"{seat}:{idempotency_key}", _fingerprint(move, expected_version)
            prior = self._store.recall(match_id, key)
            if prior:
                return self._replay(match_id, seat, prior, request)
        return self._play(match_id, current, seat, move, expected_version, key, request)

    def play_bot_turn(self, match_id: str, seat: int, version: int) -> str:
        """Play the turn a bot seat is awaited for at `version`; 'stale' if that turn is gone."""
        current = self._load(match_id)
        state = current.state
        bot = _server_bot(state, seat) if 0 <= seat < len(state["seats"]) else None
        if not bot or state["version"] != version or seat not in match.to_act(state):
            return "stale"
        rng = Rng.derive(current.meta["seed"], f"bot:{seat}:{version}").python_random()
        kind, options = BOTS[bot], state["seats"][seat].get("bot_options", {})
        started = self._clock()
        move = kind.policy(get_game(state["game"]), match.view(state, seat), seat, match.legal_moves(state, seat),
                           rng, **options)
        self._sleep(max(0.0, started + kind.think_ms(options) / 1000 - self._clock()))  # a steady think time
        key = f"{seat}:bot:{version}"
        try:
            self._play(match_id, current, seat, move, version, key, _fingerprint(move, version))
        except Conflict:
            self._metrics.bot_turn(bot, "stale", None)
            return "stale"
        self._metrics.bot_turn(bot, "played", self._clock() - float(current.meta["updated_at"]))
        return "played"

    def resign(self, match_id: str, token: str | None) -> dict:
        """The caller's seat gives up (docs/clocks.md, "Resign"): 200 with the match; a retry after it
        resigned answers the same, even once its resignation has ended the match."""
        return self._resign(match_id, lambda current: self._seat(current.meta, token, required=True))

    def abort(self, match_id: str, reason: str) -> dict:
        """The operator ends a match that has not ended, with no result (docs/operations.md)."""
        for _ in range(JOIN_ATTEMPTS):
            current = self._load(match_id)
            try:
                events = match.abort(current.state, reason, current.meta["seed"], current.meta["salt"])
            except IllegalMove as refused:
                raise Conflict(refused.reason, refused.message) from None
            try:
                state = self._append_now(match_id, current, events)
            except VersionConflict:
                continue
            for seat in state["seats"]:
                if seat.get("account"):
                    self._accounts.close_matches(seat["account"], [match_id])
            return self.document(match_id, state, None)
        raise Conflict("busy", "the match kept changing while aborting; try again")

    def withdraw(self, account_id: str) -> list[str]:
        """Takes an account out of every match it holds or is invited to (a disabled account): resigns its seats
        in running matches, where the greedy bot plays them on (docs/clocks.md), gives up its seats not dealt
        yet and declines its invitations. The matches it changed."""
        changed = []
        for match_id in self._accounts.open_match_ids(account_id) + self._accounts.invitation_ids(account_id):
            try:
                if not match_id.startswith(TOURNAMENT) and self._withdraw_from(match_id, account_id):
                    changed.append(match_id)
            except (NotFound, Conflict) as missed:  # gone, or changing under us: the account's key is refused anyway
                log.warning("account %s not withdrawn from match %s: %s", account_id, match_id, missed.message)
        return changed

    def _withdraw_from(self, match_id: str, account_id: str) -> bool:
        current = self._load(match_id)
        seat, state = account_seat(current.meta, account_id), current.state
        if seat is None or state["status"] == match.FINISHED or match.seat_out(state, seat):
            return False
        if state["status"] == match.ACTIVE:
            self._resign(match_id, lambda _: seat)
        elif state["seats"][seat].get("invited"):
            self._change_seats(match_id, lambda now: (seat, match.decline(now.state, seat, now.meta["seed"],
                                                                          now.meta["salt"]), None), "declining")
        else:
            self._change_seats(match_id, lambda now: (seat, match.leave(now.state, seat), None), "leaving")
        return True

    def _resign(self, match_id: str, seat_of: Callable[[Current], int]) -> dict:
        for _ in range(JOIN_ATTEMPTS):
            current = self._load(match_id)
            seat = seat_of(current)
            if match.seat_out(current.state, seat) == match.RESIGNED:
                return self.document(match_id, current.state, seat)
            try:
                events = match.resign(current.state, seat, current.meta["seed"], current.meta["salt"])
            except IllegalMove as refused:  # the match's state is in the way, not the request
                raise Conflict(refused.reason, refused.message) from None
            try:
                state = self._append_now(match_id, current, events)
            except VersionConflict:
                continue
            return self.document(match_id, state, seat)
        raise Conflict("busy", "the match kept changing while resigning; try again")

    def time_out(self, match_id: str, version: int) -> str:
        """What a timer guarding `version` does when it fires: 'stale' if the match moved on (or the timer is
        a duplicate), 'early' if no deadline has passed yet (it is deferred or scheduled again), else
        'timed_out' once every seat whose time ran out has had its timeout appended."""
        if int(self._meta(match_id)["version"]) != version:
            return "stale"
        outcome = "stale"
        for _ in range(MAX_TIMEOUTS_AT_ONCE):
            current = self._load(match_id)
            deadline = _next_deadline(current.state)
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
                self._accounts.close_matches(seat["account"], [match_id])
        return "expired"

    def overdue_clocks(self, grace: float) -> list[tuple[str, int]]:
        """(match, version) of the matches whose deadline (a turn clock's, or pending invitations') passed more
        than `grace` seconds ago: the timers lost with a crashed worker or a Redis restart. Forgets the matches with no deadline any more
        and notes again the deadline of those whose noted one was not current (a lost race of two notes)."""
        now = self._clock()
        overdue = []
        for match_id, noted in self._store.deadlines_passed(now - grace, OVERDUE_BATCH):
            try:
                state = self._load(match_id).state
            except NotFound:
                state = None
            deadline = _next_deadline(state) if state else None
            if deadline is not None and deadline < now - grace:
                overdue.append((match_id, state["version"]))
            elif deadline != noted:
                self._store.note_deadline(match_id, deadline)
        return overdue

    # --- reads --------------------------------------------------------------------------------------
    def get(self, match_id: str, token: str | None) -> dict:
        _, answer = self.tagged_get(match_id, token)
        return answer()

    def tagged_get(self, match_id: str, token: str | None) -> tuple[dict, Callable[[], dict]]:
        """A read of the match in one store call: its tag (as `tag` gives it) and how to build the answer,
        which a client whose copy is current (304) is spared. The load carries the meta and only the events
        after the version this process remembers (none, when that is current); tag and answer are of the
        same version."""
        current = self._load(match_id)
        seat = self._seat(current.meta, token, required=False)
        tag = {"version": current.head.version, "head": current.head.hash, "seat": seat}
        return tag, lambda: self.document(match_id, current.state, seat)

    def state_for(self, match_id: str, token: str | None) -> tuple[dict, int | None]:
        """The match's folded state and the caller's seat (None: a spectator), for a reader that follows the
        log from there and shows the caller only `document` and `present`."""
        current = self._load(match_id)
        return current.state, self._seat(current.meta, token, required=False)

    def legal_moves(self, match_id: str, token: str | None) -> dict:
        current = self._load(match_id)
        seat = self._seat(current.meta, token, required=True)
        return {"version": current.state["version"], "seat": seat,
                "moves": match.legal_moves(current.state, seat)}

    def tag(self, match_id: str, token: str | None = None, seat_required: bool = False) -> dict:
        """What a read of this match depends on: where its log ends and who reads it. One meta read, no
        load, so a client whose copy is current can be told so without folding the log."""
        meta = self._meta(match_id)
        return {"version": int(meta["version"]), "head": meta["head"],
                "seat": self._seat(meta, token, required=seat_required)}

    def events(self, match_id: str, token: str | None, after: int = 0, limit: int | None = None) -> dict:
        """The log after version `after`, at most `limit` events; `next_after` is where the next page starts
        (None once the page reaches the end). Versions are 1, 2, ... with no gap, so a page is a range."""
        meta = self._meta(match_id)
        seat = self._seat(meta, token, required=False)
        version = int(meta["version"])
        upto = version if limit is None else min(after + limit, version)
        events = self._store.read(match_id, after=after, upto=upto)
        return {"version": version, "next_after": upto if after < upto < version else None,
                "events": [present(meta["game"], meta["status"] == match.FINISHED, e, seat) for e in events]}

    def state_at(self, match_id: str, token: str | None, version: int, as_seat: int | None = None,
                 full: bool = False) -> dict:
        """The match as it was at `version`: the caller's view; once the match is finished, any seat's
        view (`as_seat`) or the full state (`full`) too."""
        loaded = self._load(match_id, upto=version)  # its meta is the match's now, whatever `version`
        meta, state = loaded.meta, loaded.state
        seat = self._seat(meta, token, required=False)
        if not 1 <= version <= int(meta["version"]):
            raise NotFound("version_not_found", f"this match has versions 1 to {meta['version']}")
        if (full or as_seat is not None) and meta["status"] != match.FINISHED:
            raise Forbidden("match_not_finished", "other seats' views and the full state are public at the end")
        if as_seat is not None and not 0 <= as_seat < len(state["seats"]):
            raise NotFound("seat_not_found", f"this match has seats 0 to {len(state['seats']) - 1}")
        document = self.document(match_id, state, seat if as_seat is None else as_seat)
        if full:
            document["full_state"] = state["game_state"]
        return document

    def moves(self, match_id: str) -> dict:
        """The steps to replay a match by: every move so far with the versions around it. A move's events are
        its `moved` event and the game's events that follow up to the next `moved` (domain/match.py), so
        GET .../state?version=<at> is the table the move was made at and ?version=<version> shows its effect;
        `start` is the table as dealt, before the first move (None while seats are open)."""
        meta = self._meta(match_id)
        log = self._store.read(match_id)
        moved = [e for e in log if e["type"] == "moved"]
        ends = [e["version"] - 1 for e in moved[1:]] + [len(log)]
        steps = [{"at": e["version"] - 1, "version": end, "seat": e["data"]["seat"], "move": e["data"]["move"]}
                 for e, end in zip(moved, ends)]
        start = None if meta["status"] == match.WAITING else moved[0]["version"] - 1 if moved else len(log)
        return {"version": len(log), "start": start, "moves": steps}

    def export(self, match_id: str, token: str | None) -> dict:
        """One self-contained document for `cardroom verify`: complete once the match is finished,
        redacted for the caller before."""
        meta = self._meta(match_id)
        seat = self._seat(meta, token, required=False)
        finished = meta["status"] == match.FINISHED
        events = self._store.read(match_id)
        created = events[0]["data"]
        return {"format": EXPORT_FORMAT, "match_id": match_id, "complete": finished, "exported_at": utc_now(),
                "exported_for": None if finished else seat, "game": created["game"],
                "options": created["options"], "seats": _seats(json.loads(meta["seats"])),
                "commitment": created["commitment"], "seed_source": created["seed_source"],
                "events": events if finished else [present(meta["game"], False, e, seat) for e in events]}

    def audit(self, match_id: str) -> dict:
        """The verifier run on the stored log; before the end with the server's secret seed, which it keeps."""
        meta = self._meta(match_id)
        events = self._store.read(match_id)
        verdict = verify_log(events, seed=meta["seed"], salt=meta["salt"]).as_dict()
        return {**verdict, "summary": Verdict(**verdict).summary()}

    def list_matches(self, game: str | None, status: str | None, cursor: int | None, limit: int) -> dict:
        """Reads the status index (or the catalog) and checks each entry against the meta, so an entry left
        under a former status by a crash is skipped, never shown."""
        if game is not None:
            get_game(game)
        found, before = [], cursor
        while True:
            batch = self._store.matches(game, before, limit, status=status)
            for (position, match_id), meta in zip(batch, self._store.metas([m for _, m in batch])):
                before = position
                if meta and (status is None or meta.get("status") == status):
                    found.append(_summary(match_id, meta))
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < limit:
                return {"matches": found, "next_cursor": None}

    def account_matches(self, credential: str | None, status: str | None, cursor: int | None, limit: int) -> dict:
        """The matches of the caller's account, newest first, each with the account's seat; like
        list_matches, each entry is checked against the meta (a seat left, a crash before the append)."""
        account = self._require_accounts().authenticate(credential)
        found, before = [], cursor
        while True:
            batch = self._accounts.match_ids(account["id"], before, limit)
            for (position, match_id), meta in zip(batch, self._store.metas([m for _, m in batch])):
                before = position
                seat = account_seat(meta, account["id"]) if meta and "status" in meta else None
                if seat is not None and (status is None or meta["status"] == status):
                    found.append({**_summary(match_id, meta), "seat": seat})
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < limit:
                return {"matches": found, "next_cursor": None}

    def archive_finished(self) -> list[str]:
        """Archive the finished matches whose time has come (a batch, the longest due first); their ids."""
        return [match_id for match_id in self._store.archives_due(self._clock(), ARCHIVE_BATCH)
                if self._store.archive(match_id)]

    def stalled_bot_turns(self, stall_after: float, give_up_after: float) -> list[tuple[str, int, int]]:
        """(match, seat, version) of bot turns awaited for more than `stall_after` seconds: the turns a
        crashed worker may have lost. Reads only the matches noted as awaiting a bot that long; forgets those
        that no longer do, and gives up on a turn awaited more than `give_up_after` seconds (a bot that
        fails every time), so the janitor's work stays bounded."""
        now = self._clock()
        noted = self._store.bots_awaited(now - stall_after, STALLED_BATCH)
        stalled = []
        for (match_id, since), meta in zip(noted, self._store.metas([m for m, _ in noted])):
            seats = _bot_seats_to_act(meta) if meta and "status" in meta else []
            if not seats:
                self._store.release_bot(match_id, since)  # its bot played, or its creation never got appended
            elif now - since > give_up_after:
                log.error("gave up on the bot turn of match %s at version %s, awaited %.0f s",
                          match_id, meta["version"], now - since)
                self._store.release_bot(match_id, since)
            elif now - float(meta["updated_at"]) >= stall_after:
                stalled.append((match_id, seats[0], int(meta["version"])))  # the one scheduled
        return stalled

    # --- the steps of a command ---------------------------------------------------------------------
    def _play(self, match_id, current, seat, move, expected_version, key, request) -> dict:
        version = current.state["version"]
        if expected_version != version:
            raise Conflict("version_conflict", f"the match is at version {version}, not {expected_version}",
                           current_version=version)
        events = match.decide(current.state, seat, move, current.meta["seed"], current.meta["salt"])
        now = self._stamp()
        state = match.evolve_all(current.state, _timed(events, now))
        record = key and json.dumps({"request": request, "first": version + 1, "last": version + len(events),
                                     "status": state["status"], "to_act": match.to_act(state)})
        try:
            appended = self._append(match_id, current, events, state, now,
                                    idempotency=(key, record) if key else None)
        except VersionConflict as conflict:
            self._recent.forget(match_id)
            raise Conflict("version_conflict", f"the match moved on to version {conflict.current}",
                           current_version=conflict.current) from None
        if isinstance(appended, Duplicate):
            return self._replay(match_id, seat, appended.record, request)
        self._metrics.move_played(state["game"])
        finished = state["status"] == match.FINISHED
        return {"version": appended.head.version, "status": state["status"], "to_act": match.to_act(state),
                "events": [present(state["game"], finished, e, seat) for e in appended.events]}

    def _append_now(self, match_id: str, current: Current, events: list[dict], now: str | None = None) -> dict:
        """Appends `events` at the time `now` (default: this moment); returns the new state."""
        now = now or self._stamp()
        state = match.evolve_all(current.state, _timed(events, now))
        self._append(match_id, current, events, state, now)
        return state

    def _reschedule(self, match_id: str, state: dict) -> str:
        deadline = _next_deadline(state)
        if deadline is None:
            return "stale"
        self._timers.schedule(match_id, state["version"], deadline)
        return "early"

    def _stamp(self) -> str:
        """This moment as the time of the events about to be appended: a turn clock folds the same time."""
        return utc_at(self._clock())

    def _append(self, match_id, current, events, state, now, meta=None, idempotency=None):
        meta = {**(meta or {}), "game": state["game"], "status": state["status"],
                "to_act": json.dumps(match.to_act(state)), "result": json.dumps(state["result"]),
                "seats": json.dumps(state["seats"]), "updated_at": repr(self._clock())}
        # The indexes cannot share the append's Lua script (other Redis Cluster slots), so they are kept a
        # superset of the truth: listed before the append, unlisted after it.
        began, status_was = self._clock(), current.meta.get("status")
        bots_owed = _bots_to_act(state)
        deadline = _next_deadline(state)
        had_deadline = state.get("clock") is not None or bool(current.state and _next_deadline(current.state))
        if deadline is not None:  # noted before the append, so that a crash after it leaves it to the janitor
            self._store.note_deadline(match_id, deadline)
        if bots_owed:
            self._store.await_bot(match_id, began)
        if state["status"] != status_was:
            self._store.list_status(match_id, state["game"], state["status"])
        every = self._snapshot_every  # a snapshot each time the version passes a multiple of it
        snapshot = state if (current.head.version + len(events)) // every > current.head.version // every else None
        started = time.perf_counter()
        appended = self._store.append(match_id, current.head, events, meta=meta, idempotency=idempotency, time=now,
                                      snapshot=snapshot)
        self._metrics.appended(time.perf_counter() - started)
        if isinstance(appended, Duplicate):
            return appended
        if had_deadline and deadline is None:  # forgotten after it: a refused append must not lose the last one
            self._store.note_deadline(match_id, None)
        if not bots_owed and current.state and _bots_to_act(current.state):
            # only a bot owed before can have been noted; a note left by a crash or a lost race is the janitor's
            self._store.release_bot(match_id, began)
        meta.update(version=str(appended.head.version), head=appended.head.hash)
        self._recent.put(match_id, Current({**current.meta, **meta}, state, appended.head))
        if status_was is not None and state["status"] != status_was:
            self._store.unlist_status(match_id, state["game"], status_was)
        if state["status"] == match.FINISHED:
            self._store.expire_extras(match_id, self._keep_finished_extras)
            if self._archive_after:
                self._store.archive_when(match_id, self._clock() + self._archive_after)
            if current.meta.get("tournament"):
                self._metrics.tournament_match_finished()
                self._tournament_match_finished(current.meta["tournament"])
        for seat in bots_owed[:1]:  # one at a time: the next append schedules the next (see ONE_BOT_AT_A_TIME)
            self._bots.schedule(match_id, seat, appended.head.version)
        if deadline is not None:
            self._timers.schedule(match_id, appended.head.version, deadline)
        return appended

    def _tournament_match_finished(self, tournament_id: str) -> None:
        """Schedules the tournament's advance from its version now (service/tournaments.py records the match)."""
        meta = self._store.meta(tournament_key(tournament_id))
        if meta:
            self._tournaments.schedule(tournament_id, int(meta["version"]))

    def _replay(self, match_id, seat, record, request) -> dict:
        """The first answer to a request whose idempotency key was used before."""
        remembered = json.loads(record)
        if remembered["request"] != request:
            raise Unprocessable("idempotency_key_reused",
                                "this Idempotency-Key was used for a different request on this match")
        game = self._meta(match_id)["game"]
        events = self._store.read(match_id, after=remembered["first"] - 1, upto=remembered["last"])
        finished = remembered["status"] == match.FINISHED  # by this move, as the first answer showed them
        return {"version": remembered["last"], "status": remembered["status"], "to_act": remembered["to_act"],
                "events": [present(game, finished, e, seat) for e in events]}

    def _load(self, match_id: str, upto: int | None = None) -> Current:
        """The match at `upto` (default: now). Now: folded onto the state this process remembers, when the
        events read continue its head; the result is remembered."""
        recent = self._recent.get(match_id) if upto is None else None
        loaded = self._store.load(match_id, upto=upto, since=recent.head.version if recent else 0)
        if loaded is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        if recent and loaded.snapshot is None:
            if _continues(recent.head, loaded):
                state = match.evolve_all(recent.state, loaded.events)
                head = loaded.head if loaded.events else recent.head
                return self._remember(match_id, Current(loaded.meta, state, head))
            self._recent.forget(match_id)  # not this log's past (never seen: a log is only appended to)
            return self._load(match_id)
        state = match.evolve_all(loaded.snapshot.state if loaded.snapshot else None, loaded.events)
        current = Current(loaded.meta, state, loaded.head)
        return self._remember(match_id, current) if upto is None else current

    def _remember(self, match_id: str, current: Current) -> Current:
        self._recent.put(match_id, current)
        return current

    def _meta(self, match_id: str) -> dict:
        meta = self._store.meta(match_id)
        if meta is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        return meta

    def _seat(self, meta: dict, token: str | None, required: bool) -> int | None:
        """The caller's seat: the one its seat token opens, or the one its account holds. It goes on the request's
        log lines (only the API knows the match id before the service knows the seat)."""
        if token is None:
            if required:
                raise token_required()
            return None
        seat = self._seat_of_credential(meta, token)
        if seat is None:
            raise Forbidden("token_rejected", "this token belongs to no seat of this match")
        log_context.bind_contextvars(seat=seat)
        return seat

    def _seat_of_credential(self, meta: dict, token: str) -> int | None:
        digest = _digest(token)
        for seat, stored in enumerate(json.loads(meta["tokens"])):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        account = self._accounts.by_credential(token) if self._accounts else None
        return account_seat(meta, account["id"]) if account else None

    def _change_seats(self, match_id: str, change, doing: str) -> tuple[int, dict]:
        """Appends what `change(current)` decides, (seat, events, the seat's new token hash or None), and
        returns the seat and the new state; looks again when another join or leave got in first."""
        for _ in range(JOIN_ATTEMPTS):
            current = self._load(match_id)
            try:
                seat, events, token_hash = change(current)
            except InvalidSetup as refused:  # the match's state is in the way, not the request
                raise Conflict(refused.reason, refused.message) from None
            hashes = json.loads(current.meta["tokens"])
            hashes[seat] = token_hash
            now = self._stamp()
            state = match.evolve_all(current.state, _timed(events, now))
            try:
                self._append(match_id, current, events, state, now, {"tokens": json.dumps(hashes)})
            except VersionConflict:
                continue
            return seat, state
        raise Conflict("busy", f"the match kept changing while {doing}; try again")

    def _check_room(self, account_id: str) -> None:
        """Refuses one more match to an account that holds `max_open_matches` unfinished ones. The open set
        is cleaned here of the matches found finished (or left): it costs one read per open match."""
        open_ids = self._accounts.open_match_ids(account_id)
        metas = self._store.metas(open_ids)
        done = [m for m, meta in zip(open_ids, metas) if meta and "status" in meta
                and (meta["status"] == match.FINISHED or account_seat(meta, account_id) is None)]
        self._accounts.close_matches(account_id, done)
        if len(open_ids) - len(done) >= self._accounts.max_open_matches:
            raise Conflict("too_many_open_matches", f"an account may be seated in {self._accounts.max_open_matches} "
                                                    "unfinished matches at most: finish some first")

    def _caller_account(self, credential: str | None) -> dict | None:
        return None if credential is None else self._require_accounts().authenticate(credential)

    def _seat_of_account(self, spec: dict, owner: dict | None, tournament: str | None) -> dict:
        """The seat of the account `spec` names: the creator's own, or a tournament entrant's (who accepted its
        entry), is seated; another account is invited or seated as its policy says, or refuses."""
        account = self._require_accounts().resolve(spec["account"])
        seat = {"name": account["name"], "account": account["id"]}
        if tournament or (owner and owner["id"] == account["id"]):
            return seat
        if owner is None:
            raise Unauthorized("key_required", "to seat another account, create the match with your own "
                                               "account's key: the account is invited (docs/challenges.md)")
        answer = invitation_from(account, owner["id"])
        if answer == REFUSE:
            raise Forbidden("challenge_refused", f"{account['name']} accepts no invitation from you")
        return {**seat, "invited": answer == INVITE}

    def invitation(self, owner: dict | None, seats: list[dict]) -> dict | None:
        """Who invites, until when, for a match (or a tournament) seating other accounts than the owner's; takes
        one of the owner's quota of such invitations (auto-accepted seats count too: they are seated unasked)."""
        others = [s for s in seats if s.get("account") and s["account"] != (owner or {}).get("id")]
        if not others:
            return None
        retry_after = self._invitations.take(owner["id"])
        if retry_after is not None:
            raise RateLimited("rate_limited", f"your account sent too many invitations; retry in "
                                              f"{retry_after:.0f} s", retry_after=max(1, round(retry_after)))
        return {"by": {"account": owner["id"], "name": owner["name"]},
                "until": clock.millis(utc_at(self._clock() + self._challenge_expiry))}

    def _invited_seat(self, current: Current, account: dict) -> int:
        seat = account_seat(current.meta, account["id"])
        if seat is None:
            raise Forbidden("not_invited", "your account holds no seat of this match")
        return seat

    def _require_accounts(self) -> AccountService:
        if self._accounts is None:
            raise Unprocessable("accounts_unavailable", "this server keeps no accounts")
        return self._accounts

    @staticmethod
    def document(match_id: str, state: dict, seat: int | None) -> dict:
        """The match at `state` as `seat` (None: a spectator) may see it: what GET /v1/matches/<id> answers."""
        return {
            "id": match_id, "game": state["game"], "options": state["options"], "status": state["status"],
            "version": state["version"],
            "seats": _seats(state["seats"], state), "to_act": match.to_act(state), "result": state["result"],
            "you": seat, "commitment": state["commitment"], "seed_source": state["seed_source"],
            "view": match.view(state, seat), **_clock_document(state),
        }


TOURNAMENT = "t:"


def tournament_key(tournament_id: str) -> str:
    """A tournament's id in the event store: its own aggregate, "t:<id>" (eventstore/redis_store.py keys)."""
    return f"{TOURNAMENT}{tournament_id}"


def present(game_id: str, finished: bool, stored: dict, seat: int | None) -> dict:
    """A stored event as the caller may see it; the nonce only once the match is over."""
    shown = match.redact(game_id, finished, stored, seat)
    presented = {"version": stored["version"], "type": stored["type"], "data": shown["data"],
                 "time": stored["time"], "prev": stored["prev"], "hash": stored["hash"]}
    if finished:
        presented["nonce"] = stored["nonce"]
    return presented


def _summary(match_id: str, meta: dict) -> dict:
    return {"id": match_id, "game": meta["game"], "status": meta["status"], "version": int(meta["version"]),
            "seats": _seats(json.loads(meta["seats"])),
            "to_act": json.loads(meta["to_act"]), "result": json.loads(meta["result"]),
            "created_at": meta["created_at"], "seed_source": meta.get("seed_source")}


def _continues(head: Head, loaded) -> bool:
    """Whether the events loaded follow `head` (or, none loaded, the log still ends there)."""
    if loaded.events:
        return loaded.events[0]["version"] == head.version + 1 and loaded.events[0]["prev"] == head.hash
    return int(loaded.meta["version"]) == head.version and loaded.meta["head"] == head.hash


def _bot_seats_to_act(meta: dict) -> list[int]:
    """_bots_to_act from a match's meta (the janitor reads metas, not states)."""
    seated = {"seats": json.loads(meta["seats"])}
    return [seat for seat in json.loads(meta["to_act"]) if match.played_by_server(seated, seat)]


def _bots_to_act(state: dict) -> list[int]:
    return [seat for seat in match.to_act(state) if match.played_by_server(state, seat)]


def _server_bot(state: dict, seat: int) -> str | None:
    """The bot kind that plays the seat: its own, or the greedy bot for a zombie (docs/clocks.md)."""
    return state["seats"][seat]["bot"] or ("greedy" if state["seats"][seat].get("zombie") else None)


def _in_a_thread(seconds: float, call) -> None:
    timer = threading.Timer(seconds, call)
    timer.daemon = True
    timer.start()


def _timed(events: list[dict], now: str) -> list[dict]:
    """The events with the time the store will give them, so that a turn clock folds them as stored."""
    return [{**event, "time": now} for event in events]


def _next_deadline(state: dict) -> float | None:
    """The earliest deadline of the match, in seconds since the epoch: a seat's turn clock, or its pending
    invitations' expiry; None if there is none."""
    deadlines = list(match.deadlines(state).values())
    invitations = match.invitation_deadline(state)
    deadlines += [invitations] if invitations is not None else []
    return min(deadlines) / 1000 if deadlines else None


def _seats(seats: list[dict], state: dict | None = None) -> list[dict]:
    """The seats as shown; with the match's `state`, also why a seat is out."""
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "open": s["open"], "account": s.get("account"),
             "invited": bool(s.get("invited")), "zombie": bool(s.get("zombie")),
             **({"out": match.seat_out(state, i)} if state else {})}
            for i, s in enumerate(seats)]


def _clock_document(state: dict) -> dict:
    """The turn clock as a client shows it: `deadline`, when the first decision awaited times out (absolute
    UTC, so a countdown does not drift), and per seat its bank as its pending decision began, that
    decision's deadline and its timeouts so far. Nothing for a match without a clock."""
    timer = state.get("clock")
    if timer is None:
        return {}
    deadlines = match.deadlines(state)
    seats = [{"bank_ms": timer["bank"][seat] if timer["spec"]["bank_ms"] else None,
              "deadline": utc_at(deadlines[seat] / 1000) if seat in deadlines else None,
              "timeouts": timer["timeouts"][seat]} for seat in range(len(state["seats"]))]
    return {"clock": {**timer["spec"], "seats": seats},
            "deadline": utc_at(min(deadlines.values()) / 1000) if deadlines else None}


def invitation_document(ref: str, meta: dict, seat: int | None) -> dict:
    """A pending invitation as the invited account is told of it (GET /v1/accounts/me/challenges, the feed):
    to a match's `seat`, or to a tournament (`ref` "t:<id>", no seat)."""
    invitation = json.loads(meta["invitation"])
    to = {"tournament": ref.removeprefix(TOURNAMENT)} if ref.startswith(TOURNAMENT) else {"match": ref, "seat": seat}
    return {**to, "game": meta["game"], "by": invitation["by"], "expires_at": utc_at(invitation["until"] / 1000),
            "created_at": meta["created_at"]}


def account_seat(meta: dict, account_id: str) -> int | None:
    return next((i for i, s in enumerate(json.loads(meta["seats"])) if s.get("account") == account_id), None)


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _check_storable(request: dict):
    """Refuses what the log cannot store (text that is not Unicode) before anything is written."""
    try:
        canonical(request)
    except ValueError as error:
        raise Unprocessable("invalid_text", f"the request cannot be stored as UTF-8 JSON: {error}") from None


def _fingerprint(move, expected_version) -> str:
    return hashlib.sha256(canonical({"move": move, "expected_version": expected_version})).hexdigest()
