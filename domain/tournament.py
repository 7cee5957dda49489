"""A tournament: a decider like a match, over the matches it pairs (docs/tournaments.md).

Its events (all public; the seed and salt only at the end):
    tournament_created  {name, game, options, format, entrants: [{name, bot, bot_options?, account?, invited?}],
                         table_size, rounds, deals, max_parallel, clock?, commitment, deal_commitments,
                         invited_by?, invited_until?, owner?}
                                                        owner: the creator's account, when it enters a duplicate
                                                        (the seeds of the matches are then its own)
    entry_accepted      {entrant}                       an invited account accepted its entry
    entry_declined      {entrant}                       an invited account refused it: tournament_canceled follows
    tournament_canceled {reason, entrants}              "declined" or "expired" before any match; tournament_finished
                                                        follows
    round_paired        {round, tables: [{entrants: [entrant per seat], deal?}], byes: [entrant]}
    match_started       {round, table, match}           the match created for a table
    match_recorded      {round, table, match, result}   its result ({winners: [seat], scores}), once
    tournament_finished {seed, salt}                    appended with the last match_recorded
Its state: the created data plus {status, version, rounds: [{tables: [{entrants, deal?, match, result}], byes}],
by_match: {match: [round, table]}, seed, salt, canceled?}. Rounds are numbered from 1, tables and entrants from 0.

Consent (docs/challenges.md): an account entrant other than the creator's own may be `invited`; the tournament then
waits (no match starts) until every invited entrant accepts. One decline, or `invited_until` (ms since the epoch)
passing with an entrant still invited, cancels it before any match: it finishes with `canceled` set and no results.

Fairness: commitment = SHA-256("<salt>:<seed>") as for a match; deal i's seed is HMAC-SHA256(seed, "deal:<i>")
(hex) and deal_commitments[i] = SHA-256("<salt>:<deal seed i>"); Swiss tie-breaks draw from
Rng.derive(seed, "round:<n>"). Everything is revealed by tournament_finished, so pairings and deals can be
checked offline.
"""
import hashlib
import hmac
from math import comb
from typing import Any, NotRequired, TypedDict

from domain import clock, pairing
from domain.bots import bot_options
from domain.errors import InvalidSetup
from domain.games import get_game
from domain.lifecycle import ClockSpec, Invitation, SeatSpec
from domain.match import commitment
from domain.protocol import started
from domain.rng import Rng

ROUND_ROBIN, SWISS, DUPLICATE = "round_robin", "swiss", "duplicate"
FORMATS = (ROUND_ROBIN, SWISS, DUPLICATE)
WAITING, RUNNING, FINISHED = "waiting", "running", "finished"
DECLINED, EXPIRED = "declined", "expired"  # why a tournament was canceled
BYE_POINTS = 1.0  # a bye scores as a win, as in chess Swiss (FIDE); it counts in no share and no rating


class TournamentSpec(TypedDict):
    """A tournament as its creator asks for it (POST /v1/tournaments, api/schemas/tournaments.py), each entrant a
    bot or an account as a match's seat is. A plain dict at run time: the log and the wire stay as they were."""
    game: str
    options: dict[str, Any]
    format: str  # one of FORMATS: checked by create, as the API's schema checks it
    entrants: list[SeatSpec]
    table_size: int
    max_parallel: int
    name: NotRequired[str]
    rounds: NotRequired[int]  # swiss
    deals: NotRequired[int]  # duplicate
    clock: NotRequired[ClockSpec | None]


def deal_seed(seed: str, deal: int) -> str:
    return hmac.new(seed.encode(), f"deal:{deal}".encode(), hashlib.sha256).hexdigest()


def total_matches(format: str, entrants: int, table_size: int, rounds: int, deals: int) -> int:
    if format == ROUND_ROBIN:
        return comb(entrants, table_size) * table_size
    if format == DUPLICATE:
        return deals * entrants
    return rounds * (entrants // table_size)


# --- decide -----------------------------------------------------------------------------------------
def create(spec: TournamentSpec, seed: str, salt: str, max_matches: int,
           invitation: Invitation | None = None, owner: str | None = None) -> list[dict]:
    """`spec`: each account entrant resolved to {name, account, invited?}; `invitation` {by: {account, name}, until: ms}
    when an entrant is invited; `owner` the creator's account, if the creator showed one. Returns the creation and
    the first round's pairing."""
    format, entrants, size = spec["format"], spec["entrants"], spec["table_size"]
    if format not in FORMATS:
        raise InvalidSetup("unknown_format", f"no format {format!r}; formats: {', '.join(FORMATS)}")
    options = get_game(spec["game"]).options(spec["options"], size)
    checked = [_entrant(entrant, i) for i, entrant in enumerate(entrants)]
    accounts = [e["account"] for e in checked if "account" in e]
    if len(set(accounts)) < len(accounts):
        raise InvalidSetup("entrant_twice", "an account enters a tournament once")
    if len(entrants) < 2 or size > len(entrants):
        raise InvalidSetup("too_few_entrants", f"{len(entrants)} entrants cannot fill tables of {size}")
    rounds, deals = spec.get("rounds") or 0, spec.get("deals") or 0
    if format == SWISS and rounds < 1:
        raise InvalidSetup("rounds_required", "a swiss tournament needs `rounds` (1 or more)")
    if format == DUPLICATE:
        _check_duplicate(checked, size, deals, owner)
    total = total_matches(format, len(entrants), size, rounds, deals)
    if total > max_matches:
        raise InvalidSetup("too_many_matches", f"this tournament would play {total} matches; the most is {max_matches}")
    deal_commitments = [commitment(deal_seed(seed, d), salt) for d in range(deals)] if format == DUPLICATE else []
    invited = any(e.get("invited") for e in checked)
    if invited and invitation is None:
        raise InvalidSetup("invitation_required", "an invited entrant needs who invites and until when")
    invitations = ({"invited_by": invitation["by"], "invited_until": invitation["until"]}
                   if invited and invitation else {})
    created = {"type": "tournament_created", "data": {
        "name": spec.get("name") or f"{spec['game']} {format.replace('_', ' ')}", "game": spec["game"],
        "options": options, "format": format, "entrants": checked, "table_size": size,
        "rounds": rounds if format == SWISS else 1, "deals": deals, "max_parallel": spec["max_parallel"],
        **({"clock": clock.spec(dict(timer))} if (timer := spec.get("clock")) is not None else {}),
        "commitment": commitment(seed, salt), "deal_commitments": deal_commitments, **invitations,
        **({"owner": owner} if format == DUPLICATE and accounts else {})}}
    return [created, pair_round(evolve(None, created), seed)]


def _entrant(spec: SeatSpec, index: int) -> dict:
    if (bot := spec.get("bot")) is not None:
        options = bot_options(bot, spec.get("bot_options") or {})
        return {"name": spec.get("name") or f"{bot} #{index}", "bot": bot,
                **({"bot_options": options} if options else {})}
    if spec.get("account"):
        return {"name": spec["name"], "bot": None, "account": spec["account"],
                **({"invited": True} if spec.get("invited") else {})}
    raise InvalidSetup("invalid_entrant", f"entrant {index}: give a bot or an account")


def _check_duplicate(entrants: list[dict], size: int, deals: int, owner: str | None) -> None:
    if deals < 1:
        raise InvalidSetup("deals_required", "a duplicate tournament needs `deals` (1 or more)")
    if size != len(entrants):
        raise InvalidSetup("duplicate_table_size", "in duplicate every deal is played by all the entrants at one "
                                                   f"table: table_size must be {len(entrants)}")
    if any(e.get("account", owner) != owner for e in entrants):
        # an entrant plays every rotation of a deal, and a finished rotation reveals the deal's seed while the
        # others play: whoever sits at them could know every hidden card. Bots see only their view; the
        # creator's own account can fool only the creator (the client seed rule, docs/fairness.md)
        raise InvalidSetup("duplicate_with_accounts", "a duplicate deal's rotations share their cards: its "
                                                      "entrants are built-in bots and at most your own account")


def pair_round(state: dict, seed: str) -> dict:
    """The next round's round_paired event."""
    number = len(state["rounds"]) + 1
    entrants, size = len(state["entrants"]), state["table_size"]
    byes: list[int] = []
    if state["format"] == ROUND_ROBIN:
        tables: list[dict] = [{"entrants": t} for t in pairing.round_robin(entrants, size)]
    elif state["format"] == DUPLICATE:
        tables = [{"entrants": t, "deal": d} for d, t in pairing.duplicate(entrants, state["deals"])]
    else:
        played = [t["entrants"] for r in state["rounds"] for t in r["tables"]]
        bye_counts = [sum(e in r["byes"] for r in state["rounds"]) for e in range(entrants)]
        first_seats = [sum(t[0] == e for t in played) for e in range(entrants)]
        seated, byes = pairing.swiss(points(state), played, bye_counts, first_seats, size,
                                     Rng.derive(seed, f"round:{number}"))
        tables = [{"entrants": t} for t in seated]
    return {"type": "round_paired", "data": {"round": number, "tables": tables, "byes": byes}}


def accept_entry(state: dict, entrant: int) -> list[dict]:
    _require_invited(state, entrant)
    return [{"type": "entry_accepted", "data": {"entrant": entrant}}]


def decline_entry(state: dict, entrant: int, seed: str, salt: str) -> list[dict]:
    _require_invited(state, entrant)
    return [{"type": "entry_declined", "data": {"entrant": entrant}}] + _canceled(DECLINED, [entrant], seed, salt)


def expire_entries(state: dict, now: int, seed: str, salt: str) -> list[dict]:
    """The entries still invited when `invited_until` passed at `now` (ms since the epoch): the tournament is canceled."""
    deadline = entry_deadline(state)
    if deadline is None or now < deadline:
        raise InvalidSetup("not_expired", "no entry of this tournament has expired")
    return _canceled(EXPIRED, invited_entrants(state), seed, salt)


def _require_invited(state: dict, entrant: int) -> None:
    if entrant not in invited_entrants(state):
        raise InvalidSetup("not_invited", "this entry has no invitation pending (accepted, declined, or canceled)")


def _canceled(reason: str, entrants: list[int], seed: str, salt: str) -> list[dict]:
    return [{"type": "tournament_canceled", "data": {"reason": reason, "entrants": entrants}},
            {"type": "tournament_finished", "data": {"seed": seed, "salt": salt}}]


def invited_entrants(state: dict) -> list[int]:
    """The entrants whose account has not accepted yet (none once the tournament no longer waits)."""
    if state["status"] != WAITING:
        return []
    return [i for i, e in enumerate(state["entrants"]) if e.get("invited")]


def entry_deadline(state: dict) -> int | None:
    """When the pending entries expire (ms since the epoch); None when none is pending."""
    return state.get("invited_until") if invited_entrants(state) else None


def to_start(state: dict) -> list[tuple[int, int]]:
    """(round, table) of the tables to start now: not started, in order, as many as max_parallel allows."""
    if state["status"] != RUNNING:
        return []
    tables = [(r, t, table) for r, rnd in enumerate(state["rounds"], 1) for t, table in enumerate(rnd["tables"])]
    running = sum(1 for _, _, table in tables if table["match"] and table["result"] is None)
    waiting = [(r, t) for r, t, table in tables if table["match"] is None]
    return waiting[:max(0, state["max_parallel"] - running)]


def start(state: dict, round: int, table: int, match_id: str) -> list[dict]:
    if state["rounds"][round - 1]["tables"][table]["match"] is not None:
        return []
    return [{"type": "match_started", "data": {"round": round, "table": table, "match": match_id}}]


def record(state: dict, match_id: str, result: dict, seed: str, salt: str) -> list[dict]:
    """The match's result, once (a match not of this tournament, or recorded before: nothing), and what it
    ends: the next Swiss round's pairing, or the tournament."""
    if match_id not in state["by_match"]:
        return []
    round, table = state["by_match"][match_id]
    if state["rounds"][round - 1]["tables"][table]["result"] is not None:
        return []
    recorded = [{"type": "match_recorded", "data": {"round": round, "table": table, "match": match_id,
                                                      "result": result}}]
    after = evolve_all(state, recorded)
    if any(t["result"] is None for t in after["rounds"][-1]["tables"]):
        return recorded
    if len(after["rounds"]) < after["rounds_planned"]:
        return recorded + [pair_round(after, seed)]
    return recorded + [{"type": "tournament_finished", "data": {"seed": seed, "salt": salt}}]


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    data, kind = event["data"], event["type"]
    if kind == "tournament_created":
        waiting = any(e.get("invited") for e in data["entrants"])
        return {**data, "rounds_planned": data["rounds"], "rounds": [], "by_match": {},
                "status": WAITING if waiting else RUNNING, "version": 1, "seed": None, "salt": None}
    state = started(state, event)
    state = {**state, "version": state["version"] + 1}
    if kind == "entry_accepted":
        entrants = list(state["entrants"])
        entrants[data["entrant"]] = {k: v for k, v in entrants[data["entrant"]].items() if k != "invited"}
        waiting = any(e.get("invited") for e in entrants)
        return {**state, "entrants": entrants, "status": WAITING if waiting else RUNNING}
    if kind == "entry_declined":
        return state
    if kind == "tournament_canceled":
        return {**state, "canceled": {"reason": data["reason"], "entrants": data["entrants"]}}
    if kind == "round_paired":
        tables = [{**t, "match": None, "result": None} for t in data["tables"]]
        return {**state, "rounds": state["rounds"] + [{"tables": tables, "byes": data["byes"]}]}
    if kind in ("match_started", "match_recorded"):
        rounds = [dict(r) for r in state["rounds"]]
        current = rounds[data["round"] - 1]
        current["tables"] = list(current["tables"])
        table = dict(current["tables"][data["table"]])
        if kind == "match_started":
            table["match"] = data["match"]
            state = {**state, "by_match": {**state["by_match"], data["match"]: [data["round"], data["table"]]}}
        else:
            table["result"] = data["result"]
        current["tables"][data["table"]] = table
        return {**state, "rounds": rounds}
    if kind == "tournament_finished":
        return {**state, "status": FINISHED, "seed": data["seed"], "salt": data["salt"]}
    raise ValueError(f"not a tournament event: {kind}")


def evolve_all(state: dict | None, events: list[dict]) -> dict:
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("a tournament's log opens with tournament_created")
    return state


# --- reading ----------------------------------------------------------------------------------------
def played(state: dict) -> list[tuple[dict, list[int]]]:
    """(table, entrant per seat) of every recorded match, in pairing order."""
    return [(t, t["entrants"]) for r in state["rounds"] for t in r["tables"] if t["result"] is not None]


def progress(state: dict) -> tuple[int, int]:
    """(matches recorded, matches in the whole tournament)."""
    done = len(played(state))
    total = total_matches(state["format"], len(state["entrants"]), state["table_size"], state["rounds_planned"],
                          state["deals"])
    return done, total


def places(table: dict) -> list[int]:
    """Each seat's place: 1 for the winners, 2 for everyone else (the games name winners, not a full order)."""
    winners = set(table["result"]["winners"])
    return [1 if seat in winners else 2 for seat in range(len(table["entrants"]))]


def shares(table: dict) -> list[float]:
    """Each seat's share of the table: the fraction of the others it finished above, a tie counting half
    (two seats: win 1, draw 0.5, loss 0)."""
    placed = places(table)
    others = len(placed) - 1
    return [sum(1.0 if p < q else 0.5 if p == q else 0.0 for j, q in enumerate(placed) if j != i) / others
            for i, p in enumerate(placed)]


def points(state: dict) -> list[float]:
    """Each entrant's points: its shares of every recorded table, plus BYE_POINTS per bye."""
    totals = [BYE_POINTS * sum(e in r["byes"] for r in state["rounds"]) for e in range(len(state["entrants"]))]
    for table, seated in played(state):
        for entrant, share in zip(seated, shares(table)):
            totals[entrant] += share
    return totals
