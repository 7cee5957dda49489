"""Rated play: which matches may be rated, which ladder a match counts on, the order a finished match puts its
seats in, and the ladder's own log (docs/ladder.md).

A ladder is one table of ratings per game, edition (where the game has editions: Mantis classic and compact deal
different decks) and player count (a 2-player rating says little of a 5-player table): its id is
"<game>[.<edition>].<players>p", "mantis.classic.2p", "blockers.2p". Its log is an aggregate of its own (the
match's store, "l:<ladder id>"), with one event per rated match:
    match_rated {match, ladder, at, seats: [{player, name, kind, rank, before: {mu, sigma}, after: {mu, sigma}}]}
Its state: {ladder, version, players: {player: {name, kind, mu, sigma, games, last_played, version}}}, `version`
of a player being the ladder's version at its last rated match.

A player is an account (its id) or a house bot, rated under its kind and level ("bot:greedy", "bot:random",
"bot:ismcts:3"): always the same strength, the ladder's fixed anchors. The rating itself (openskill's
Plackett-Luce) is computed in service/ratings.py: domain/ may import nothing but the standard library.
"""
from collections.abc import Mapping, Sequence

from domain.bots import level_of
from domain.bots.ismcts import LEVELS
from domain.errors import InvalidSetup

HOUSE = "house"  # the kind of a house bot's entry, beside the accounts' "human" and "bot"
BOT_PREFIX = "bot:"


# --- what may be rated --------------------------------------------------------------------------------
def check_rated(seats: Sequence[Mapping], clocked: bool, server_seed: bool) -> None:
    """A rated match: every seat an account or a house bot (a rating belongs to someone who plays again), no two
    seats the same player, a turn clock (nobody stalls a lost game forever), and the server's seed (a client seed
    lets its owner compute the others' cards)."""
    for index, seat in enumerate(seats):
        if seat["open"]:
            raise InvalidSetup("rated_open_seat", f"seat {index} is open: every seat of a rated match is an "
                                                  "account or a house bot")
        if not seat["bot"] and not seat.get("account"):
            raise InvalidSetup("rated_anonymous_seat", f"seat {index} is a name without an account: every seat "
                                                       "of a rated match is an account or a house bot")
    players = [player(seat)["player"] for seat in seats]
    if len(set(players)) < len(players):
        raise InvalidSetup("rated_player_twice", "a rated match seats each player (account or house bot kind "
                                                 "and level) once")
    if not clocked:
        raise InvalidSetup("rated_without_clock", "a rated match needs a turn clock (docs/clocks.md)")
    if not server_seed:
        raise InvalidSetup("rated_with_seed", "a rated match is dealt from the server's seed: leave out `seed`")


def player(seat: Mapping) -> dict:
    """The seat's rated player {player, name, kind}: its account, or its house bot's identity."""
    if seat.get("account"):
        return {"player": seat["account"], "name": seat["name"], "kind": "account"}
    identity = bot_identity(seat["bot"], seat.get("bot_options") or {}, seat.get("bot_level"))
    return {"player": identity, "name": bot_name(identity), "kind": HOUSE}


def bot_identity(kind: str, options: dict, level: int | None = None) -> str:
    """"bot:<kind>" for a bot without options, "bot:ismcts:<level>" for a search level: the level its seat was
    created at (`level`, kept by the match), else the level its options stand for now; options that are no
    level are refused (a rating is for a strength that stays the same)."""
    if level is None:
        level = level_of(kind, options)
    if level is not None:
        return f"{BOT_PREFIX}{kind}:{level}"
    if not options:
        return f"{BOT_PREFIX}{kind}"
    raise InvalidSetup("rated_bot_options", f"a rated {kind} bot plays at a level (1 to {max(LEVELS)}), not with "
                                            "options of its own")


def bot_name(identity: str) -> str:
    parts = identity.split(":")[1:]
    return f"{parts[0]} bot" + (f" (level {parts[1]})" if len(parts) > 1 else "")


def ladder_id(game: str, options: dict, players: int) -> str:
    edition = f".{options['edition']}" if "edition" in options else ""
    return f"{game}{edition}.{players}p"


# --- the order a finished match gives -----------------------------------------------------------------
def ranks(state: dict) -> list[int] | None:
    """Each seat's rank (1 best, equal ranks tie) in a finished rated match; None when it counts for nobody
    (aborted, canceled). The winners first; the others by their scores, in the direction the winners' scores
    show (Mantis: more is better, Ninestax: fewer), tied when the scores do not tell; a seat that resigned or
    forfeited last, whatever its score. A zombie seat (timed out too often, played by the greedy bot to the end)
    gave nothing up and ranks where the result places it."""
    result = state["result"]  # None until the match is finished
    if not state.get("rated") or result is None or "aborted" in result or "canceled" in result:
        return None
    seats = range(len(state["seats"]))
    out = result.get("out", {})
    winners = set(result["winners"])
    keys = {seat: _key(seat, winners, out, result.get("scores", {})) for seat in seats}
    ordered = sorted(set(keys.values()))
    return [ordered.index(keys[seat]) + 1 for seat in seats]


def _key(seat: int, winners: set, out: dict, scores: dict) -> tuple:
    """A seat's place as a sortable key, the lowest best."""
    if str(seat) in out:
        return (2, 0)
    if seat in winners:
        return (0, 0)
    return (1, _score_order(winners, out, scores) * scores[str(seat)] if str(seat) in scores else 0)


def _score_order(winners: set, out: dict, scores: dict) -> int:
    """-1 when a higher score is better, 1 when a lower one is, 0 when the winners' scores do not tell."""
    won = [scores[str(s)] for s in winners if str(s) in scores]
    lost = [v for s, v in scores.items() if int(s) not in winners and s not in out]
    if not won or not lost:
        return 0
    if min(won) > max(lost):
        return -1
    if max(won) < min(lost):
        return 1
    return 0


# --- the ladder's log ---------------------------------------------------------------------------------
def rated(ladder: str, match_id: str, at: str, entrants: list[dict], before: list[dict],
          after: list[dict]) -> dict:
    """The match_rated event: `entrants` [{player, name, kind, rank}] per seat, their ratings `before` and
    `after` ({mu, sigma}) the match."""
    return {"type": "match_rated", "data": {"match": match_id, "ladder": ladder, "at": at, "seats": [
        {**entrant, "before": b, "after": a} for entrant, b, a in zip(entrants, before, after)]}}


def standing(state: dict | None, player_id: str) -> dict | None:
    """The player's rating on the ladder ({mu, sigma}), None before its first rated match there."""
    found = (state or {}).get("players", {}).get(player_id)
    return {"mu": found["mu"], "sigma": found["sigma"]} if found else None


def evolve(state: dict | None, event: dict) -> dict:
    return evolve_all(state, [event])


def evolve_all(state: dict | None, events: list[dict]) -> dict:
    """The ladder after `events`. The players are copied once for the whole run, not once an event: a ladder folded
    from its whole log costs one pass over its events, however many players it has."""
    if not events:
        if state is None:
            raise ValueError("a ladder's log opens with match_rated")
        return state
    first = events[0]["data"]
    state = state or {"ladder": first["ladder"], "version": 0, "players": {}}
    version, players = state["version"], dict(state["players"])
    for event in events:
        if event["type"] != "match_rated":
            raise ValueError(f"not a ladder event: {event['type']}")
        version += 1
        for seat in event["data"]["seats"]:
            games = players[seat["player"]]["games"] if seat["player"] in players else 0
            players[seat["player"]] = {"name": seat["name"], "kind": seat["kind"], **seat["after"],
                                       "games": games + 1, "last_played": event["data"]["at"], "version": version}
    return {**state, "version": version, "players": players}
