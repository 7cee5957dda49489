"""The bots' policies: pure functions of a seat's view, its legal moves and an rng (never the full state,
so a bot cannot cheat by construction). A policy is policy(game, view, seat, moves, rng, **options) -> move,
where options are the bot kind's options, filled in and checked by `bot_options`. A kind that `remembers` also
takes `seen=`: what its seat was shown before (domain.match.seen), so that it can use what its view no longer
shows."""
from dataclasses import dataclass
from typing import Callable

from domain.bots.ismcts import LEVEL, LEVELS, OPTIONS as ISMCTS_OPTIONS, at_level, ismcts_policy
from domain.errors import InvalidSetup
from domain.protocol import Option, describe_option, fill_options


@dataclass(frozen=True)
class BotKind:
    id: str
    description: str
    policy: Callable
    options: tuple[Option, ...] = ()
    # the least time a turn of this bot takes, from its options: event times are public, so a bot that
    # answers a forced move at once and searches otherwise would show its hidden cards (docs/fairness.md)
    think_ms: Callable[[dict], int] = lambda options: 0
    # options that stand for others (a level): `expand` replaces them in the options given, before the rest
    # are checked and filled in, so a seat's stored options are the ones its policy is called with
    presets: tuple[Option, ...] = ()
    expand: Callable[[dict], dict] = lambda raw: raw
    # whether the policy also takes `seen`, what the seat was shown before (domain.match.seen): reading the
    # match's log for it is a cost only a bot that uses it pays
    remembers: bool = False

    @property
    def published_options(self) -> tuple[Option, ...]:
        """What a seat may ask for: the options and the presets (the catalog and the API's schema show both)."""
        return self.options + self.presets

    def checked_options(self, raw: dict) -> dict:
        """The options a seat asks for, presets expanded, defaults filled in; refused if unknown or invalid."""
        return fill_options(f"the {self.id} bot", self.options, self.expand(raw))

    def catalog_entry(self) -> dict:
        return {"id": self.id, "description": self.description,
                "options": [describe_option(o) for o in self.published_options]}


def random_policy(game, view, seat, moves, rng):
    return rng.choice(moves)


def greedy_policy(game, view, seat, moves, rng):
    return game.greedy(view, seat, moves, rng)


BOTS = {kind.id: kind for kind in (
    BotKind("random", "uniform over the legal moves", random_policy),
    BotKind("greedy", "one move ahead: the move with the best expected immediate gain, by a heuristic "
                      "written for each game from its rules", greedy_policy),
    BotKind("ismcts", "Information-Set Monte Carlo Tree Search: plays its moves out in the same samples of the "
                      "hidden cards consistent with its view, every seat continuing greedily, and leaves greedy's "
                      "move only for one that clearly wins more (see docs/bots.md)", ismcts_policy,
            options=ISMCTS_OPTIONS, think_ms=lambda options: options["budget_ms"], presets=(LEVEL,),
            expand=at_level, remembers=True),
)}


def bot_options(kind: str, raw: dict) -> dict:
    if kind not in BOTS:
        raise InvalidSetup("unknown_bot", f"no bot {kind!r}; bots: {', '.join(BOTS)}")
    return BOTS[kind].checked_options(raw)


def level_of(kind: str, options: dict) -> int | None:
    """The level whose options these are, as the levels stand now (None: options of their own, or a kind without
    levels). A match's seat keeps it (`bot_level`), so that a level re-tuned later still names its old seats."""
    if kind != "ismcts":
        return None
    return next((level for level in LEVELS if options == bot_options(kind, {"level": level})), None)
