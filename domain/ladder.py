"""Rated play: which matches may be rated, which ladder a match counts on, the order a finished match puts its
seats in, and the ladder's own log (docs/ladder.md).

A ladder is one table of ratings per game, edition (where the game has editions: Mantis classic and compact deal
different decks) and player count (a 2-player rating says little of a 5-player table): its id is
"<game>[.<edition>].<players>p", "mantis.classic.2p", "blockers.2p". Its log is an aggregate of its own (the
match's store, "l:<ladder id>"), with one event per finished rated match, and one per operator's void:
    match_rated     {match, ladder, at, seats: [{player, name, kind, rank, before: {mu, sigma}, after: {mu, sigma}}]}
    match_not_rated {match, ladder, at, reason, seats: [{player, name, kind, rank}]}   see TRUST below
    rating_voided   {match, ladder, at, by, reason, players: {player: standing | null}}
                    the standings of the players the void changed, recomputed as if that match had never been
                    rated (null: the player has no rated match left)
Its state: {ladder, version, players: {player: standing}, pairs: {"<account> <account>": [seconds]}}, a standing
being {name, kind, mu, sigma, games, last_played, opponents, version}: `opponents` its first PROVISIONAL_OPPONENTS
distinct opponents, `version` the ladder's version at its last rated match (or at a void that changed it); `pairs`
holds when each pair of accounts last had a result rated, over the last day.

TRUST (docs/ladder.md, "Ratings worth trusting"): a finished rated match is not rated when a seat never moved
(FIRST_MOVES_MISSING: a resignation at the start says nothing of strength), or when two of its accounts have had
REPEATS_PER_DAY results rated together in the last day (REPEAT_PAIRING: two accounts feeding one another wins). A
player is provisional, listed apart, until it has PROVISIONAL_GAMES rated matches against PROVISIONAL_OPPONENTS
different opponents.

A player is an account (its id) or a house bot, rated under its kind and level ("bot:greedy", "bot:random",
"bot:ismcts:3"): always the same strength, the ladder's fixed anchors. The rating itself (openskill's
Plackett-Luce) is computed in service/ratings.py: domain/ may import nothing but the standard library.
"""
from collections.abc import Mapping, Sequence
from datetime import datetime
from itertools import combinations

from domain.bots import level_of
from domain.bots.ismcts import LEVELS
from domain.errors import InvalidSetup

HOUSE = "house"  # the kind of a house bot's entry, beside the accounts' "human" and "bot"
BOT_PREFIX = "bot:"
FIRST_MOVES_MISSING = "first_moves_missing"  # why a finished rated match was not rated
REPEAT_PAIRING = "repeat_pairing"
REPEATS_PER_DAY = 3  # results rated between the same two accounts in any 24 hours
DAY_SECONDS = 86_400
PROVISIONAL_GAMES = 10
PROVISIONAL_OPPONENTS = 3


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


# --- what counts --------------------------------------------------------------------------------------
def unrated_reason(state: dict | None, finished: dict, entrants: Sequence[Mapping], at: str) -> str | None:
    """Why the finished match `finished`, which ranks `entrants` ({player, kind, ...} per seat), is not rated on the
    ladder at `state` at `at` (its end); None when it is. A seat that never moved (its clock's first decision never
    made: it resigned, or the match ended, before it) makes the match say nothing of anyone's strength; a pair of
    accounts with REPEATS_PER_DAY results rated together in the last day has had its share of the ladder."""
    if not all(finished["clock"]["moved"]):
        return FIRST_MOVES_MISSING
    since = _seconds(at) - DAY_SECONDS
    pairs = (state or {}).get("pairs", {})
    if any(sum(1 for t in pairs.get(pair, ()) if t > since) >= REPEATS_PER_DAY for pair in _pairs(entrants)):
        return REPEAT_PAIRING
    return None


def _pairs(entrants: Sequence[Mapping]) -> list[str]:
    """The pairs of accounts among the entrants (house bots are the ladder's anchors: anyone may play them often)."""
    accounts = sorted(e["player"] for e in entrants if e["kind"] != HOUSE)
    return [f"{a} {b}" for a, b in combinations(accounts, 2)]


def _seconds(at: str) -> float:
    return datetime.fromisoformat(at.replace("Z", "+00:00")).timestamp()


def provisional(standing: Mapping) -> bool:
    """Listed apart from the ladder: too few rated matches, or too few opponents, for its rating to be read."""
    return standing["games"] < PROVISIONAL_GAMES or len(standing["opponents"]) < PROVISIONAL_OPPONENTS


# --- the ladder's log ---------------------------------------------------------------------------------
def rated(ladder: str, match_id: str, at: str, entrants: list[dict], before: list[dict],
          after: list[dict]) -> dict:
    """The match_rated event: `entrants` [{player, name, kind, rank}] per seat, their ratings `before` and
    `after` ({mu, sigma}) the match."""
    return {"type": "match_rated", "data": {"match": match_id, "ladder": ladder, "at": at, "seats": [
        {**entrant, "before": b, "after": a} for entrant, b, a in zip(entrants, before, after)]}}


def not_rated(ladder: str, match_id: str, at: str, entrants: list[dict], reason: str) -> dict:
    """The match_not_rated event: the finished rated match of `entrants` that moved no rating, and why."""
    return {"type": "match_not_rated", "data": {"match": match_id, "ladder": ladder, "at": at, "reason": reason,
                                                "seats": entrants}}


def voided(ladder: str, match_id: str, at: str, by: str, reason: str, current: dict, replayed: dict | None) -> dict:
    """The rating_voided event of the operator `by`: the standings of the ladder at `current` that the void
    changes, `replayed` being the ladder's state folded from its rated matches but the voided one."""
    after = (replayed or {}).get("players", {})
    changed: dict[str, dict | None] = {}
    for player, standing in current["players"].items():
        restated = after.get(player)
        if restated is None:
            changed[player] = None
        elif _unversioned(restated) != _unversioned(standing):
            changed[player] = _unversioned(restated)
    return {"type": "rating_voided", "data": {"match": match_id, "ladder": ladder, "at": at, "by": by,
                                              "reason": reason, "players": changed}}


def _unversioned(standing: Mapping) -> dict:
    return {key: value for key, value in standing.items() if key != "version"}


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
            raise ValueError("a ladder's log opens with one of its events")
        return state
    first = events[0]["data"]
    state = state or {"ladder": first["ladder"], "version": 0, "players": {}, "pairs": {}}
    version, players, pairs = state["version"], dict(state["players"]), dict(state["pairs"])
    for event in events:
        version += 1
        data = event["data"]
        if event["type"] == "match_rated":
            _rate(players, pairs, data, version)
        elif event["type"] == "rating_voided":
            for player, restated in data["players"].items():
                if restated is None:
                    players.pop(player, None)
                else:
                    players[player] = {**restated, "version": version}
        elif event["type"] != "match_not_rated":
            raise ValueError(f"not a ladder event: {event['type']}")
    return {**state, "version": version, "players": players, "pairs": pairs}


def _rate(players: dict, pairs: dict, data: dict, version: int) -> None:
    """Folds one match_rated into the players and the pairs of accounts."""
    seated = [seat["player"] for seat in data["seats"]]
    for seat in data["seats"]:
        known = players.get(seat["player"])
        games, opponents = (known["games"], known["opponents"]) if known else (0, [])
        if len(opponents) < PROVISIONAL_OPPONENTS:  # a full list is shared between versions: it never changes
            met = [other for other in seated if other != seat["player"] and other not in opponents]
            opponents = opponents + met[:PROVISIONAL_OPPONENTS - len(opponents)]
        players[seat["player"]] = {"name": seat["name"], "kind": seat["kind"], **seat["after"], "games": games + 1,
                                   "opponents": opponents, "last_played": data["at"], "version": version}
    paired = _pairs(data["seats"])
    if paired:
        now = _seconds(data["at"])
        for pair in paired:
            pairs[pair] = [t for t in pairs.get(pair, ()) if t > now - DAY_SECONDS] + [now]
