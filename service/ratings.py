"""Openskill ratings (Plackett-Luce: one model for two seats and for many), of a tournament's entrants and of a
ladder's players.

openskill is pure Python but not the standard library, which domain/ may not import (docs/architecture.md),
so the ratings are computed here from the domain's recorded tables, in the order they were played.
"""
from openskill.models import PlackettLuce

from domain import tournament
from domain.standings import Z95

MODEL = PlackettLuce()  # openskill's defaults: mu 25, sigma 25/3, beta 25/6


def ratings(state: dict) -> list[dict]:
    """Each tournament entrant's rating (`shown`), from its recorded tables in pairing order."""
    rated = [MODEL.rating() for _ in state["entrants"]]
    for table, seated in tournament.played(state):
        teams = MODEL.rate([[rated[e]] for e in seated], ranks=tournament.places(table))
        for entrant, (rating,) in zip(seated, teams):
            rated[entrant] = rating
    return [shown(r.mu, r.sigma) for r in rated]


def rate(before: list[dict | None], ranks: list[int]) -> list[dict]:
    """The {mu, sigma} of each seat after a table that ranked them so (1 best), from its {mu, sigma} before (None: a
    newcomer, openskill's default rating)."""
    teams = [[MODEL.rating() if b is None else MODEL.rating(mu=b["mu"], sigma=b["sigma"])] for b in before]
    return [{"mu": r.mu, "sigma": r.sigma} for (r,) in MODEL.rate(teams, ranks=ranks)]


def initial() -> dict:
    """A newcomer's {mu, sigma}."""
    rating = MODEL.rating()
    return {"mu": rating.mu, "sigma": rating.sigma}


def shown(mu: float, sigma: float) -> dict:
    """{mu, sigma, ordinal, low, high}: ordinal = mu - 3 sigma (openskill's conservative estimate, what tables
    sort by), low/high = mu -+ 1.96 sigma (the 95% interval the charts draw)."""
    return {"mu": mu, "sigma": sigma, "ordinal": mu - 3 * sigma, "low": mu - Z95 * sigma, "high": mu + Z95 * sigma}
