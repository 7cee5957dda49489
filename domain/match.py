"""A match: the lifecycle around one game (seats, joins, the deal, the end and the seed reveal).

It is a decider too. Its own events are public; the game's events are redacted by the game:
    match_created  {game, options, seats: [{name, bot, open, bot_options?, account?}], commitment, seed_source}
    seat_joined    {seat, name, account?}
    seat_left      {seat}                    a seat given up before the deal: it is open again
    <game events>  the deal when the last seat is filled
    moved          {seat, move}              each move, followed by the game's events it decided
    match_finished {result, seed, salt}      appended with the move that ends the game
Its state: {game, options, seats, status, version, commitment, seed_source, game_state, result, seed, salt}.

Fairness: commitment = SHA-256 of "<salt>:<seed>" (hex); every random draw comes from Rng.derive(seed, label)
(see domain/rng.py), and the seed and salt are revealed in match_finished.
"""
import hashlib

from domain.errors import InvalidSetup
from domain.games import get_game
from domain.bots import bot_options
from domain.protocol import require
from domain.rng import Rng

WAITING, ACTIVE, FINISHED = "waiting", "active", "finished"
SERVER_SEED, CLIENT_SEED = "server", "client"  # seed_source: who chose the seed
MATCH_EVENTS = ("match_created", "seat_joined", "seat_left", "moved", "match_finished")  # public; the rest are the game's


def commitment(seed: str, salt: str) -> str:
    return hashlib.sha256(f"{salt}:{seed}".encode()).hexdigest()


# --- decide -----------------------------------------------------------------------------------------
def create(game_id: str, options: dict, seats: list[dict], seed_commitment: str, seed_source: str,
           owner: str | None = None) -> list[dict]:
    """`seats[i]["account"]` is an account's id (an account holds one seat of a match at most); `owner` is the
    creator's account, if the creator showed one."""
    game = get_game(game_id)
    checked = game.options(options, len(seats))
    seated = [_seat(spec, i) for i, spec in enumerate(seats)]
    accounts = [seat["account"] for seat in seated if "account" in seat]
    if len(set(accounts)) < len(accounts):
        raise InvalidSetup("account_seated_twice", "an account holds one seat of a match at most")
    if seed_source == CLIENT_SEED:
        check_seed_owner_plays_every_human_seat(seated, owner)
    # the owner of a client seed is logged, so that the verifier can check the seed rule as it was applied
    owned = {"owner": owner} if seed_source == CLIENT_SEED and owner else {}
    return [{"type": "match_created", "data": {
        "game": game_id, "options": checked, "seats": seated,
        "commitment": seed_commitment, "seed_source": seed_source, **owned}}]


def check_seed_owner_plays_every_human_seat(seats: list[dict], owner: str | None = None) -> None:
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


def _seat(spec: dict, index: int) -> dict:
    if spec.get("open"):
        return {"name": None, "bot": None, "open": True}
    if spec.get("bot") is not None:
        options = bot_options(spec["bot"], spec.get("bot_options") or {})
        return {"name": spec.get("name") or f"{spec['bot']} bot", "bot": spec["bot"], "open": False,
                **({"bot_options": options} if options else {})}
    if not spec.get("name"):
        raise InvalidSetup("invalid_seat", f"seat {index}: give a name, a bot or open: true")
    account = {"account": spec["account"]} if spec.get("account") else {}
    return {"name": spec["name"], "bot": None, "open": False, **account}


def open_events(state: dict, seed: str) -> list[dict]:
    """The deal, if no seat is open: the events that start a created or just-joined match."""
    if any(seat["open"] for seat in state["seats"]):
        return []
    game = get_game(state["game"])
    return game.deal(state["options"], len(state["seats"]), Rng.derive(seed, "deal"))


def join(state: dict, name: str, seed: str, account: str | None = None) -> tuple[int, list[dict]]:
    if state["status"] != WAITING:
        raise InvalidSetup("match_not_waiting", "this match has no open seat")
    if account is not None and any(s.get("account") == account for s in state["seats"]):
        raise InvalidSetup("account_already_seated", "this account holds a seat of this match already")
    seat = next(i for i, s in enumerate(state["seats"]) if s["open"])
    joined = [{"type": "seat_joined", "data": {"seat": seat, "name": name,
                                               **({"account": account} if account else {})}}]
    return seat, joined + open_events(evolve_all(state, joined), seed)


def leave(state: dict, seat: int) -> list[dict]:
    """Give a seat up before the deal (no cards were seen yet, so nothing is forfeited): it opens again."""
    if state["status"] != WAITING:
        raise InvalidSetup("match_started", "a seat can be left only while the match waits for its open seats")
    return [{"type": "seat_left", "data": {"seat": seat}}]


def decide(state: dict, seat: int, move: dict, seed: str, salt: str) -> list[dict]:
    require(state["status"] != FINISHED, "match_finished", "the match is over")
    require(state["status"] == ACTIVE, "match_not_started", "the match waits for its open seats")
    game = get_game(state["game"])
    events = game.decide(state["game_state"], seat, move, Rng.derive(seed, f"move:{state['version']}"))
    game_state = state["game_state"]
    for event in events:
        game_state = game.evolve(game_state, event)
    events = [{"type": "moved", "data": {"seat": seat, "move": move}}] + events
    result = game.outcome(game_state)
    if result is not None:
        events = events + [{"type": "match_finished", "data": {"result": result, "seed": seed, "salt": salt}}]
    return events


# --- evolve -----------------------------------------------------------------------------------------
def evolve(state: dict | None, event: dict) -> dict:
    data, kind = event["data"], event["type"]
    if kind == "match_created":
        return {**data, "status": WAITING, "version": 1, "game_state": None, "result": None,
                "seed": None, "salt": None}
    version = state["version"] + 1
    if kind == "moved":
        return {**state, "version": version}
    if kind not in MATCH_EVENTS:  # the game's: one copy of the match's state a move, the hot path
        game = get_game(state["game"])
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
    # match_finished
    return {**state, "status": FINISHED, "result": data["result"], "seed": data["seed"], "salt": data["salt"]}


def evolve_all(state: dict | None, events: list[dict]) -> dict:
    for event in events:
        state = evolve(state, event)
    return state


# --- reading ----------------------------------------------------------------------------------------
def to_act(state: dict) -> list[int]:
    if state["status"] != ACTIVE:
        return []
    return get_game(state["game"]).to_act(state["game_state"])


def legal_moves(state: dict, seat: int) -> list[dict]:
    if state["status"] != ACTIVE:
        return []
    return get_game(state["game"]).legal_moves(state["game_state"], seat)


def view(state: dict, seat: int | None) -> dict | None:
    """The game's view for a seat; None before the deal. After the end everything is public."""
    if state["game_state"] is None:
        return None
    game = get_game(state["game"])
    return game.view(state["game_state"], seat)


def redact(game_id: str, finished: bool, event: dict, seat: int | None) -> dict:
    """An event as a seat may see it while the match goes on; everything is public once it is finished."""
    if finished or event["type"] in MATCH_EVENTS:
        return event
    return get_game(game_id).redact(event, seat)
