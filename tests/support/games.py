"""Given/when/then for game modules, and a driver that plays random matches through the match lifecycle."""
import random

from domain import match
from domain.errors import IllegalMove
from domain.rng import Rng


def given(game, *events: dict) -> dict:
    """The state after these events."""
    state = None
    for event in events:
        state = game.evolve(state, event)
    return state


def when(game, state: dict, seat: int, move: dict, seed: str = "test") -> list[dict]:
    """The events a move decides."""
    return game.decide(state, seat, move, Rng.derive(seed, "move"))


def rejected(game, state: dict, seat: int, move: dict) -> str:
    """The reason a move is refused; fails the test if it is accepted."""
    try:
        events = when(game, state, seat, move)
    except IllegalMove as refusal:
        return refusal.reason
    raise AssertionError(f"the move {move} was accepted: {events}")


def random_match(game_id: str, player_count: int, seed: str, options: dict | None = None, max_moves: int = 20000):
    """Plays a match of random legal moves; yields (state, log) after every event batch, the deal included."""
    pick = random.Random(seed)
    log = match.create(game_id, options or {}, [{"bot": "random"}] * player_count, "commitment", "client")
    state = match.evolve_all(None, log)
    opening = match.open_events(state, seed)
    state = match.evolve_all(state, opening)
    log = log + opening
    yield state, log
    for _ in range(max_moves):
        if state["status"] != match.ACTIVE:
            return
        seat = pick.choice(match.to_act(state))
        move = pick.choice(match.legal_moves(state, seat))
        events = match.decide(state, seat, move, seed, "salt")
        state = match.evolve_all(state, events)
        log = log + events
        yield state, log
    raise AssertionError(f"{game_id} with {player_count} seats did not end in {max_moves} moves (seed {seed})")
