"""Seeks (matchmaking): open, read, cancel an account's seek, and the pairing pass that starts the matches
(docs/ladder.md, "Seeks").

Each game's seek pool is one aggregate in the event store ("s:<game>", domain/seeks.py decides it), saved through
the same repository as a match or a tournament. A seek's id names its pool ("<game>-<32 hex>"). A pass (`pair`) runs
in the workers, periodically and nudged by each new seek (workers/janitor.py, one pass per pool at a time): it
appends its decision (expiries and pairings) at the head it read, then creates each paired match with the id the
pairing derived, then appends matches_started. A pass that dies between the two appends leaves the pairing pending
in the pool, and the next pass creates its match (creating it twice is one match); a pass that loses the race to
append (a seek arrived meanwhile) decides again from the new head.

The account's room: opening a seek is refused while the account's unfinished matches and open seeks fill
MAX_OPEN_MATCHES, so a seek reserves its match's room when it opens, and its pairing is never refused for it.
"""
import re
import time
import uuid

from openskill.models import PlackettLuce

from domain import seeks
from domain.errors import InvalidSetup
from domain.games import GAMES
from eventstore.base import EventStore, Head, VersionConflict
from eventstore.clock import utc_at
from service.accounts import AccountService
from service.errors import Conflict, Forbidden, NotFound, ServiceError, Unprocessable
from service.matches import MatchService
from service.ports import NoSeekPasses, SeekScheduler
from service.repository import Current, Repository

POOL = "s:"  # a game's seek pool is kept beside the matches' logs, under this prefix
ATTEMPTS = 20  # appends of one command tried while other seeks keep getting in first (a busy pool takes many a second)
SEEK_ID = re.compile(r"^([a-z0-9]{1,40})-[0-9a-f]{32}$")
_MODEL = PlackettLuce()  # the model tournaments rate with (service/ratings.py)


def pool_key(game: str) -> str:
    return f"{POOL}{game}"


def rating_of(account_id: str, game: str, options: dict, players: int) -> dict:
    """The rating the pool pairs the account by, for a seek of these terms: {mu, sigma}, openskill's scale.

    THE SEAM for rated play (issue #30): until accounts are rated, every account has openskill's starting rating
    (mu 25, sigma 25/3), so rating_range pairs everyone with everyone; wired to the ladder, this returns the
    account's rating on the ladder of (game, options, players)."""
    fresh = _MODEL.rating()
    return {"mu": fresh.mu, "sigma": fresh.sigma}


class SeekService:
    def __init__(self, store: EventStore, matches: MatchService, accounts: AccountService,
                 passes: SeekScheduler = NoSeekPasses(), clock=time.time, expiry: float = 600,
                 max_open: int = 5, widen_per_second: float = 0.1, snapshot_every: int = 100, ratings=rating_of):
        """`expiry`: seconds a seek waits for a pairing; `max_open`: open seeks per account (all games);
        `widen_per_second`: how much a seek's rating window grows each second it waits; `ratings`: rating_of."""
        self._pools = Repository(store, seeks.evolve_all, _missing_pool, key=pool_key, snapshot_every=snapshot_every,
                                 remembered=len(GAMES))
        self._store = store
        self._matches = matches
        self._accounts = accounts
        self._passes = passes
        self._clock = clock
        self._expiry = expiry
        self._max_open = max_open
        self._widen = widen_per_second
        self._ratings = ratings

    # --- commands -----------------------------------------------------------------------------------
    def open(self, credential: str | None, request: dict) -> dict:
        """Puts the account's seek in its game's pool: 201 {id, status "open", expires_at, ...}."""
        account = self._accounts.authenticate(credential)
        game = request["game"]
        try:
            checked = seeks.terms(game, request)
        except InvalidSetup as refused:
            raise Unprocessable(refused.reason, refused.message) from None
        rating = self._ratings(account["id"], game, checked["options"], checked["players"])
        seek_id = f"{game}-{uuid.uuid4().hex}"
        for _ in range(ATTEMPTS):
            current = self._load(game)
            self._check_room(account["id"], game, current.state)
            events = seeks.open_seek(seek_id, checked, account, rating, self._now(), round(self._expiry * 1000))
            try:
                state, head = self._save(game, current, events)
            except VersionConflict:
                continue
            self._passes.schedule(game, head.version)
            return document(seeks.find(state, seek_id))
        raise Conflict("busy", "the seek pool kept changing while opening your seek; try again")

    def cancel(self, seek_id: str, credential: str | None) -> dict:
        """The owner takes its open seek out of the pool; a canceled one answers the same; 409 once paired or expired."""
        account = self._accounts.authenticate(credential)
        game = _game_of(seek_id)
        for _ in range(ATTEMPTS):
            current = self._load(game)
            try:
                events = seeks.cancel(current.state, seek_id, account["id"], self._now())
            except InvalidSetup as refused:
                raise _refusal(refused) from None
            if not events:
                return document(seeks.find(current.state, seek_id))
            try:
                state, _ = self._save(game, current, events)
            except VersionConflict:
                continue
            return document(seeks.find(state, seek_id))
        raise Conflict("busy", "the seek pool kept changing while canceling your seek; try again")

    def pair(self, game: str) -> dict:
        """One pairing pass over the game's pool (one at a time: the caller holds the pool's lock): the seeks
        expired, the groups paired, the matches created (also those of pairings a dead pass left); counts of each."""
        current = self._load(game)
        done = {"expired": 0, "paired": 0, "started": 0, "refused": 0}
        for _ in range(ATTEMPTS):
            events = seeks.pair(current.state, self._now(), self._widen)
            if not events:
                break
            try:
                state, head = self._save(game, current, events)
            except VersionConflict:
                current = self._load(game)
                continue
            current = Current(current.meta, state, head)
            done["expired"] += sum(len(e["data"]["seeks"]) for e in events if e["type"] == "seeks_expired")
            done["paired"] += sum(e["type"] == "seeks_paired" for e in events)
            break
        return {**done, **self._start_pending(game, current)}

    # --- reads --------------------------------------------------------------------------------------
    def get(self, seek_id: str) -> dict:
        found = seeks.find(self._load(_game_of(seek_id)).state, seek_id)
        if found is None:
            raise _missing_seek(seek_id)
        return document(found)

    def mine(self, credential: str | None) -> dict:
        """The account's open seeks, every game, oldest first in each."""
        account = self._accounts.authenticate(credential)
        return {"seeks": [document({**s, "status": seeks.OPEN}) for s in self._held(account["id"])]}

    # --- the steps ----------------------------------------------------------------------------------
    def _check_room(self, account_id: str, game: str, pool: dict) -> None:
        """At most `max_open` open seeks (exact within one pool, whose append checks its head; two pools raced at
        once may let one more through), and room for each one's match among the account's open matches."""
        held = len(seeks.held_by(pool, account_id)) + len(self._held(account_id, besides=game))
        if held >= self._max_open:
            raise Conflict("too_many_seeks", f"an account holds {self._max_open} open seeks at most: cancel one, or "
                                             "wait for one to pair or expire")
        self._matches.check_room(account_id, reserved=held)

    def _held(self, account_id: str, besides: str | None = None) -> list[dict]:
        return [seek for game in GAMES if game != besides for seek in seeks.held_by(self._load(game).state, account_id)]

    def _start_pending(self, game: str, current: Current) -> dict:
        """Creates the match of every pending pairing and notes them started (or refused, with the reason)."""
        started, refusals = [], []
        for match_id, pairing in current.state["pending"].items():
            refusal = self._create(pairing)
            if refusal is None:
                started.append(match_id)
            else:
                refusals.append((match_id, refusal))
        for _ in range(ATTEMPTS):
            pending = current.state["pending"]
            events = seeks.started([m for m in started if m in pending], self._now())
            for match_id, refusal in refusals:
                if match_id in pending:
                    events += seeks.refused(match_id, refusal.reason, self._now())
            if not events:
                break
            try:
                self._save(game, current, events)
                break
            except VersionConflict:
                current = self._load(game)
        return {"started": len(started), "refused": len(refusals)}

    def _create(self, pairing: dict) -> ServiceError | None:
        """Creates the pairing's match (once: a second creation finds it); what refused it, if anything did."""
        if self._store.meta(pairing["match"]) is not None:
            return None
        seats = [{"account": seat["account"]} if "seek" in seat else {"bot": seat["bot"]} for seat in pairing["seats"]]
        try:
            # the ladder's merge passes rated=pairing["rated"] here (every seat an account or a house bot, a clock)
            self._matches.create(pairing["game"], pairing["options"], seats, clock_spec=pairing["clock"],
                                 match_id=pairing["match"], paired=True)
        except VersionConflict:
            return None  # created a moment ago by a racing pass
        except ServiceError as refused:
            return refused
        except InvalidSetup as refused:
            return Unprocessable(refused.reason, refused.message)
        return None

    def _save(self, game: str, current: Current, events: list[dict]) -> tuple[dict, Head]:
        state = seeks.evolve_all(current.state, events)
        meta = {"game": game, "open": str(len(state["open"])), "pending": str(len(state["pending"])),
                "updated_at": repr(self._clock())}
        appended = self._pools.save(game, current, events, state, meta)
        return state, appended.head

    def _load(self, game: str) -> Current:
        try:
            return self._pools.load(game)
        except NotFound:  # no seek ever: an empty pool
            return Current({}, seeks.evolve_all(None, []), Head())

    def _now(self) -> int:
        return round(self._clock() * 1000)


def document(seek: dict) -> dict:
    """A seek as a client sees it."""
    return {"id": seek["seek"], "status": seek["status"], "game": seek["game"], "options": seek["options"],
            "players": seek["players"], "clock": seek["clock"], "rated": seek["rated"],
            "rating_range": seek["rating_range"], "rating": seek["rating"], "bot_after": seek["bot_after"],
            "bot": seek["bot"], "account": {"id": seek["account"], "name": seek["name"]},
            "opened_at": _utc(seek["at"]), "expires_at": _utc(seek["expires_at"]),
            "closed_at": _utc(seek.get("closed_at")), "match": seek.get("match"), "seat": seek.get("seat"),
            "reason": seek.get("reason")}


def _utc(millis: int | None) -> str | None:
    return None if millis is None else utc_at(millis / 1000)


def _game_of(seek_id: str) -> str:
    matched = SEEK_ID.match(seek_id)
    if matched is None or matched.group(1) not in GAMES:
        raise _missing_seek(seek_id)
    return matched.group(1)


def _refusal(refused: InvalidSetup) -> ServiceError:
    if refused.reason == "seek_not_found":
        return NotFound(refused.reason, refused.message)
    if refused.reason == "not_your_seek":
        return Forbidden(refused.reason, refused.message)
    return Conflict(refused.reason, refused.message)  # paired or expired already


def _missing_seek(seek_id: str) -> NotFound:
    return NotFound("seek_not_found", f"no seek {seek_id!r} (a closed seek is forgotten "
                                      f"{seeks.CLOSED_KEPT_MS // 60000} minutes after it closed)")


def _missing_pool(game: str) -> NotFound:
    return NotFound("pool_not_found", f"no seek pool for {game!r}")
