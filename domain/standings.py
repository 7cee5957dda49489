"""Standings of a tournament: points, win share with a 95% interval, and head-to-head. Pure arithmetic over the
recorded tables (domain/tournament.py); the ratings (openskill) are added by service/ratings.py.

Win share = the mean of an entrant's shares of its tables (tournament.shares: 1 win, 0.5 draw, 0 loss at two
seats). Its 95% interval:
  - Wilson's score interval on (share sum, matches) in round robin and swiss, each match a trial;
  - in duplicate, the deal is the trial: the entrant's mean share over the seat rotations of each deal, and a
    normal interval from the spread of those means across deals (mean +- 1.96 * sd / sqrt(deals)), clipped to
    [0, 1]. The rotations of one deal share the cards, so this is where duplicate cancels luck; with fewer
    than two deals, or no spread at all, it falls back to Wilson over the matches.
"""
from collections import defaultdict
from math import sqrt

from domain import tournament

Z95 = 1.959964


def wilson(successes: float, trials: int, z: float = Z95) -> tuple[float, float]:
    if trials == 0:
        return 0.0, 1.0
    p = successes / trials
    centre = (p + z * z / (2 * trials)) / (1 + z * z / trials)
    half = z * sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials)) / (1 + z * z / trials)
    # it always holds p; rounding can put an end a hair inside p at 0 or 1 wins
    return max(0.0, min(p, centre - half)), min(1.0, max(p, centre + half))


def mean_interval(samples: list[float], z: float = Z95) -> tuple[float, float] | None:
    """mean +- z * sd / sqrt(n), clipped to [0, 1]; None with fewer than two samples or no spread."""
    n = len(samples)
    if n < 2:
        return None
    mean = sum(samples) / n
    variance = sum((s - mean) ** 2 for s in samples) / (n - 1)
    if variance == 0:
        return None
    half = z * sqrt(variance / n)
    return max(0.0, mean - half), min(1.0, mean + half)


def standings(state: dict) -> dict:
    """{entrants: [{entrant, name, bot, account, matches, wins, byes, points, share, share_low, share_high}]
    best first by points then share, head_to_head: [{a, b, a_above, b_above, level}]}."""
    entrants = state["entrants"]
    points = tournament.points(state)
    per_entrant = defaultdict(list)      # entrant -> shares
    per_deal = defaultdict(list)         # (entrant, deal) -> shares
    wins: defaultdict[int, int] = defaultdict(int)
    # (a, b) with a < b -> [a above, b above, level]
    pairs: defaultdict[tuple[int, int], list[int]] = defaultdict(lambda: [0, 0, 0])
    for table, seated in tournament.played(state):
        placed = tournament.places(table)
        for entrant, share, place in zip(seated, tournament.shares(table), placed):
            per_entrant[entrant].append(share)
            if "deal" in table:
                per_deal[entrant, table["deal"]].append(share)
            wins[entrant] += place == 1
        for i, a in enumerate(seated):
            for j, b in enumerate(seated):
                if a < b:
                    pairs[a, b][0 if placed[i] < placed[j] else 1 if placed[i] > placed[j] else 2] += 1
    rows = []
    for e, entrant in enumerate(entrants):
        shares = per_entrant[e]
        by_deal = [sum(s) / len(s) for (who, _), s in sorted(per_deal.items()) if who == e]
        low, high = mean_interval(by_deal) or wilson(sum(shares), len(shares))
        rows.append({"entrant": e, "name": entrant["name"], "bot": entrant.get("bot"),
                     "account": entrant.get("account"), "matches": len(shares), "wins": wins[e],
                     "byes": sum(e in r["byes"] for r in state["rounds"]), "points": points[e],
                     "share": sum(shares) / len(shares) if shares else None, "share_low": low, "share_high": high})
    rows.sort(key=lambda row: (-row["points"], -(row["share"] or 0), row["entrant"]))
    head_to_head = [{"a": a, "b": b, "a_above": above, "b_above": below, "level": level}
                    for (a, b), (above, below, level) in sorted(pairs.items())]
    return {"entrants": rows, "head_to_head": head_to_head}
