"""Nothing a seat sees depends on cards hidden from it, beyond the cards the rules turn face up.

For random positions of every game, an observer Y and a mover X != Y: the same move is played in the real
state and in states sampled consistent with Y's view (game.determinize: the cards Y cannot see dealt anew).
Among the samples in which the move turns up the same cards as in the real state (REVEALED below, each with
its rule), what Y is shown must be the same up to the values of cards: the event types in order, each event
as redacted for Y with its plain fields (a seat, a count, a flag) equal and the rest (cards, lists of cards)
of the same structure (keys, list lengths, which values are hidden as null), and who is to act afterwards.
Anything else is a leak (docs/fairness.md, "What a move shows").
"""
import random

from hypothesis import HealthCheck, given, settings, strategies as st

from domain.games import GAMES, get_game, ninestax
from domain.rng import Rng

# (game, event type) -> the fields of that event, as the observer sees them, that the rules turn face up
REVEALED = {
    ("mantis", "score_tried"): ("card",),  # a flip shows the card's front to everyone (RULINGS "mantis")
    ("mantis", "steal_tried"): ("card",),
    ("9stax", "card_played"): ("card",),  # played cards are face up
    ("9stax", "card_drawn"): ("card",),  # the drawer sees its card (null for everyone else)
    ("9stax", "stack_peeked"): ("cards",),  # the peeker sees the stack (null for everyone else)
    ("flipout", "scored"): ("start", "count", "colour"),  # a set is shown to everyone when collected (seed 004)
    ("flipout", "swiped"): ("start", "count", "colour"),
    ("flipout", "game_ended"): ("collections",),  # at the end every seat collects the set facing it
    ("flipout", "refilled"): ("deck_top",),  # the deck's top up face is public
    ("flipout", "drew"): ("deck_top",),
}
GREEDY_SHARE = 0.5  # half the moves of a random position are greedy's, so that sets and windows happen
SAMPLES = 6         # states sampled per observer and move
MOVES_CHECKED = 24  # most moves of the mover tried per position


def shape(value):
    """The structure of a value without its scalar values: what must not depend on hidden cards."""
    if isinstance(value, dict):
        return {key: shape(item) for key, item in value.items()}
    if isinstance(value, list):
        return [shape(item) for item in value]
    return None if value is None else "value"


def seen(game, events: list[dict], after: dict, observer: int) -> tuple:
    """What a move shows the observer: (the revealed cards, the shape of the events and who acts next)."""
    redacted = [game.redact(event, observer) for event in events]
    revealed = [{key: event["data"][key] for key in REVEALED.get((game.INFO.id, event["type"]), ())}
                for event in redacted]
    return revealed, [(event["type"], outline(event["data"])) for event in redacted], game.to_act(after)


def outline(data: dict) -> dict:
    """An event's data with its plain fields (a seat, a count, a flag) as they are, and the structure of the
    rest (cards, lists of cards)."""
    return {key: shape(value) if isinstance(value, (dict, list)) else value for key, value in data.items()}


def play(game, state: dict, seat: int, move: dict, rng) -> tuple[list[dict], dict]:
    events = game.decide(state, seat, move, rng)
    for event in events:
        state = game.evolve(state, event)
    return events, state


def position(game, players: int, seed: int, steps: int) -> dict:
    """The last position still in play after up to `steps` moves, random or greedy's."""
    pick, state = random.Random(seed), None
    for event in game.deal(game.options({}, players), players, Rng.derive(str(seed), "deal")):
        state = game.evolve(state, event)
    for step in range(steps):
        seat = pick.choice(game.to_act(state))
        moves = game.legal_moves(state, seat)
        move = (game.greedy(game.view(state, seat), seat, moves, pick) if pick.random() < GREEDY_SHARE
                else pick.choice(moves))
        _, after = play(game, state, seat, move, Rng.derive(str(seed), f"move:{step}"))
        if not game.to_act(after):
            break
        state = after
    return state


def leaks(game, state: dict, players: int, seed: int) -> list[str]:
    """Every (observer, mover, move) where the observer is shown something of a different shape in the real
    state and in a sample consistent with its view that turns up the same cards."""
    pick, found = random.Random(seed), []
    for mover in game.to_act(state):
        moves = game.legal_moves(state, mover)
        for move in pick.sample(moves, min(len(moves), MOVES_CHECKED)):
            label = f"leak:{seed}"
            real_events, real = play(game, state, mover, move, Rng.derive(label, "move"))
            for observer in (s for s in range(players) if s != mover):
                revealed, shown, to_act = seen(game, real_events, real, observer)
                for _ in range(SAMPLES):
                    sample = game.determinize(game.view(state, observer), observer, pick)
                    if move not in game.legal_moves(sample, mover):
                        continue  # the move's legality is what the rules show here (e.g. a forced pass)
                    events, after = play(game, sample, mover, move, Rng.derive(label, "move"))
                    other_revealed, other_shown, other_to_act = seen(game, events, after, observer)
                    if other_revealed == revealed and (other_shown, other_to_act) != (shown, to_act):
                        found.append(f"seat {observer} tells seat {mover}'s hidden cards apart by {move}: real "
                                     f"{shown} to act {to_act}; sample {other_shown} to act {other_to_act}")
    return found


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(game_id=st.sampled_from(sorted(GAMES)), data=st.data(), seed=st.integers(0, 2**32), steps=st.integers(0, 240))
def test_no_move_shows_an_observer_anything_that_depends_on_cards_hidden_from_it(game_id, data, seed, steps):
    game = get_game(game_id)
    players = data.draw(st.integers(game.INFO.min_players, game.INFO.max_players), label="players")
    state = position(game, players, seed, steps)
    assert leaks(game, state, players, seed) == []


class NinestaxBeforeTheFix:
    """9STAX as it was: a drawn card that did not match was kept at once, so `to_act` told everyone."""

    def __getattr__(self, name):
        return getattr(ninestax, name)

    @staticmethod
    def evolve(state: dict | None, event: dict) -> dict:
        state = ninestax.evolve(state, event)
        if event["type"] == "card_drawn" and not ninestax.playable(state["pending"]["card"], state["lead"]):
            return ninestax.evolve(state, {"type": "drawn_card_kept", "data": {"seat": event["data"]["seat"]}})
        return state


def test_the_check_finds_the_leak_that_9stax_draws_had():
    game = NinestaxBeforeTheFix()
    found = [leak for seed in range(20) for leak in leaks(game, position(game, 3, seed, 60), 3, seed)]
    assert any("'action': 'draw'" in leak for leak in found)
    assert not [leak for seed in range(20) for leak in leaks(ninestax, position(ninestax, 3, seed, 60), 3, seed)]
