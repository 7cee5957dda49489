"""The match use cases: create, join, read as the caller may see it, move, and play a bot's turn.

Every command is load -> decide -> append (with the expected head) -> snapshot -> schedule bots.
The secret seed, its salt and the seat tokens' hashes live in the match's meta, never in the log
until the seed and salt are revealed by match_finished.
"""
import hashlib
import hmac
import json
import secrets
import time
import uuid
from dataclasses import dataclass

from domain import match
from domain.bots import BOTS
from domain.games import get_game
from domain.rng import Rng
from eventstore.base import Duplicate, EventStore, Head, Snapshot, VersionConflict
from eventstore.chain import canonical
from eventstore.clock import utc_now
from service.audit import EXPORT_FORMAT, Verdict, verify_log
from service.errors import Conflict, Forbidden, NotFound, Unauthorized, Unprocessable
from service.ports import BotScheduler

JOIN_ATTEMPTS = 5


@dataclass(frozen=True)
class Current:
    """A match as loaded: its meta (secrets included), its folded state and where its log ends."""
    meta: dict
    state: dict
    head: Head


class MatchService:
    def __init__(self, store: EventStore, bots: BotScheduler, snapshot_every: int = 25, clock=time.time):
        self._store = store
        self._bots = bots
        self._snapshot_every = snapshot_every
        self._clock = clock

    # --- commands -----------------------------------------------------------------------------------
    def create(self, game: str, options: dict, seats: list[dict], seed: str | None = None) -> dict:
        seed_source = "server" if seed is None else "client"
        seed = secrets.token_hex(32) if seed is None else seed
        salt = secrets.token_hex(16)
        events = match.create(game, options, seats, match.commitment(seed, salt), seed_source)
        state = match.evolve_all(None, events)
        opening = match.open_events(state, seed)
        state = match.evolve_all(state, opening)
        tokens = {seat: secrets.token_urlsafe(24) for seat, s in enumerate(state["seats"])
                  if not s["bot"] and not s["open"]}
        match_id = uuid.uuid4().hex
        secrets_meta = {"seed": seed, "salt": salt, "created_at": utc_now(),
                        "tokens": json.dumps([_digest(tokens[s]) if s in tokens else None
                                              for s in range(len(state["seats"]))])}
        self._store.index(match_id, game)  # first, so that a crash right after the append leaves it findable
        self._append(match_id, Current({}, None, Head()), events + opening, state, secrets_meta)
        document = self._document(match_id, state, None)
        for seat, token in tokens.items():
            document["seats"][seat]["token"] = token
        return document

    def join(self, match_id: str, name: str) -> dict:
        for _ in range(JOIN_ATTEMPTS):
            current = self._load(match_id)
            seat, events = match.join(current.state, name, current.meta["seed"])
            token = secrets.token_urlsafe(24)
            hashes = json.loads(current.meta["tokens"])
            hashes[seat] = _digest(token)
            state = match.evolve_all(current.state, events)
            try:
                self._append(match_id, current, events, state, {"tokens": json.dumps(hashes)})
            except VersionConflict:
                continue  # another join (or move) got in first; look again
            return {"seat": seat, "token": token, "match": self._document(match_id, state, seat)}
        raise Conflict("busy", "the match kept changing while joining; try again")

    def move(self, match_id: str, token: str | None, move: dict, expected_version: int,
             idempotency_key: str | None = None) -> dict:
        current = self._load(match_id)
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
        move = BOTS[bot].policy(get_game(state["game"]), match.view(state, seat), seat,
                                match.legal_moves(state, seat), rng, **state["seats"][seat].get("bot_options", {}))
        key = f"{seat}:bot:{version}"
        try:
            self._play(match_id, current, seat, move, version, key, _fingerprint(move, version))
        except Conflict:
            return "stale"
        return "played"

    # --- reads --------------------------------------------------------------------------------------
    def get(self, match_id: str, token: str | None) -> dict:
        current = self._load(match_id)
        return self._document(match_id, current.state, self._seat(current.meta, token, required=False))

    def legal_moves(self, match_id: str, token: str | None) -> dict:
        current = self._load(match_id)
        seat = self._seat(current.meta, token, required=True)
        return {"version": current.state["version"], "seat": seat,
                "moves": match.legal_moves(current.state, seat)}

    def events(self, match_id: str, token: str | None, after: int = 0) -> dict:
        meta = self._meta(match_id)
        seat = self._seat(meta, token, required=False)
        events = self._store.read(match_id, after=after)
        return {"version": int(meta["version"]),
                "events": [_present(meta["game"], meta["status"] == match.FINISHED, e, seat) for e in events]}

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
        document = self._document(match_id, state, seat if as_seat is None else as_seat)
        if full:
            document["full_state"] = state["game_state"]
        return document

    def moves(self, match_id: str) -> dict:
        """Every move so far, in order, with the version it made: the steps to replay a match by."""
        meta = self._meta(match_id)
        steps = [{"version": e["version"], "seat": e["data"]["seat"], "move": e["data"]["move"]}
                 for e in self._store.read(match_id) if e["type"] == "moved"]
        return {"version": int(meta["version"]), "moves": steps}

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
                "events": events if finished else [_present(meta["game"], False, e, seat) for e in events]}

    def audit(self, match_id: str) -> dict:
        """The verifier run on the stored log; before the end with the server's secret seed, which it keeps."""
        meta = self._meta(match_id)
        events = self._store.read(match_id)
        verdict = verify_log(events, seed=meta["seed"], salt=meta["salt"]).as_dict()
        return {**verdict, "summary": Verdict(**verdict).summary()}

    def list_matches(self, game: str | None, status: str | None, cursor: int | None, limit: int) -> dict:
        if game is not None:
            get_game(game)
        found, before = [], cursor
        while len(found) < limit:
            batch = self._store.matches(game, before, 2 * limit)
            for position, match_id in batch:
                before = position
                meta = self._store.meta(match_id)
                if meta and (status is None or meta["status"] == status):
                    found.append(_summary(match_id, meta))
                    if len(found) == limit:
                        return {"matches": found, "next_cursor": position}
            if len(batch) < 2 * limit:
                break
        return {"matches": found, "next_cursor": None}

    def stalled_bot_turns(self, stall_after: float) -> list[tuple[str, int, int]]:
        """(match, seat, version) of bot turns awaited for more than `stall_after` seconds: the turns a
        crashed worker may have lost. Finished matches found on the active list are retired."""
        ids = self._store.active()
        stalled, now = [], self._clock()
        for match_id, meta in zip(ids, self._store.metas(ids)):
            if meta is None or "status" not in meta:
                continue  # created a moment ago, or never appended
            if meta["status"] == match.FINISHED:
                self._store.retire(match_id)
                continue
            if now - float(meta["updated_at"]) < stall_after:
                continue
            seats = json.loads(meta["seats"])
            stalled += [(match_id, seat, int(meta["version"])) for seat in json.loads(meta["to_act"])
                        if seats[seat]["bot"]]
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
            raise Conflict("version_conflict", f"the match moved on to version {conflict.current}",
                           current_version=conflict.current) from None
        if isinstance(appended, Duplicate):
            return self._replay(match_id, seat, appended.record, request)
        finished = state["status"] == match.FINISHED
        return {"version": appended.head.version, "status": state["status"], "to_act": match.to_act(state),
                "events": [_present(state["game"], finished, e, seat) for e in appended.events]}

    def _append(self, match_id, current, events, state, meta=None, idempotency=None):
        meta = {**(meta or {}), "game": state["game"], "status": state["status"],
                "to_act": json.dumps(match.to_act(state)), "result": json.dumps(state["result"]),
                "seats": json.dumps(state["seats"]), "updated_at": repr(self._clock())}
        appended = self._store.append(match_id, current.head, events, meta=meta, idempotency=idempotency)
        if isinstance(appended, Duplicate):
            return appended
        if state["status"] == match.FINISHED:
            self._store.retire(match_id)
        if appended.head.version // self._snapshot_every > current.head.version // self._snapshot_every:
            self._store.save_snapshot(match_id, Snapshot(appended.head.version, appended.head.hash, state))
        for seat in match.to_act(state):
            if state["seats"][seat]["bot"]:
                self._bots.schedule(match_id, seat, appended.head.version)
        return appended

    def _replay(self, match_id, seat, record, request) -> dict:
        """The first answer to a request whose idempotency key was used before."""
        remembered = json.loads(record)
        if remembered["request"] != request:
            raise Unprocessable("idempotency_key_reused",
                                "this Idempotency-Key was used for a different request on this match")
        meta = self._meta(match_id)
        events = self._store.read(match_id, after=remembered["first"] - 1, upto=remembered["last"])
        finished = meta["status"] == match.FINISHED
        return {"version": remembered["last"], "status": remembered["status"], "to_act": remembered["to_act"],
                "events": [_present(meta["game"], finished, e, seat) for e in events]}

    def _load(self, match_id: str, upto: int | None = None) -> Current:
        loaded = self._store.load(match_id, upto=upto)
        if loaded is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        state = match.evolve_all(loaded.snapshot.state if loaded.snapshot else None, loaded.events)
        return Current(loaded.meta, state, loaded.head)

    def _meta(self, match_id: str) -> dict:
        meta = self._store.meta(match_id)
        if meta is None:
            raise NotFound("match_not_found", f"no match {match_id!r}")
        return meta

    @staticmethod
    def _seat(meta: dict, token: str | None, required: bool) -> int | None:
        if token is None:
            if required:
                raise Unauthorized("token_required", "send your seat token as 'Authorization: Bearer <token>'")
            return None
        digest = _digest(token)
        for seat, stored in enumerate(json.loads(meta["tokens"])):
            if stored and hmac.compare_digest(stored, digest):
                return seat
        raise Forbidden("token_rejected", "this token belongs to no seat of this match")

    @staticmethod
    def _document(match_id: str, state: dict, seat: int | None) -> dict:
        return {
            "id": match_id, "game": state["game"], "options": state["options"], "status": state["status"],
            "version": state["version"],
            "seats": _seats(state["seats"]), "to_act": match.to_act(state), "result": state["result"], "you": seat,
            "commitment": state["commitment"], "seed_source": state["seed_source"],
            "view": match.view(state, seat),
        }


def _present(game_id: str, finished: bool, stored: dict, seat: int | None) -> dict:
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
            "created_at": meta["created_at"]}


def _seats(seats: list[dict]) -> list[dict]:
    return [{"seat": i, "name": s["name"], "bot": s["bot"], "open": s["open"]} for i, s in enumerate(seats)]


def _digest(token: str) -> str:
    return hashlib.sha256(token.encode()).hexdigest()


def _fingerprint(move, expected_version) -> str:
    return hashlib.sha256(canonical({"move": move, "expected_version": expected_version})).hexdigest()
