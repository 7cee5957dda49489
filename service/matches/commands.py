"""The match's commands: create, move, a bot's turn, resign, and the operator's abort. Each is load -> decide ->
append at the expected head (service/repository.py), with the reactions to a saved change around the append.

The secret seed, its salt and the seat tokens' hashes live in the match's meta, never in the log until the seed and
salt are revealed by match_finished.
"""
import hashlib
import json
import secrets
import time
import uuid
from collections.abc import Callable

from domain import match
from domain.bots import BOTS
from domain.errors import IllegalMove
from domain.lifecycle import ClockSpec, SeatSpec, SeedSource
from domain.protocol import Move
from domain.rng import Rng
from eventstore.base import Duplicate, VersionConflict
from eventstore.chain import canonical
from eventstore.clock import utc_now
from service.errors import Conflict, Unprocessable
from service.matches.callers import Callers, token_digest
from service.matches.documents import document, present
from service.matches.reactions import Change
from service.repository import NEW, Current

ATTEMPTS = 5  # appends of one command tried while other changes of the match keep getting in first


class MatchCommands(Callers):
    def create(self, game: str, options: dict, seats: list[SeatSpec], seed: str | None = None,
               credential: str | None = None, clock_spec: ClockSpec | None = None, tournament: str | None = None,
               match_id: str | None = None, rated: bool = False, paired_seeks: dict[str, str] | None = None,
               seed_owner: str | None = None, rematch_of: str | None = None) -> dict:
        """`credential`: the creator's bearer credential, if any: an account key makes it the owner (who may
        seed a match whose every human seat is its own, and invite other accounts: docs/challenges.md).
        `clock_spec`: the turn clock (docs/clocks.md). `tournament`: the tournament it is played for (whose
        entrants accepted their entry, so their accounts are seated at once); `match_id`: the id it must have
        (default: a new one), so that creating it twice is one match (the second raises VersionConflict).
        `rated`: the match counts on its ladder when it finishes (docs/ladder.md); a tournament rates its own.
        `paired_seeks`: for the match of seeks paired (service/seeks.py), each seated account's seek: every account
        asked for it, and its seek held its room (so a pairing decided is never refused for it).
        `seed_owner`: for a tournament's match, whose seed it counts as (docs/fairness.md): the creator of a
        duplicate tournament that its own account enters. `rematch_of`: the finished match it is the rematch of
        (service/matches/rematches.py)."""
        if rated and tournament:
            raise Unprocessable("rated_tournament", "a tournament's matches are rated by the tournament, not a ladder")
        _check_storable({"game": game, "options": options, "seats": seats, "seed": seed})
        owner = self._caller_account(credential)
        consented = bool(tournament) or paired_seeks is not None
        seats = [self._seat_of_account(spec, owner, consented) if spec.get("account") else spec for spec in seats]
        invitation = self.invitation(owner, seats) if not consented else None
        seed_source: SeedSource = match.SERVER_SEED if seed is None else match.CLIENT_SEED
        seed = secrets.token_hex(32) if seed is None else seed
        salt = secrets.token_hex(16)

        def creating(seats: list[SeatSpec]) -> list[dict]:
            return match.create(game, options, seats, match.commitment(seed, salt), seed_source,
                                owner["id"] if owner else seed_owner, clock_spec, invitation, rated, rematch_of)

        events = creating(seats)  # refuses a match that cannot be made before any account's room is taken
        match_id = match_id or uuid.uuid4().hex
        claimed = self._take_seats(match_id, seats, owner, consented, paired_seeks)
        if claimed != seats:  # an auto account's seat became an invitation
            events = creating(claimed)
        now = self._stamp()
        state = match.evolve_all(None, timed(events, now))
        opening = match.open_events(state, seed)
        state = match.evolve_all(state, timed(opening, now))
        tokens = {seat: secrets.token_urlsafe(24) for seat, s in enumerate(state["seats"])
                  if not s["bot"] and not s["open"] and not s.get("account")}  # an account's key acts for its seat
        secrets_meta = {"seed": seed, "salt": salt, "created_at": utc_now(), "seed_source": seed_source,
                        "tokens": json.dumps([token_digest(tokens[s]) if s in tokens else None
                                              for s in range(len(state["seats"]))]),
                        **({"tournament": tournament} if tournament else {}),
                        **({"invitation": json.dumps(invitation)} if invitation else {})}
        self._store.index(match_id, game)  # first, so that a crash right after the append leaves it findable
        self._append(match_id, NEW, events + opening, state, now, secrets_meta)
        created = document(match_id, state, None)
        for seat, token in tokens.items():
            created["seats"][seat]["token"] = token
        return created

    def move(self, match_id: str, credential: str | None, move: Move, expected_version: int,
             idempotency_key: str | None = None) -> dict:
        current = self._matches.recent(match_id)
        if current is None or current.head.version != expected_version:
            current = self._load(match_id)  # at the expected version, the append alone checks it is current
        seat = self._seat(current.meta, credential, required=True)
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
        earlier = {"seen": match.seen(self._store.read(match_id, upto=version), seat)} if kind.remembers else {}
        move = kind.policy(match.game_of(state), match.view(state, seat), seat, match.legal_moves(state, seat),
                           rng, **earlier, **options)
        self._sleep(max(0.0, started + kind.think_ms(options) / 1000 - self._clock()))  # a steady think time
        key = f"{seat}:bot:{version}"
        try:
            self._play(match_id, current, seat, move, version, key, _fingerprint(move, version))
        except Conflict:
            self._metrics.bot_turn(bot, "stale", None)
            return "stale"
        self._metrics.bot_turn(bot, "played", self._clock() - float(current.meta["updated_at"]))
        return "played"

    def resign(self, match_id: str, credential: str | None) -> dict:
        """The caller's seat gives up (docs/clocks.md, "Resign"): 200 with the match; a retry after it
        resigned answers the same, even once its resignation has ended the match."""
        return self._resign(match_id, lambda current: self._seat(current.meta, credential, required=True))

    def abort(self, match_id: str, reason: str) -> dict:
        """The operator ends a match that has not ended, with no result (docs/operations.md)."""
        for _ in range(ATTEMPTS):
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
                    self._require_accounts().close_matches(seat["account"], [match_id])
            return document(match_id, state, None)
        raise Conflict("busy", "the match kept changing while aborting; try again")

    def _resign(self, match_id: str, seat_of: Callable[[Current], int]) -> dict:
        for _ in range(ATTEMPTS):
            current = self._load(match_id)
            seat = seat_of(current)
            if match.seat_out(current.state, seat) == match.RESIGNED:
                return document(match_id, current.state, seat)
            try:
                events = match.resign(current.state, seat, current.meta["seed"], current.meta["salt"])
            except IllegalMove as refused:  # the match's state is in the way, not the request
                raise Conflict(refused.reason, refused.message) from None
            try:
                state = self._append_now(match_id, current, events)
            except VersionConflict:
                continue
            return document(match_id, state, seat)
        raise Conflict("busy", "the match kept changing while resigning; try again")

    def _play(self, match_id, current, seat, move, expected_version, key, request) -> dict:
        version = current.state["version"]
        if expected_version != version:
            raise Conflict("version_conflict", f"the match is at version {version}, not {expected_version}",
                           current_version=version)
        events = match.decide(current.state, seat, move, current.meta["seed"], current.meta["salt"])
        now = self._stamp()
        state = match.evolve_all(current.state, timed(events, now))
        record = key and json.dumps({"request": request, "first": version + 1, "last": version + len(events),
                                     "status": state["status"], "to_act": match.to_act(state)})
        try:
            appended = self._append(match_id, current, events, state, now,
                                    idempotency=(key, record) if key else None)
        except VersionConflict as conflict:
            self._matches.forget(match_id)
            raise Conflict("version_conflict", f"the match moved on to version {conflict.current}",
                           current_version=conflict.current) from None
        if isinstance(appended, Duplicate):
            return self._replay(match_id, seat, appended.record, request)
        self._metrics.move_played(state["game"])
        finished = state["status"] == match.FINISHED
        return {"version": appended.head.version, "status": state["status"], "to_act": match.to_act(state),
                "events": [present(state, finished, e, seat) for e in appended.events]}

    def _replay(self, match_id, seat, record, request) -> dict:
        """The first answer to a request whose idempotency key was used before."""
        remembered = json.loads(record)
        if remembered["request"] != request:
            raise Unprocessable("idempotency_key_reused",
                                "this Idempotency-Key was used for a different request on this match")
        meta = self._meta(match_id)
        events = self._store.read(match_id, after=remembered["first"] - 1, upto=remembered["last"])
        finished = remembered["status"] == match.FINISHED  # by this move, as the first answer showed them
        return {"version": remembered["last"], "status": remembered["status"], "to_act": remembered["to_act"],
                "events": [present(meta, finished, e, seat) for e in events]}

    def _append_now(self, match_id: str, current: Current, events: list[dict], now: str | None = None) -> dict:
        """Appends `events` at the time `now` (default: this moment); returns the new state."""
        now = now or self._stamp()
        state = match.evolve_all(current.state, timed(events, now))
        self._append(match_id, current, events, state, now)
        return state

    def _append(self, match_id, current, events, state, now, meta=None, idempotency=None):
        """Appends `events`, which make `state`, after `current`'s head, with every reaction's halves around the
        append (reactions/): what the meta says of the match is written in the same step as the events."""
        meta = {**(meta or {}), "game": state["game"], "rules_version": str(match.rules_version(state)),
                "status": state["status"],
                "to_act": json.dumps(match.to_act(state)), "result": json.dumps(state["result"]),
                "seats": json.dumps(state["seats"]), "updated_at": repr(self._clock())}
        change = Change(match_id, current.state, state, current.meta, self._clock())
        for reaction in self._reactions:
            reaction.before(change)
        started = time.perf_counter()
        appended = self._matches.save(match_id, current, events, state, meta, idempotency, time=now)
        self._metrics.appended(time.perf_counter() - started)
        if isinstance(appended, Duplicate):
            return appended
        for reaction in self._reactions:
            reaction.after(change, appended.head)
        return appended


def _server_bot(state: dict, seat: int) -> str | None:
    """The bot kind that plays the seat: its own, or the greedy bot for a zombie (docs/clocks.md)."""
    return state["seats"][seat]["bot"] or ("greedy" if state["seats"][seat].get("zombie") else None)


def timed(events: list[dict], now: str) -> list[dict]:
    """The events with the time the store will give them, so that a turn clock folds them as stored."""
    return [{**event, "time": now} for event in events]


def _check_storable(request: dict):
    """Refuses what the log cannot store (text that is not Unicode) before anything is written."""
    try:
        canonical(request)
    except ValueError as error:
        raise Unprocessable("invalid_text", f"the request cannot be stored as UTF-8 JSON: {error}") from None


def _fingerprint(move, expected_version) -> str:
    return hashlib.sha256(canonical({"move": move, "expected_version": expected_version})).hexdigest()
