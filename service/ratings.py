"""Openskill ratings of a tournament's entrants (Plackett-Luce: one model for two seats and for many).

openskill is pure Python but not the standard library, which domain/ may not import (docs/architecture.md),
so the ratings are computed here from the domain's recorded tables, in the order they were paired.
"""
from openskill.models import PlackettLuce

from domain import tournament
from domain.standings import Z95


def ratings(state: dict) -> list[dict]:
    """Each entrant's {mu, sigma, ordinal, low, high}: ordinal = mu - 3 sigma (openskill's conservative
    estimate), low/high = mu -+ 1.96 sigma (the 95% interval the chart draws)."""
    model = PlackettLuce()
    rated = [model.rating() for _ in state["entrants"]]
    for table, seated in tournament.played(state):
        teams = model.rate([[rated[e]] for e in seated], ranks=[float(place) for place in tournament.places(table)])
        for entrant, (rating,) in zip(seated, teams):
            rated[entrant] = rating
    return [{"mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(), "low": r.mu - Z95 * r.sigma,
             "high": r.mu + Z95 * r.sigma} for r in rated]
