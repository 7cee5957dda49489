"""The seek pool of one game: accounts asking for a match with whoever asks for the same (docs/ladder.md, "Seeks").

A decider like a match or a tournament: the pairing is decided from the pool's log alone. Times are in the events'
data (ms since the epoch), so folding the log gives the same pool wherever and whenever it is folded.

Its events:
    seek_opened      {seek, game, options, players, clock, rated, rating_range, bot_after, bot, account, name,
                      rating, at, expires_at}     an account asks; `rating` {mu, sigma} as it was when it asked
    seek_canceled    {seek, at, reason?}          by its owner (no reason), or for `reason`: the account disabled
    seeks_expired    {seeks, at}                  nobody came before their expires_at
    seeks_paired     {match, game, options, players, clock, rated, seats: [{seek, account} | {bot}], at}
                                                  the decision, appended BEFORE the match is created, with an id
                                                  derived from its seeks: a pass that dies before creating it is
                                                  completed by the next one (creating twice is one match)
    matches_started  {matches, at}                the paired matches created since
    pairing_refused  {match, reason, at}          the match could not be created: its seeks end canceled
Its state: {game, version, open: {seek: seek}, closed: {seek: seek + {status, closed_at, match?, seat?, reason?}},
pending: {match: seeks_paired's data}}: the pairings whose match is not known to be created. A closed seek is
forgotten CLOSED_KEPT_MS after it closed.

The rules of pairing: seeks are compatible when they ask for the same options, players, clock and rated; the oldest
open seek is served first, with the oldest compatible seeks of other accounts whose ratings all fit in every member's
window (its rating_range, widened by `widen_per_second` of waiting; no range: any rating); an account is seated
once per match, and a seek is paired once. A group that stays short of `players` is filled with house bots once
every seek in it has waited its `bot_after` seconds (none: never); a rated one by one house bot at most (a rated
match seats each player once, and a house bot of one kind is one player on its ladder: domain/ladder.py).
"""
import hashlib
import json

from domain import clock
from domain.bots import bot_options
from domain.errors import InvalidSetup
from domain.games import get_game

OPEN, PAIRED, CANCELED, EXPIRED = "open", "paired", "canceled", "expired"
CLOSED_KEPT_MS = 600_000  # a closed seek is still answered for 10 minutes; its match stays on the account's feed
DISABLED = "account_disabled"  # the reason of a seek canceled because the operator disabled its account
HOUSE_BOT = "greedy"  # the bot that fills a seat when a seek asks for one without naming it


# --- decide -----------------------------------------------------------------------------------------
def terms(game: str, request: dict) -> dict:
    """The seek asked for, checked by the game's own rules and the clock's, defaults filled: {game, options, players,
    clock, rated, rating_range, bot_after, bot}. `request` as POST /v1/seeks reads it."""
    players = request["players"]
    options = get_game(game).options(request.get("options") or {}, players)
    clock_spec = clock.spec(request["clock"]) if request.get("clock") is not None else None
    if request.get("rated") and clock_spec is None:
        raise InvalidSetup("clock_required", "a rated seek needs a clock: a rated game cannot wait forever")
    bot_after = request.get("bot_after")
    bot = request.get("bot") or HOUSE_BOT
    bot_options(bot, {})  # refuses an unknown bot
    if request.get("bot") and bot_after is None:
        raise InvalidSetup("bot_without_bot_after", "a seek names its house bot only with bot_after")
    return {"game": game, "options": options, "players": players, "clock": clock_spec,
            "rated": bool(request.get("rated")), "rating_range": request.get("rating_range"), "bot_after": bot_after,
            "bot": bot}


def open_seek(seek_id: str, checked: dict, account: dict, rating: dict, now: int, expiry_ms: int) -> list[dict]:
    """`checked`: the seek's terms(); `account` {id, name}; `rating` {mu, sigma}: the account's rating for them."""
    return [{"type": "seek_opened", "data": {
        "seek": seek_id, **checked, "account": account["id"], "name": account["name"], "rating": rating,
        "at": now, "expires_at": now + expiry_ms}}]


def cancel(state: dict, seek_id: str, account_id: str, now: int) -> list[dict]:
    """The owner's cancellation of an open seek; one canceled already: nothing."""
    seek = state["open"].get(seek_id) or state["closed"].get(seek_id)
    if seek is None:
        raise InvalidSetup("seek_not_found", f"no seek {seek_id!r}")
    if seek["account"] != account_id:
        raise InvalidSetup("not_your_seek", "only the account that opened a seek cancels it")
    status = seek.get("status", OPEN)
    if status == CANCELED:
        return []
    if status != OPEN:
        raise InvalidSetup(f"seek_{status}", f"this seek is {status} already")
    return [_canceled(seek_id, now)]


def withdraw(state: dict, account_ids: set[str], reason: str, now: int) -> list[dict]:
    """The open seeks of these accounts canceled for `reason` (the operator disabled them)."""
    return [_canceled(s["seek"], now, reason) for s in oldest_first(state) if s["account"] in account_ids]


def _canceled(seek_id: str, now: int, reason: str | None = None) -> dict:
    return {"type": "seek_canceled", "data": {"seek": seek_id, "at": now, **({"reason": reason} if reason else {})}}


def pair(state: dict, now: int, widen_per_second: float, barred: frozenset[str] = frozenset()) -> list[dict]:
    """The pass at `now`: the seeks expired, the seeks of the `barred` accounts (disabled) canceled, then the groups
    the rules pair of the others (module docstring)."""
    expired = [s["seek"] for s in oldest_first(state) if s["expires_at"] <= now]
    events = [{"type": "seeks_expired", "data": {"seeks": expired, "at": now}}] if expired else []
    events += [_canceled(s["seek"], now, DISABLED) for s in oldest_first(state)
               if s["account"] in barred and s["seek"] not in expired]
    alike: dict[str, list[dict]] = {}  # compatible seeks, oldest first: only these are ever grouped together
    for seek in oldest_first(state):
        if seek["seek"] not in expired and seek["account"] not in barred:
            alike.setdefault(_terms(seek), []).append(seek)
    paired = [(group[0]["at"], _paired(group, bots, now)) for seeks in alike.values()
              for group, bots in _groups(seeks, now, widen_per_second)]
    return events + [event for _, event in sorted(paired, key=lambda found: found[0])]


def _groups(alike: list[dict], now: int, widen_per_second: float) -> list[tuple[list[dict], list[dict]]]:
    """(seeks, house bots) of each table the compatible seeks `alike` (oldest first) make now."""
    tables: list[tuple[list[dict], list[dict]]] = []
    taken: set[str] = set()
    for anchor in alike:
        if anchor["seek"] in taken:
            continue
        group = _group(anchor, [s for s in alike if s["seek"] not in taken], now, widen_per_second)
        short = anchor["players"] - len(group)
        if short and (not all(_bot_due(s, now) for s in group) or (anchor["rated"] and short > 1)):
            continue
        taken.update(s["seek"] for s in group)
        tables.append((group, [{"bot": anchor["bot"]}] * short))
    return tables


def _group(anchor: dict, candidates: list[dict], now: int, widen_per_second: float) -> list[dict]:
    """The anchor and the oldest seeks of other accounts that fit its group's rating windows."""
    group = [anchor]
    for seek in candidates:
        if len(group) == anchor["players"]:
            break
        if seek is anchor or seek["account"] in {s["account"] for s in group}:
            continue
        if _fits(group + [seek], now, widen_per_second):
            group.append(seek)
    return group


def _paired(group: list[dict], bots: list[dict], now: int) -> dict:
    match_id = match_id_of([s["seek"] for s in group])
    entries = [({"seek": s["seek"], "account": s["account"]}, s["seek"]) for s in group]
    entries += [(bot, f"bot:{i}") for i, bot in enumerate(bots)]
    # seats in an order drawn from the match id: neither the oldest seek nor a bot always moves first
    seats = [seat for seat, label in sorted(entries, key=lambda e: _digest(f"{match_id}:{e[1]}"))]
    agreed = {term: group[0][term] for term in ("game", "options", "players", "clock", "rated")}
    return {"type": "seeks_paired", "data": {"match": match_id, **agreed, "seats": seats, "at": now}}


def started(matches: list[str], now: int) -> list[dict]:
    return [{"type": "matches_started", "data": {"matches": matches, "at": now}}] if matches else []


def refused(match_id: str, reason: str, now: int) -> list[dict]:
    return [{"type": "pairing_refused", "data": {"match": match_id, "reason": reason, "at": now}}]


def match_id_of(seek_ids: list[str]) -> str:
    """The match of a pairing: one id per set of seeks, whoever creates it and however often."""
    return _digest("seeks:" + ",".join(sorted(seek_ids)))[:32]


def _terms(seek: dict) -> str:
    return json.dumps([seek["game"], seek["options"], seek["players"], seek["clock"], seek["rated"]], sort_keys=True)


def window(seek: dict, now: int, widen_per_second: float) -> float | None:
    """How far from its own rating a seek accepts others at `now` (None: any rating)."""
    if seek["rating_range"] is None:
        return None
    return seek["rating_range"] + widen_per_second * max(0, now - seek["at"]) / 1000


def _fits(group: list[dict], now: int, widen_per_second: float) -> bool:
    """Every member's rating is within every member's window of its own."""
    ratings = [s["rating"]["mu"] for s in group]
    windows = [w for w in (window(s, now, widen_per_second) for s in group) if w is not None]
    return not windows or max(ratings) - min(ratings) <= min(windows)


def _bot_due(seek: dict, now: int) -> bool:
    return seek["bot_after"] is not None and now >= seek["at"] + seek["bot_after"] * 1000


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode()).hexdigest()


# --- evolve -----------------------------------------------------------------------------------------
def evolve_all(state: dict | None, events: list[dict]) -> dict:
    """Folds `events` onto a copy of `state` (the pool may hold thousands of seeks: copied once per append, not per
    event; the caller's state is never changed, as a refused append must leave it as it was)."""
    if state is None:
        state = {"version": 0, "open": {}, "closed": {}, "pending": {}}
    state = {**state, "open": dict(state["open"]), "closed": dict(state["closed"]), "pending": dict(state["pending"])}
    for event in events:
        _apply(state, event)
    return state


def _apply(state: dict, event: dict) -> None:
    data, kind = event["data"], event["type"]
    state["version"] += 1
    if kind == "seek_opened":
        state["open"][data["seek"]] = data
    elif kind == "seek_canceled":
        _close(state, data["seek"], CANCELED, data["at"], **({"reason": data["reason"]} if "reason" in data else {}))
    elif kind == "seeks_expired":
        for seek_id in data["seeks"]:
            _close(state, seek_id, EXPIRED, data["at"])
    elif kind == "seeks_paired":
        for seat, taken in enumerate(data["seats"]):
            if "seek" in taken:
                _close(state, taken["seek"], PAIRED, data["at"], match=data["match"], seat=seat)
        state["pending"][data["match"]] = data
    elif kind == "matches_started":
        for match_id in data["matches"]:
            state["pending"].pop(match_id, None)
    elif kind == "pairing_refused":
        for seek_id in (taken.get("seek") for taken in state["pending"].pop(data["match"])["seats"]):
            if seek_id in state["closed"]:
                state["closed"][seek_id] = {**state["closed"][seek_id], "status": CANCELED, "reason": data["reason"]}
    else:
        raise ValueError(f"not a seek pool event: {kind}")
    _forget_closed_before(state, data["at"] - CLOSED_KEPT_MS)


def _close(state: dict, seek_id: str, status: str, at: int, **details) -> None:
    seek = state["open"].pop(seek_id)
    state["closed"][seek_id] = {**seek, "status": status, "closed_at": at, **details}


def _forget_closed_before(state: dict, cutoff: int) -> None:
    """Closed seeks are kept in the order they closed: the oldest go first."""
    gone = []
    for seek_id, seek in state["closed"].items():
        if seek["closed_at"] >= cutoff:
            break
        gone.append(seek_id)
    for seek_id in gone:
        del state["closed"][seek_id]


# --- reading ----------------------------------------------------------------------------------------
def oldest_first(state: dict) -> list[dict]:
    return sorted(state["open"].values(), key=lambda s: s["at"])


def find(state: dict, seek_id: str) -> dict | None:
    """The seek as the pool knows it, with its status (None: never opened here, or closed and forgotten)."""
    if seek_id in state["open"]:
        return {**state["open"][seek_id], "status": OPEN}
    return state["closed"].get(seek_id)


def held_by(state: dict, account_id: str) -> list[dict]:
    """The account's open seeks, oldest first."""
    return [s for s in oldest_first(state) if s["account"] == account_id]
