"""A match: the lifecycle around one game (seats, joins, the deal, the end and the seed reveal).

It is a decider too. Its own events are public; the game's events are redacted by the game:
    match_created  {game, options, seats: [{name, bot, open, bot_options?, bot_level?, account?, invited?}], commitment,
                    seed_source, invited_by?, invited_until?, rated?, rematch_of?, rules_version, engine_version}
                   rated: counts on its ladder; rematch_of: the finished match it is the rematch of;
                   rules_version: the game's (INFO.rules_version), engine_version: this lifecycle's (ENGINE_VERSION);
                   a log made before they were logged names neither: version 1 of both
    seat_joined    {seat, name, account?}
    seat_left      {seat}                    a seat given up before the deal: it is open again
    seat_accepted  {seat}                    the invited account took its seat (see CHALLENGES below)
    seat_declined  {seat}                    the invited account refused it: the match is canceled
    match_canceled {reason, seats}           "declined" or "expired" by the invited `seats`; match_finished follows
    <game events>  the deal when the last seat is filled
    moved          {seat, move}              each move, followed by the game's events it decided
    seat_resigned  {seat}                    the seat is out (see OUT below)
    turn_timed_out {seat, version}           the seat's clock ran out at that version; followed by the greedy
                                             bot's move for it, or seat_forfeited, or match_aborted
    seat_forfeited {seat}                    the seat is out for running out of time
    match_aborted  {seat}                    that seat's first decision never came: the match ends, no result
                   {by: "operator", reason}  or the operator stopped it (POST /v1/admin/matches/<id>/abort)
    match_finished {result, seed, salt}      appended with the move that ends the game
Its state: {game, options, seats, status, version, commitment, seed_source, game_state, result, seed, salt,
clock, out}: `clock` is the turn clock (domain/clock.py; None without one), `out` maps a seat (as a string)
to "resigned" or "forfeited".

OUT: a seat that resigned or forfeited cannot win. When fewer than two seats are still in, the match ends
at once and the seats still in win; otherwise the others play on and the out seat's decisions are made by
the greedy bot in the workers, as a bot seat's (a "zombie" seat: `seats[i]["zombie"]`). A seat that timed
out `zombie_after` times is played the same way to the end, but stays in. The result names both:
`{"winners", "scores", "out": {seat: why}, "zombies": [seats]}`; an aborted match's result is
`{"winners": [], "scores": {}, "aborted": {"seat", "reason"}}` (an operator's: `{"by": "operator", "reason"}`) and
counts for nobody.

CHALLENGES: a seat of another account than the creator's is `invited` (the service decides which, by the account's
own policy): the match waits, dealing nothing, until every invited seat is accepted; one decline, or
`invited_until` (ms since the epoch) passing with a seat still invited, cancels it. A canceled match ends like an
aborted one, before any card was dealt: `{"winners": [], "scores": {}, "canceled": {"reason", "seats"}}`.

The events' data and what a match is created from are typed in domain/lifecycle.py.

Fairness: commitment = SHA-256 of "<salt>:<seed>" (hex); every random draw comes from Rng.derive(seed, label)
(see domain/rng.py), and the seed and salt are revealed in match_finished.
"""
import hashlib
from itertools import groupby
from typing import Final

from domain import clock, ladder
from domain.errors import InvalidSetup
from domain.games import FIRST_RULES, get_game
from domain.bots import BOTS, bot_options, level_of
from domain import lifecycle
from domain.lifecycle import (CancelReason, ClockSpec, Invitation, MatchCreated, OperatorAborted, Seat, SeatEventKind,
                              SeatJoined, SeatSpec, SeedSource)
from domain.protocol import Game, Seen, require, started
from domain.rng import Rng

WAITING, ACTIVE, FINISHED = "waiting", "active", "finished"
SERVER_SEED: Final = "server"  # seed_source: who chose the seed
CLIENT_SEED: Final = "client"
MATCH_EVENTS = ("match_created", "seat_joined", "seat_left", "seat_accepted", "seat_declined", "match_canceled",
                "moved", "seat_resigned", "turn_timed_out", "seat_forfeited", "match_aborted",
                "match_finished")  # public; the rest are the game's
DECLINED: Final = "declined"  # why a match was canceled
EXPIRED: Final = "expired"
RESIGNED, FORFEITED = "resigned", "forfeited"
# The version of the lifecycle around the games (this module, domain/clock.py, domain/rng.py's recipe), logged in
# match_created beside the game's rules version: a change to what these decide for a logged command is a new version
ENGINE_VERSION: Final = 1


def commitment(seed: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


# --- decide -----------------------------------------------------------------------------------------
def create(game_id: str, options: dict, seats: list[SeatSpec], seed_commitment: str, seed_source: SeedSource,
           owner: str | None = None, clock_spec: ClockSpec | None = None,
           invitation: Invitation | None = None, rated: bool = False, rematch_of: str | None = None,
           rules_version: int | None = None) -> list[dict]:
    """`rated`: the match counts on its ladder (domain/ladder.py), which only some matches may.
    `rematch_of`: the finished match whose rematch this is (`rematch_seats`). `rules_version`: the
    game's rules it is played by (default: the current ones; the verifier re-creates a logged match by its own).
    `seats[i]["account"]` is an account's id (an account holds one seat of a match at most), invited if
    `seats[i]["invited"]`; `owner` is the creator's account, if the creator showed one; `clock_spec` the turn
    clock asked for (None: no clock); `invitation` {by: {account, name}, until: ms} when a seat is invited."""
    game = get_game(game_id, rules_version)
    checked = game.options(options, len(seats))
    timer = clock.spec(dict(clock_spec)) if clock_spec is not None else None
    seated = [_seat(spec, i) for i, spec in enumerate(seats)]
    accounts = [seat["account"] for seat in seated if "account" in seat]
    if len(set(accounts)) < len(accounts):
        raise InvalidSetup("account_seated_twice", "an account holds one seat of a match at most")
    if seed_source == CLIENT_SEED:
        check_seed_owner_plays_every_human_seat(seated, owner)
    invited = any(seat.get("invited") for seat in seated)
    if invited and invitation is None:
        raise InvalidSetup("invitation_required", "an invited seat needs who invites and until when")
    created: MatchCreated = {"game": game_id, "options": checked, "seats": seated, "commitment": seed_commitment,
                             "seed_source": seed_source, "rules_version": game.INFO.rules_version,
                             "engine_version": ENGINE_VERSION}
    if seed_source == CLIENT_SEED and owner:
        # the owner of a client seed is logged, so that the verifier can check the seed rule as it was applied
        created["owner"] = owner
    if timer is not None:
        created["clock"] = timer
    if invited and invitation:
        created["invited_by"], created["invited_until"] = invitation["by"], invitation["until"]
    if rated:  # absent when unrated: the logs of before rating stay the same
        ladder.check_rated(seated, clock_spec is not None, seed_source == SERVER_SEED)
        created["rated"] = True
    if rematch_of:  # absent otherwise: the logs of before rematches stay the same
        created["rematch_of"] = rematch_of
    return [lifecycle.event("match_created", created)]


def rematch_seats(state: dict) -> list[SeatSpec]:
    """The seats of a finished match's rematch, each moved one seat on (the last to the first), so that who
    opened does not open again: an account's seat names the same account (invited by its policy, as any other
    match's), a house bot's is the same bot with the same options, and a seat played without an account (a
    name and a seat token) is open, as nobody can be asked for it."""
    if state["status"] != FINISHED:
        raise InvalidSetup("match_not_finished", "a rematch follows a finished match")
    if state["game_state"] is None:
        raise InvalidSetup("match_not_played",
                           "this match ended before its deal (canceled or aborted): there is nothing to play again")
    specs: list[SeatSpec] = []
    for seat in state["seats"]:
        if seat["bot"]:
            specs.append({"name": seat["name"], "bot": seat["bot"], "bot_options": seat.get("bot_options", {})})
        elif seat.get("account"):
            specs.append({"account": seat["account"]})
        else:
            specs.append({"open": True})
    return specs[-1:] + specs[:-1]


def check_seed_owner_plays_every_human_seat(seats: list[Seat], owner: str | None = None) -> None:
    """The fairness rule for a seed the client chose (docs/fairness.md): whoever knows the seed knows every
    hidden card, so it may only decide cards hidden from the seed's owner. Every seat must be the owner's
    (a named seat: the creator gets its token) or a bot (played by the server from its view alone); an open
    seat would let a stranger join a table whose cards the creator can compute. A seat of an account is the
    owner's only if it is the `owner`'s account (the creator's, shown by its key)."""
    strangers = [i for i, seat in enumerate(seats) if seat["open"] or seat.get("account", owner) != owner]
    if strangers:
        raise InvalidSetup("client_seed_with_open_seats",
                           f"a client seed would let its owner compute the hidden cards of whoever plays seat "
                           f"{', '.join(map(str, strangers))}: leave out the seed (the server draws one) or "
                           f"fill every seat with your own players or bots")


def _seat(spec: SeatSpec, index: int) -> Seat:
    if spec.get("open"):
        return {"name": None, "bot": None, "open": True}
    bot = spec.get("bot")
    if bot is not None:
        options = bot_options(bot, spec.get("bot_options") or {})
        botted: Seat = {"name": spec.get("name") or f"{bot} bot", "bot": bot, "open": False}
        if options:
            botted["bot_options"] = options
        level = level_of(bot, options)
        if level is not None:
            botted["bot_level"] = level
        return botted
    name = spec.get("name")
    if not name:
        raise InvalidSetup("invalid_seat", f"seat {index}: give a name, a bot or open: true")
    seat: Seat = {"name": name, "bot": None, "open": False}
    account = spec.get("account")
    if account:
        seat["account"] = account
        if spec.get("invited"):
            seat["invited"] = True
    return seat


def open_events(state: dict, seed: str) -> list[dict]:
    """The deal, if no seat is open or invited: the events that start a created, joined or accepted match."""
    if any(seat["open"] or seat.get("invited") for seat in state["seats"]):
        return []
    game = game_of(state)
    return game.deal(state["options"], len(state["seats"]), Rng.derive(seed, "deal"))


def join(state: dict, name: str, seed: str, account: str | None = None) -> tuple[int, list[dict]]:
    if state["status"] != WAITING:
        raise InvalidSetup("match_not_waiting", "this match has no open seat")
    if account is not None and any(s.get("account") == account for s in state["seats"]):
        raise InvalidSetup("account_already_seated", "this account holds a seat of this match already")
    seat = next(i for i, s in enumerate(state["seats"]) if s["open"])
    data: SeatJoined = {"seat": seat, "name": name}
    if account:
        data["account"] = account
    joined = [lifecycle.event("seat_joined", data)]
    return seat, joined + open_events(evolve_all(state, joined), seed)


def leave(state: dict, seat: int) -> list[dict]:
    """Give a seat up before the deal (no cards were seen yet, so nothing is forfeited): it opens again."""
    if state["status"] != WAITING:
        raise InvalidSetup("match_started", "a seat can be left only while the match waits for its open seats")
    if state["seats"][seat].get("invited"):
        raise InvalidSetup("seat_invited", "an invited seat is declined, not left")
    return [lifecycle.event("seat_left", {"seat": seat})]


def accept(state: dict, seat: int, seed: str) -> list[dict]:
    """The invited account takes its seat; the deal follows when it was the last seat awaited."""
    _require_invited(state, seat)
    accepted = [lifecycle.event("seat_accepted", {"seat": seat})]
    return accepted + open_events(evolve_all(state, accepted), seed)


def decline(state: dict, seat: int, seed: str, salt: str) -> list[dict]:
    """The invited account refuses its seat: the match is canceled."""
    _require_invited(state, seat)
    return [lifecycle.event("seat_declined", {"seat": seat})] + _canceled(DECLINED, [seat], seed, salt)


def expire_invitations(state: dict, now: int, seed: str, salt: str) -> list[dict]:
    """`invited_until` passed at `now` (ms since the epoch) with seats still invited: the match is canceled."""
    deadline = invitation_deadline(state)
    require(deadline is not None and now >= deadline, "not_expired", "no invitation of this match has expired")
    return _canceled(EXPIRED, invited_seats(state), seed, salt)


def _require_invited(state: dict, seat: int) -> None:
    if state["status"] != WAITING or not state["seats"][seat].get("invited"):
        raise InvalidSetup("not_invited", "this seat has no invitation pending (accepted, declined, or canceled)")


def _canceled(reason: CancelReason, seats: list[int], seed: str, salt: str) -> list[dict]:
    canceled = {"winners": [], "scores": {}, "canceled": {"reason": reason, "seats": seats}}
    return [lifecycle.event("match_canceled", {"reason": reason, "seats": seats}), _finished(canceled, seed, salt)]


def decide(state: dict, seat: int, move: dict, seed: str, salt: str) -> list[dict]:
    require(state["status"] != FINISHED, "match_finished", "the match is over")
    require(state["status"] == ACTIVE, "match_not_started", "the match waits for its open seats")
    game = game_of(state)
    events = game.decide(state["game_state"], seat, move, Rng.derive(seed, f"move:{state['version']}"))
    game_state = state["game_state"]
    for event in events:
        game_state = game.evolve(game_state, event)
    events = [lifecycle.event("moved", {"seat": seat, "move": move})] + events
    result = game.outcome(game_state)
    if result is not None:
        events = events + [_finished(_with_out_seats(state, result), seed, salt)]
    return events


def resign(state: dict, seat: int, seed: str, salt: str) -> list[dict]:
    """The seat gives up: it is out (see OUT above)."""
    require(state["status"] != FINISHED, "match_finished", "the match is over")
    require(state["status"] == ACTIVE, "match_not_started", "the match has not started: leave it instead")
    require(str(seat) not in _out_seats(state), "seat_out", "this seat is out of the match already")
    return _out(state, seat, "seat_resigned", seed, salt)


def time_out(state: dict, seat: int, now: int, seed: str, salt: str) -> list[dict]:
    """The seat's clock ran out at `now` (ms since the epoch): what the clock's rules do in its place."""
    require(state["status"] == ACTIVE, "match_not_active", "the match is not going on")
    require(state.get("clock") is not None and seat in clock.due(state["clock"], now), "not_timed_out",
            f"seat {seat} has time left")
    timed_out = [lifecycle.event("turn_timed_out", {"seat": seat, "version": state["version"]})]
    if clock.aborts(state["clock"], seat):
        aborted = {"winners": [], "scores": {}, "aborted": {"seat": seat, "reason": "first_move_timeout"}}
        return timed_out + [lifecycle.event("match_aborted", {"seat": seat}), _finished(aborted, seed, salt)]
    after = evolve_all(state, timed_out)
    if state["clock"]["spec"]["on_timeout"] == clock.FORFEIT:
        return timed_out + _out(after, seat, "seat_forfeited", seed, salt)
    return timed_out + decide(after, seat, substitute_move(state, seat, seed), seed, salt)


def abort(state: dict, reason: str, seed: str, salt: str) -> list[dict]:
    """The operator stops a match that has not ended (a broken or abusive one): it ends with no result."""
    require(state["status"] != FINISHED, "match_finished", "the match is over")
    aborted: OperatorAborted = {"by": "operator", "reason": reason}
    return [lifecycle.event("match_aborted", aborted),
            _finished({"winners": [], "scores": {}, "aborted": aborted}, seed, salt)]


def substitute_move(state: dict, seat: int, seed: str) -> dict:
    """The greedy bot's move for a seat that the server plays (out, zombie, or timed out), from its view alone."""
    rng = Rng.derive(seed, f"substitute:{seat}:{state['version']}").python_random()
    return BOTS["greedy"].policy(game_of(state), view(state, seat), seat, legal_moves(state, seat), rng)


def _out(state: dict, seat: int, kind: SeatEventKind, seed: str, salt: str) -> list[dict]:
    events = [lifecycle.event(kind, {"seat": seat})]
    still_in = seats_in(evolve_all(state, events))
    if len(still_in) < 2:
        result = _with_out_seats(evolve_all(state, events), {"winners": still_in, "scores": {}})
        events.append(_finished(result, seed, salt))
    return events


def _with_out_seats(state: dict, result: dict) -> dict:
    """The game's result with the out seats taken off the winners, and the out and zombie seats named."""
    out = {**_out_seats(state)}
    zombies = [seat for seat, s in enumerate(state["seats"]) if s.get("zombie") and str(seat) not in out]
    return {**result, "winners": [s for s in result["winners"] if str(s) not in out],
            **({"out": out} if out else {}), **({"zombies": zombies} if zombies else {})}


def _finished(result: dict, seed: str, salt: str) -> dict:
    return lifecycle.event("match_finished", {"result": result, "seed": seed, "salt": salt})


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    data, kind = event["data"], event["type"]
    if kind == "match_created":
        timer = clock.start(data["clock"], len(data["seats"])) if "clock" in data else None
        return {**data, "status": WAITING, "version": 1, "game_state": None, "result": None,
                "seed": None, "salt": None, "clock": timer, "out": {}}
    state = _evolve(started(state, event), event)
    if state.get("clock") and "time" in event:  # a stored event: its time moves the clock
        state = {**state, "clock": _tick(state, event)}
    return state


def _tick(state: dict, event: dict) -> dict:
    now, timer = clock.millis(event["time"]), state["clock"]
    if event["type"] == "moved":
        timer = clock.moved(timer, event["data"]["seat"], now)
    seats = to_act(state)
    return clock.awaiting(timer, [s for s in seats if not played_by_server(state, s)], len(seats) > 1, now)


def _evolve(state: dict, event: dict) -> dict:
    data, kind = event["data"], event["type"]
    version = state["version"] + 1
    if kind == "moved":
        return {**state, "version": version}
    if kind not in MATCH_EVENTS:  # the game's: one copy of the match's state a move, the hot path
        game = game_of(state)
        return {**state, "version": version, "status": ACTIVE, "game_state": game.evolve(state["game_state"], event)}
    state = {**state, "version": version}
    if kind == "seat_joined":
        seats = list(state["seats"])
        seats[data["seat"]] = {"name": data["name"], "bot": None, "open": False,
                               **({"account": data["account"]} if "account" in data else {})}
        return {**state, "seats": seats}
    if kind == "seat_left":
        seats = list(state["seats"])
        seats[data["seat"]] = {"name": None, "bot": None, "open": True}
        return {**state, "seats": seats}
    if kind == "seat_accepted":
        seats = list(state["seats"])
        seats[data["seat"]] = {key: value for key, value in seats[data["seat"]].items() if key != "invited"}
        return {**state, "seats": seats}
    if kind == "match_finished":
        return {**state, "status": FINISHED, "result": data["result"], "seed": data["seed"], "salt": data["salt"]}
    if kind in ("seat_resigned", "seat_forfeited"):
        why = RESIGNED if kind == "seat_resigned" else FORFEITED
        return _zombie({**state, "out": {**_out_seats(state), str(data["seat"]): why}}, data["seat"])
    if kind == "turn_timed_out":
        state = {**state, "clock": clock.timed_out(state["clock"], data["seat"])}
        return _zombie(state, data["seat"]) if clock.is_zombie(state["clock"], data["seat"]) else state
    return state  # seat_declined, match_canceled, match_aborted: the match_finished after it ends the match


def evolve_all(state: dict | None, events: list[dict]) -> dict:
    for event in events:
        state = evolve(state, event)
    if state is None:
        raise ValueError("a match's log opens with match_created")
    return state


def _zombie(state: dict, seat: int) -> dict:
    seats = list(state["seats"])
    seats[seat] = {**seats[seat], "zombie": True}
    return {**state, "seats": seats}


# --- reading ----------------------------------------------------------------------------------------
def game_of(game_ref: dict) -> Game:
    """The rules a match is played by: its game at the rules version logged in its match_created (`game_ref`: its
    state, meta or match_created data)."""
    return get_game(game_ref["game"], rules_version(game_ref))


def rules_version(game_ref: dict) -> int:
    return int(game_ref.get("rules_version", FIRST_RULES))


def _out_seats(state: dict) -> dict:
    return state.get("out") or {}  # a state folded before seats could be out has none


def seat_out(state: dict, seat: int) -> str | None:
    """Why the seat is out ("resigned" or "forfeited"), None while it is in."""
    return _out_seats(state).get(str(seat))


def seats_in(state: dict) -> list[int]:
    """The seats that have not resigned or forfeited."""
    return [seat for seat in range(len(state["seats"])) if str(seat) not in _out_seats(state)]


def played_by_server(state: dict, seat: int) -> bool:
    """A bot seat, or a zombie: a seat that is out or timed out too often, played by the greedy bot."""
    return bool(state["seats"][seat]["bot"] or state["seats"][seat].get("zombie"))


def invited_seats(state: dict) -> list[int]:
    """The seats whose account has not accepted its invitation yet (none once the match is no longer waiting)."""
    if state["status"] != WAITING:
        return []
    return [seat for seat, s in enumerate(state["seats"]) if s.get("invited")]


def invitation_deadline(state: dict) -> int | None:
    """When the pending invitations expire (ms since the epoch); None when none is pending."""
    return state.get("invited_until") if invited_seats(state) else None


def deadlines(state: dict) -> dict[int, int]:
    """Each seat's clock deadline (ms since the epoch) for the decision it owes; empty without a clock."""
    timer = state.get("clock")
    if not timer or state["status"] != ACTIVE:
        return {}
    return {seat: d for seat in range(len(state["seats"])) if (d := clock.deadline(timer, seat)) is not None}


def to_act(state: dict) -> list[int]:
    if state["status"] != ACTIVE:
        return []
    return game_of(state).to_act(state["game_state"])


def legal_moves(state: dict, seat: int) -> list[dict]:
    if state["status"] != ACTIVE:
        return []
    return game_of(state).legal_moves(state["game_state"], seat)


def view(state: dict, seat: int | None) -> dict | None:
    """The game's view for a seat; None before the deal. After the end everything is public."""
    if state["game_state"] is None:
        return None
    game = game_of(state)
    return game.view(state["game_state"], seat)


def seen(log: list[dict], seat: int) -> Seen:
    """What a seat has been shown of its match's game so far, for the game's recall: per change (the deal,
    then each move), the game's events as redacted for the seat and the seat's view after them."""
    game = game_of(log[0]["data"])  # a match's log opens with match_created, whose data names the rules
    state: dict | None = None
    changes = []
    for is_game, run in groupby(log, key=lambda event: event["type"] not in MATCH_EVENTS):
        if not is_game:
            continue
        events = list(run)
        for event in events:
            state = game.evolve(state, event)
        assert state is not None  # a change holds events
        changes.append(([game.redact(event, seat) for event in events], game.view(state, seat)))
    return changes


def redact(game_ref: dict, finished: bool, event: dict, seat: int | None) -> dict:
    """An event as a seat may see it while the match goes on, by the rules it is played by (`game_ref`: its state,
    meta or match_created data, which name them); everything is public once it is finished."""
    if finished or event["type"] in MATCH_EVENTS:
        return event
    return game_of(game_ref).redact(event, seat)
