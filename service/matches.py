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
import time
import uuid
from dataclasses import dataclass

from domain import match
from domain.bots import BOTS
from domain.errors import InvalidSetup
from domain.games import get_game
from domain.rng import Rng
from eventstore.base import Duplicate, EventStore, Head, Snapshot, VersionConflict
from eventstore.chain import canonical
from eventstore.clock import utc_now
from service.accounts import AccountService
from service.audit import EXPORT_FORMAT, Verdict, verify_log
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from service.ports import BotScheduler, NoTournaments, TournamentScheduler
from service.recent import RecentMatches

JOIN_ATTEMPTS = 5
STALLED_BATCH = 1000  # awaited bot turns looked at per janitor pass, oldest first
RECENT_MATCHES = 500  # folded states remembered per process (service/recent.py), 25-60 KB each
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
                 recent_matches: int = RECENT_MATCHES, tournaments: TournamentScheduler = NoTournaments()):
        """`keep_finished_extras`: seconds a finished match keeps its snapshots and idempotency records
        (a late retry of the last move still gets its first answer); the log and meta are kept.
        `accounts`: None serves no accounts (seat tokens only), as a worker that only plays bots needs.
        `recent_matches`: how many matches' folded states this process remembers (0: none).
        `tournaments`: told when a match of a tournament finishes, so the tournament advances."""
        self._store = store
        self._accounts = accounts
        self._bots = bots
        self._snapshot_every = snapshot_every
        self._clock = clock
        self._sleep = sleep
        self._keep_finished_extras = keep_finished_extras
        self._recent = RecentMatches(recent_matches)
        self._tournaments = tournaments

    # --- commands -----------------------------------------------------------------------------------
    def create(self, game: str, options: dict, seats: list[dict], seed: str | None = None,
               credential: str | None = None, tournament: str | None = None) -> dict:
        """`credential`: the creator's bearer credential, if any: an account key makes it the owner (who may
        seed a match whose every human seat is its own). `tournament`: the tournament it is played for."""
        _check_storable({"game": game, "options": options, "seats": seats, "seed": seed})
        owner = self._caller_account(credential)
        seats = [self._seat_of_account(spec) if spec.get("account") else spec for spec in seats]
        seed_source = match.SERVER_SEED if seed is None else match.CLIENT_SEED
        seed = secrets.token_hex(32) if seed is None else seed
        salt = secrets.token_hex(16)
        events = match.create(game, options, seats, match.commitment(seed, salt), seed_source,
                              owner["id"] if owner else None)
        state = match.evolve_all(None, events)
        opening = match.open_events(state, seed)
        state = match.evolve_all(state, opening)
        tokens = {seat: secrets.token_urlsafe(24) for seat, s in enumerate(state["seats"])
                  if not s["bot"] and not s["open"] and not s.get("account")}  # an account's key acts for its seat
        match_id = uuid.uuid4().hex
        seated = [seat["account"] for seat in state["seats"] if seat.get("account")]
        for account_id in seated:
            self._check_room(account_id)
        for account_id in seated:  # before the append, as the catalog: a crash leaves it listed, never lost
            self._accounts.note_match(account_id, match_id)
        secrets_meta = {"seed": seed, "salt": salt, "created_at": utc_now(), "seed_source": seed_source,
                        "tokens": json.dumps([_digest(tokens[s]) if s in tokens else None
                                              for s in range(len(state["seats"]))]),
                        **({"tournament": tournament} if tournament else {})}
        self._store.index(match_id, game)  # first, so that a crash right after the append leaves it findable
        self._append(match_id, Current({}, None, Head()), events + opening, state, secrets_meta)
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
        request = _fingerprint(move, expected_version)
        key = f"{seat}:{idempotency_key}" if idempotency_key else None
        if key:
            prior = self._store.recall(match_id, key)
            if prior:
                return self._replay(match_id, seat, prior, request)
        return self._play(match_id, current, seat, move, expected_version, key, request)

    def play_bot_turn(self, match_id: str, seat: int, version: int) -> str:
        """Play the turn a bot seat is awaited for at `version`; 'stale' if that turn is gone."""
        current = self._load(match_id)
        state = current.state
        bot = state["seats"][seat]["bot"] if 0 <= seat < len(state["seats"]) else None
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
            return "stale"
        return "played"

    # --- reads --------------------------------------------------------------------------------------
    def get(self, match_id: str, token: str | None) -> dict:
        current = self._load(match_id)
        return self.document(match_id, current.state, self._seat(current.meta, token, required=False))

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
                seat = _account_seat(meta, account["id"]) if meta and "status" in meta else None
                if seat is not None and (status is None or meta["status"] == status):
                    found.append({**_summary(match_id, meta), "seat": seat})
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < limit:
                return {"matches": found, "next_cursor": None}

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
        state = match.evolve_all(current.state, events)
        record = json.dumps({"request": request, "first": version + 1, "last": version + len(events),
                             "status": state["status"], "to_act": match.to_act(state)})
        try:
            appended = self._append(match_id, current, events, state, idempotency=(key, record) if key else None)
        except VersionConflict as conflict:
            self._recent.forget(match_id)
            raise Conflict("version_conflict", f"the match moved on to version {conflict.current}",
                           current_version=conflict.current) from None
        if isinstance(appended, Duplicate):
            return self._replay(match_id, seat, appended.record, request)
        finished = state["status"] == match.FINISHED
        return {"version": appended.head.version, "status": state["status"], "to_act": match.to_act(state),
                "events": [present(state["game"], finished, e, seat) for e in appended.events]}

    def _append(self, match_id, current, events, state, meta=None, idempotency=None):
        meta = {**(meta or {}), "game": state["game"], "status": state["status"],
                "to_act": json.dumps(match.to_act(state)), "result": json.dumps(state["result"]),
                "seats": json.dumps(state["seats"]), "updated_at": repr(self._clock())}
        # The indexes cannot share the append's Lua script (other Redis Cluster slots), so they are kept a
        # superset of the truth: listed before the append, unlisted after it.
        began, status_was = self._clock(), current.meta.get("status")
        bots_owed = [seat for seat in match.to_act(state) if state["seats"][seat]["bot"]]
        if bots_owed:
            self._store.await_bot(match_id, began)
        if state["status"] != status_was:
            self._store.list_status(match_id, state["game"], state["status"])
        appended = self._store.append(match_id, current.head, events, meta=meta, idempotency=idempotency)
        if isinstance(appended, Duplicate):
            return appended
        if not bots_owed and current.meta and _bot_seats_to_act(current.meta):
            # only a bot owed before can have been noted; a note left by a crash or a lost race is the janitor's
            self._store.release_bot(match_id, began)
        meta.update(version=str(appended.head.version), head=appended.head.hash)
        self._recent.put(match_id, Current({**current.meta, **meta}, state, appended.head))
        if status_was is not None and state["status"] != status_was:
            self._store.unlist_status(match_id, state["game"], status_was)
        if appended.head.version // self._snapshot_every > current.head.version // self._snapshot_every:
            self._store.save_snapshot(match_id, Snapshot(appended.head.version, appended.head.hash, state))
        if state["status"] == match.FINISHED:
            self._store.expire_extras(match_id, self._keep_finished_extras)
            if current.meta.get("tournament"):
                self._tournament_match_finished(current.meta["tournament"])
        for seat in bots_owed[:1]:  # one at a time: the next append schedules the next (see ONE_BOT_AT_A_TIME)
            self._bots.schedule(match_id, seat, appended.head.version)
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
        """The caller's seat: the one its seat token opens, or the one its account holds."""
        if token is None:
            if required:
                raise token_required()
            return None
        digest = _digest(token)
        for seat, stored in enumerate(json.loads(meta["tokens"])):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        account = self._accounts.by_credential(token) if self._accounts else None
        seat = _account_seat(meta, account["id"]) if account else None
        if seat is None:
            raise Forbidden("token_rejected", "this token belongs to no seat of this match")
        return seat

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
            state = match.evolve_all(current.state, events)
            try:
                self._append(match_id, current, events, state, {"tokens": json.dumps(hashes)})
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
                and (meta["status"] == match.FINISHED or _account_seat(meta, account_id) is None)]
        self._accounts.close_matches(account_id, done)
        if len(open_ids) - len(done) >= self._accounts.max_open_matches:
            raise Conflict("too_many_open_matches", f"an account may be seated in {self._accounts.max_open_matches} "
                                                    "unfinished matches at most: finish some first")

    def _caller_account(self, credential: str | None) -> dict | None:
        return None if credential is None else self._require_accounts().authenticate(credential)

    def _seat_of_account(self, spec: dict) -> dict:
        account = self._require_accounts().resolve(spec["account"])
        return {"name": account["name"], "account": account["id"]}

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
            "seats": _seats(state["seats"]), "to_act": match.to_act(state), "result": state["result"], "you": seat,
            "commitment": state["commitment"], "seed_source": state["seed_source"],
            "view": match.view(state, seat),
        }


def tournament_key(tournament_id: str) -> str:
    """A tournament's id in the event store: its own aggregate, "t:<id>" (eventstore/redis_store.py keys)."""
    return f"t:{tournament_id}"


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
    seats = json.loads(meta["seats"])
    return [seat for seat in json.loads(meta["to_act"]) if seats[seat]["bot"]]


def _seats(seats: list[dict]) -> list[dict]:
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "open": s["open"], "account": s.get("account")}
            for i, s in enumerate(seats)]


def _account_seat(meta: dict, account_id: str) -> int | None:
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
