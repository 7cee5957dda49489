"""Seeks (matchmaking): open, read, cancel an account's seek, and the pairing pass that starts the matches
(docs/ladder.md, "Seeks").

Each game's seek pool is one aggregate in the event store ("s:<game>", domain/seeks.py decides it), saved through
the same repository as a match or a tournament. A seek's id names its pool ("<game>-<32 hex>"). A pass (`pair`) runs
in the workers, periodically and nudged by each new seek (workers/janitor.py, one pass per pool at a time): it
appends its decision (expiries and pairings) at the head it read, then creates each paired match with the id the
pairing derived, then appends matches_started. A pass that dies between the two appends leaves the pairing pending
in the pool, and the next pass creates its match (creating it twice is one match); a pass that loses the race to
append (a seek arrived meanwhile) decides again from the new head.

The account's room: a seek holds room for its match among the account's (AccountService.hold_seek: one decision in
the store, whatever races it), refused past MAX_OPEN_SEEKS or while the account's unfinished matches and open seeks
fill MAX_OPEN_MATCHES; its match takes the hold over, so its pairing is never refused for it; a seek closed without a
match gives it back, and a hold whose seek never reached its pool lapses at the seek's expiry.
"""
import random
import re
import threading
import time
import uuid

from domain import seeks
from domain.errors import InvalidSetup
from domain.games import GAMES
from domain.lifecycle import SeatSpec
from eventstore.base import Appended, EventStore, Head, VersionConflict
from eventstore.clock import utc_at
from service.accounts import AccountService
from service.errors import Conflict, Forbidden, NotFound, ServiceError, Unprocessable
from service.matches import MatchService
from service.ratings import initial
from service.ports import NoSeekPasses, SeekScheduler
from service.repository import Current, Repository

POOL = "s:"  # a game's seek pool is kept beside the matches' logs, under this prefix
ATTEMPTS = 20  # appends of one command tried while other processes' changes keep getting in first
BACK_OFF = 0.005  # seconds: the longest pause after the first conflict, growing with each
# A pool's state holds its open seeks and those closed in the last 10 minutes (~0.5 KB each: 200 bots pairing 40
# matches a second close ~48,000 in 10 minutes, ~25 MB). Every process remembers its pools and folds only the new
# events, so a snapshot serves a cold start alone: a rare one (~3 minutes of that load) costs ~1% of the bytes
# the matches it pairs write, where one every 100 events would write the whole state every second.
SNAPSHOT_EVERY = 10_000
SEEK_ID = re.compile(r"^([a-z0-9]{1,40})-[0-9a-f]{32}$")


def pool_key(game: str) -> str:
    return f"{POOL}{game}"


def newcomer(account_id: str, game: str, options: dict, players: int) -> dict:
    """A rating for a seek's terms when nothing rates the accounts (tools and tests): openskill's starting one for
    everybody (mu 25, sigma 25/3), so every rating_range pairs everyone. The service is given the ladders'
    (bootstrap: LadderService.rating_of, the account's rating on the ladder of the game, edition and players)."""
    return initial()


class SeekService:
    def __init__(self, store: EventStore, matches: MatchService, accounts: AccountService,
                 passes: SeekScheduler = NoSeekPasses(), clock=time.time, expiry: float = 600,
                 max_open: int = 5, widen_per_second: float = 0.1, snapshot_every: int = SNAPSHOT_EVERY,
                 ratings=newcomer, sleep=time.sleep):
        """`expiry`: seconds a seek waits for a pairing; `max_open`: open seeks per account (all games);
        `widen_per_second`: how much a seek's rating window grows each second it waits; `ratings(account, game,
        options, players)`: the account's {mu, sigma} for a seek's terms (LadderService.rating_of)."""
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
        self._sleep = sleep
        self._writing = {game: threading.Lock() for game in GAMES}  # gunicorn's gevent workers patch it

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
        seek_id, expiry_ms = f"{game}-{uuid.uuid4().hex}", round(self._expiry * 1000)
        self._matches.tidy_room(account["id"])
        self._accounts.hold_seek(account["id"], seek_id, expiry_ms, self._max_open)
        try:
            state, head, _ = self._change(game, lambda _: seeks.open_seek(seek_id, checked, account, rating,
                                                                          self._now(), expiry_ms), "opening your seek")
        except Exception:
            self._accounts.release_seeks(account["id"], [seek_id])
            raise
        self._passes.schedule(game, head.version)
        return _shown(state, seek_id)

    def cancel(self, seek_id: str, credential: str | None) -> dict:
        """The owner takes its open seek out of the pool; a canceled one answers the same; 409 once paired or
        expired."""
        account = self._accounts.authenticate(credential)
        game = _game_of(seek_id)

        def canceling(pool: dict) -> list[dict]:
            try:
                return seeks.cancel(pool, seek_id, account["id"], self._now())
            except InvalidSetup as refused:
                raise _refusal(refused) from None

        state, _, _ = self._change(game, canceling, "canceling your seek")
        return _shown(state, seek_id)

    def _change(self, game: str, decide, doing: str) -> tuple[dict, Head, list[dict]]:
        """Appends what `decide(pool)` decides at the pool's head, deciding again from the new head while others get
        in first: the pool after it, its head and the events appended. One change of a pool at a time per process:
        the requests of a process (gevent's, by the hundred) would otherwise all read one head and all but one decide
        again, and again."""
        with self._writing[game]:
            for attempt in range(ATTEMPTS):
                current = self._load(game)
                events = decide(current.state)
                if not events:
                    return current.state, current.head, []
                try:
                    state, head = self._save(game, current, events)
                except VersionConflict:  # another process's change: both back off a little, apart
                    self._sleep(random.uniform(0, BACK_OFF * (attempt + 1)))
                    continue
                self._release_closed(current.state, state, events)
                return state, head, events
        raise Conflict("busy", f"the seek pool kept changing while {doing}; try again")

    def _release_closed(self, before: dict, after: dict, events: list[dict]) -> None:
        """Gives back the room held by the seeks these events closed without a match: canceled, expired, their
        pairing refused (a paired seek's match takes its hold over: MatchService.create)."""
        closed: dict[str, list[str]] = {}
        for event in events:
            if event["type"] == "seek_canceled":
                ended = [(after["closed"][event["data"]["seek"]]["account"], event["data"]["seek"])]
            elif event["type"] == "seeks_expired":
                ended = [(after["closed"][seek_id]["account"], seek_id) for seek_id in event["data"]["seeks"]]
            elif event["type"] == "pairing_refused":
                ended = [(seat["account"], seat["seek"]) for seat in before["pending"][event["data"]["match"]]["seats"]
                         if "seek" in seat]
            else:
                continue
            for account_id, seek_id in ended:
                closed.setdefault(account_id, []).append(seek_id)
        for account_id, seek_ids in closed.items():
            self._accounts.release_seeks(account_id, seek_ids)

    def withdraw(self, account_id: str, reason: str) -> list[str]:
        """Cancels the account's open seeks, every game, for `reason` (the operator disabled it): the seeks."""
        canceled = []
        for game in GAMES:
            _, _, events = self._change(game, lambda pool: seeks.withdraw(pool, {account_id}, reason, self._now()),
                                        "canceling the account's seeks")
            canceled += [event["data"]["seek"] for event in events]
        return canceled

    def pair(self, game: str) -> dict:
        """One pairing pass over the game's pool (one at a time: the caller holds the pool's lock): the seeks
        expired, the groups paired, the matches created (also those of pairings a dead pass left); counts of each."""
        state, _, decided = self._change(game, self._pairing, "pairing its seeks")
        return {"expired": sum(len(e["data"]["seeks"]) for e in decided if e["type"] == "seeks_expired"),
                "paired": sum(e["type"] == "seeks_paired" for e in decided), **self._start_pending(game, state)}

    def _pairing(self, pool: dict) -> list[dict]:
        """The pass's decision, pairing no disabled account: the accounts each decision would pair are read afresh,
        and those disabled since their seeks opened (the admin's withdraw may not have reached this pool yet) have
        their seeks canceled instead, and the others paired again without them."""
        now, barred, checked = self._now(), frozenset[str](), set[str]()
        while True:
            events = seeks.pair(pool, now, self._widen, barred)
            pairing = _accounts_of([e["data"] for e in events if e["type"] == "seeks_paired"]) - checked
            disabled = self._accounts.disabled(pairing)
            if not disabled:
                return events
            barred, checked = barred | disabled, checked | pairing

    # --- reads --------------------------------------------------------------------------------------
    def get(self, seek_id: str) -> dict:
        return _shown(self._load(_game_of(seek_id)).state, seek_id)

    def mine(self, credential: str | None) -> dict:
        """The account's open seeks, every game, oldest first in each."""
        account = self._accounts.authenticate(credential)
        return {"seeks": [document({**s, "status": seeks.OPEN}) for s in self._held(account["id"])]}

    # --- the steps ----------------------------------------------------------------------------------
    def _held(self, account_id: str) -> list[dict]:
        return [seek for game in GAMES for seek in seeks.held_by(self._load(game).state, account_id)]

    def _start_pending(self, game: str, pool: dict) -> dict:
        """Creates the match of every pending pairing and notes them started (or refused, with the reason)."""
        outcomes = {match_id: self._create(pairing) for match_id, pairing in pool["pending"].items()}
        if not outcomes:
            return {"started": 0, "refused": 0}

        def noting(pool: dict) -> list[dict]:
            still = {m: outcomes[m] for m in outcomes if m in pool["pending"]}
            return seeks.started([m for m, refusal in still.items() if refusal is None], self._now()) + [
                event for m, refusal in still.items() if refusal is not None
                for event in seeks.refused(m, refusal.reason, self._now())]

        self._change(game, noting, "noting the matches started")
        self._withdraw_disabled([pool["pending"][m] for m, refusal in outcomes.items() if refusal is None])
        refused = sum(refusal is not None for refusal in outcomes.values())
        return {"started": len(outcomes) - refused, "refused": refused}

    def _withdraw_disabled(self, pairings: list[dict]) -> None:
        """Takes out of their new matches the accounts disabled after the pass read them. Read after the match was
        noted on the accounts (its creation), as the operator disables an account before reading its matches: of
        the two, one sees the other, so no disabled account keeps a seat a pairing gave it."""
        for account_id in self._accounts.disabled(_accounts_of(pairings)):
            self._matches.withdraw(account_id)

    def _create(self, pairing: dict) -> ServiceError | None:
        """Creates the pairing's match (once: a second creation finds it); what refused it, if anything did."""
        if self._store.meta(pairing["match"]) is not None:
            return None
        seats: list[SeatSpec] = [{"account": seat["account"]} if "seek" in seat else {"bot": seat["bot"]}
                                 for seat in pairing["seats"]]
        try:
            self._matches.create(pairing["game"], pairing["options"], seats, clock_spec=pairing["clock"],
                                 match_id=pairing["match"], rated=pairing["rated"],
                                 paired_seeks={seat["account"]: seat["seek"] for seat in pairing["seats"]
                                               if "seek" in seat})
        except VersionConflict:
            return None  # created a moment ago by a racing pass
        except ServiceError as refused:
            if refused.status >= 500:  # the store unavailable for now: the pairing stays pending for the next pass
                raise
            return refused
        except InvalidSetup as refused:
            return Unprocessable(refused.reason, refused.message)
        return None

    def _save(self, game: str, current: Current, events: list[dict]) -> tuple[dict, Head]:
        state = seeks.evolve_all(current.state, events)
        meta = {"game": game, "open": str(len(state["open"])), "pending": str(len(state["pending"])),
                "updated_at": repr(self._clock())}
        appended = self._pools.save(game, current, events, state, meta)
        if not isinstance(appended, Appended):  # no idempotency key is given: the store appends or refuses
            raise TypeError(f"a pool's change was taken for a duplicate: {appended}")
        return state, appended.head

    def _load(self, game: str) -> Current:
        try:
            return self._pools.load(game)
        except NotFound:  # no seek ever: an empty pool
            return Current({}, seeks.evolve_all(None, []), Head())

    def _now(self) -> int:
        return round(self._clock() * 1000)


def _accounts_of(pairings: list[dict]) -> set[str]:
    """The accounts seated by these pairings (seeks_paired's data)."""
    return {seat["account"] for pairing in pairings for seat in pairing["seats"] if "account" in seat}


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


def _shown(pool: dict, seek_id: str) -> dict:
    found = seeks.find(pool, seek_id)
    if found is None:
        raise _missing_seek(seek_id)
    return document(found)


def _missing_seek(seek_id: str) -> NotFound:
    return NotFound("seek_not_found", f"no seek {seek_id!r} (a closed seek is forgotten "
                                      f"{seeks.CLOSED_KEPT_MS // 60000} minutes after it closed)")


def _missing_pool(game: str) -> NotFound:
    return NotFound("pool_not_found", f"no seek pool for {game!r}")
