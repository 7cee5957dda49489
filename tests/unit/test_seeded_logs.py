"""A seeded match's log is pinned: the same seed and the same moves give the same events, byte for byte.

The engines are optimised for speed (docs/performance.md); a change that alters any event of a seeded match
(a shuffle, a card's order, a field) would change what a verifier recomputes from a published seed. The pins
are SHA-256 digests of the canonical JSON (eventstore/chain.py) of every event's type and data, for a random
match of each game played to its end."""
import hashlib

import pytest

from eventstore.chain import canonical
from tests.support.games import random_match

PINNED = {
    ("mantis", 3): "2dcff12ca86366e112d90b4a15866bd6a494b40d42130e0d7f1ed5479577d0bd",
    ("mantis", 2): "65120e9673726ff46d46200e9055a4a34ae1ce5ab87025db72539177d65275f6",
    ("blockers", 4): "33aab2d986fdd3aaa64c628c3a5e1443b08c116c47e38b71bab7723e59ba755e",
    ("9stax", 3): "2c59c222db7d9d92c89111c1ed6554c86bb846c9bf2af24fb79db392e1288b59",
    ("flipout", 3): "eace71e4c6df57b5d113e27b1a9c25c1c6130e9e53d3b6b22feca3ebd2747323",
}


def played_log_digest(game_id: str, players: int, seed: str) -> str:
    for _, log in random_match(game_id, players, seed):
        pass  # played to the end
    return hashlib.sha256(canonical([[event["type"], event["data"]] for event in log])).hexdigest()


@pytest.mark.parametrize("game_id,players", sorted(PINNED))
def test_a_seeded_random_match_logs_the_same_events_as_when_pinned(game_id, players):
    assert played_log_digest(game_id, players, "pinned-seed") == PINNED[game_id, players]
