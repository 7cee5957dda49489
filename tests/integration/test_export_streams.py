"""A stream of finished matches' exports over a real Redis holds a page of them at a time, never the archive: ten
thousand matches stream with the process's memory flat (tracemalloc's peak, a size), each sent once, oldest first.
And `python -m bootstrap.relist` lists the matches that finished before the listings were kept."""
import json
import time
import tracemalloc

import pytest

from bootstrap import relist
from eventstore.redis_store import RedisEventStore
from service.matches import MatchService, Selection
from tests.support.archive import seed_finished
from tests.support.http import make_client
from tests.support.service import InlineBots, RecordedBots

pytestmark = pytest.mark.integration
MATCHES = 10_000
FIRST_MS = 1_600_000_000_000  # 2020-09-13: long settled


def test_ten_thousand_finished_matches_stream_in_a_fraction_of_their_size_in_memory(redis_client):
    store = RedisEventStore(redis_client)
    seeded = seed_finished(store, MATCHES, FIRST_MS, apart_ms=1000, game="blockers", played=False)
    client = make_client(store=store)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        tracemalloc.reset_peak()
        answer = client.get("/v1/matches/export", buffered=False)
        lines, size, first, last = 0, 0, b"", b""
        for chunk in answer.response:
            lines, size = lines + chunk.count(b"\n"), size + len(chunk)
            first, last = first or chunk, chunk
        grown = tracemalloc.get_traced_memory()[1] - before
    finally:
        tracemalloc.stop()
    assert lines == MATCHES
    assert json.loads(first)["match_id"] == seeded[0] and json.loads(last)["match_id"] == seeded[-1]
    assert grown < size / 50, f"the stream grew the heap by {grown} bytes to send {size}"


class ListingLater(RedisEventStore):
    """A store that keeps no listings of finished matches: a server from before they were kept."""

    def list_finished(self, match_id, at, listings):
        return None


def test_relisting_brings_the_matches_finished_before_the_listings_into_the_streams(redis_client, redis_url,
                                                                                    monkeypatch, capsys):
    bots = InlineBots()
    earlier = bots.service = MatchService(ListingLater(redis_client), bots)
    finished = [earlier.create("flipout", {}, [{"bot": "random"}] * 2)["id"] for _ in range(3)]
    now = MatchService(RedisEventStore(redis_client), RecordedBots(), clock=lambda: time.time() + 60)
    assert list(now.finished_exports(Selection())) == []
    monkeypatch.setenv("REDIS_URL", redis_url)
    relist.main()
    assert capsys.readouterr().out == "3 finished matches listed\n"
    assert sorted(d["match_id"] for d in now.finished_exports(Selection())) == sorted(finished)
