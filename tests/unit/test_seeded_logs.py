"""A seeded match's log is pinned: the same seed and the same moves give the same events, byte for byte.

The engines are optimised for speed (docs/performance.md); a change that alters any event of a seeded match
(a shuffle, a card's order, a field) would change what a verifier recomputes from a published seed. The pins
are SHA-256 digests of the canonical JSON (eventstore/chain.py) of every event's type and data, for a random
match of each game played to its end."""
import hashlib

import pytest

from eventstore.chain import canonical
from tests.support.games import random_match

# Every pin renewed on 2026-11-29, deliberately: match_created logs the rules and engine versions; without those two
# fields each log gives its former digest (the game's events unchanged)
PINNED = {
    ("mantis", 3): "dc743d400d940b9a8e285fc7ab3320f60e457130817b843ec24ec65419b8742d",
    ("mantis", 2): "bf0215aa17f4b111b0651249e905e340c1466c3b7d28163e468b80a4196f6f1f",
    ("blockers", 4): "8e335f81e197957b705f9924ceaf4ab5b6986b7fa137d2fdbecacc393d793f11",
    ("9stax", 3): "801ec8650d59d8b9a0bb12cabb483500ba54105a0c14baf2d272bab44318e8c3",
    ("flipout", 3): "67f8568f8027395ce8425d0cc8046d6aa7d988587837d9f22a41c2fce70f5cf9",
}


def played_log_digest(game_id: str, players: int, seed: str) -> str:
    for _, log in random_match(game_id, players, seed):
        pass  # played to the end
    return hashlib.sha256(canonical([[event["type"], event["data"]] for event in log])).hexdigest()


@pytest.mark.parametrize("game_id,players", sorted(PINNED))
def test_a_seeded_random_match_logs_the_same_events_as_when_pinned(game_id, players):
    assert played_log_digest(game_id, players, "pinned-seed") == PINNED[game_id, players]
