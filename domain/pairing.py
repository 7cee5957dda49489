"""Pairing: who sits at which table, in which seat. Pure functions of the entrants' indexes (0..n-1), their
scores and history, and an Rng (domain/rng.py), so `cardroom verify` can pair every round again.

A table is a list of entrant indexes in seat order. Three formats:
  round_robin  every set of `table_size` entrants meets once per cyclic seat rotation (each entrant takes
               each seat of that table once), so every entrant meets every other and no seat is an edge.
  duplicate    each deal is played once per cyclic seat rotation of the same table of entrants, with the same
               seed, so every entrant gets every hand of the deal: the cards' luck cancels (ACPC duplicate).
  swiss        round by round: entrants sorted by score (ties broken by a seeded shuffle), tables filled from
               the top, no two entrants meeting twice while that can be avoided (a bounded backtracking
               search; beyond SEARCH_STEPS it takes the table with the fewest repeats), byes to the entrants
               with the fewest byes so far, lowest score first; seats within a table go first to whoever has
               had seat 0 least.
"""
from itertools import combinations, islice

from domain.rng import Rng

SEARCH_STEPS = 20_000  # backtracking steps per Swiss round before settling for the fewest repeats
FALLBACK_CANDIDATES = 500  # tables weighed per pick when repeats cannot be avoided (the closest in rank first)


def rotations(table: list[int]) -> list[list[int]]:
    """The table once per cyclic seat rotation: each entrant takes each seat once."""
    return [table[shift:] + table[:shift] for shift in range(len(table))]


def round_robin(entrants: int, table_size: int) -> list[list[int]]:
    return [rotated for table in combinations(range(entrants), table_size) for rotated in rotations(list(table))]


def duplicate(entrants: int, deals: int) -> list[tuple[int, list[int]]]:
    """(deal, table) for every deal and seat rotation: the table is all the entrants."""
    return [(deal, rotated) for deal in range(deals) for rotated in rotations(list(range(entrants)))]


def met(tables: list[list[int]]) -> set[frozenset[int]]:
    """The pairs of entrants who sat at one table."""
    return {frozenset(pair) for table in tables for pair in combinations(table, 2)}


def swiss(scores: list[float], history: list[list[int]], byes: list[int], first_seats: list[int],
          table_size: int, rng: Rng) -> tuple[list[list[int]], list[int]]:
    """One Swiss round: (tables, entrants given a bye). `history`: the tables played so far; `byes`: how many
    byes each entrant has had; `first_seats`: how often each has had seat 0."""
    entrants = len(scores)
    tiebreak = rng.shuffled(range(entrants))
    order = sorted(range(entrants), key=lambda e: (-scores[e], tiebreak.index(e)))
    left_over = entrants % table_size
    # fewest byes first, then lowest score (the end of `order`)
    by_need = sorted(order, key=lambda e: (byes[e], -order.index(e)))
    resting = sorted(by_need[:left_over], key=order.index)
    playing = [e for e in order if e not in resting]
    tables = _fill(playing, table_size, met(history))
    return [_seat(table, first_seats) for table in tables], resting


def _fill(playing: list[int], size: int, seen: set[frozenset[int]]) -> list[list[int]]:
    """Tables of `size` from `playing` (best first) with no pair in `seen` if the search finds one in time;
    else greedily, each table the first one with the fewest repeats."""
    steps = [0]

    def search(pool: list[int]) -> list[list[int]] | None:
        if not pool:
            return []
        for table in _candidates(pool, size, seen, repeats_allowed=False):
            steps[0] += 1
            if steps[0] > SEARCH_STEPS:
                return None
            rest = search([e for e in pool if e not in table])
            if rest is not None:
                return [table] + rest
        return None

    found = search(playing)
    if found is not None:
        return found
    tables, pool = [], list(playing)
    while pool:
        table = min(islice(_candidates(pool, size, seen, repeats_allowed=True), FALLBACK_CANDIDATES),
                    key=lambda t: len(met([t]) & seen))
        tables.append(table)
        pool = [e for e in pool if e not in table]
    return tables


def _candidates(pool: list[int], size: int, seen: set[frozenset[int]], repeats_allowed: bool):
    """Tables with the pool's best entrant and the next best others, in order of closeness in rank."""
    top, others = pool[0], pool[1:]
    for rest in combinations(others, size - 1):
        table = [top, *rest]
        if repeats_allowed or not (met([table]) & seen):
            yield table


def _seat(table: list[int], first_seats: list[int]) -> list[int]:
    """Seat 0 to whoever has had it least (then the better ranked), the rest in a rotation of the table."""
    first = min(table, key=lambda e: (first_seats[e], table.index(e)))
    shift = table.index(first)
    return table[shift:] + table[:shift]
