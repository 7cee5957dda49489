"""Finished matches seeded straight into a store, many at once, for the tests and the bench of the streams of exports
and of the dumps: one log played (or aborted) once, appended under new ids at the times asked, and listed."""
import json
import uuid

from eventstore.base import Head
from eventstore.clock import utc_at
from service.matches.reactions.finished import finished_listings
from tests.support.service import InlineBots, make_service

KEPT_META = ("game", "status", "to_act", "result", "seats")


def finished_log(game: str, played: bool) -> tuple[list[dict], dict]:
    """The events and meta of a finished two-seat match: played to its end by random bots, or aborted after the deal
    (4 events: the smallest finished match)."""
    service = make_service(InlineBots())
    if played:  # the same match every time: a bench's figures are of the same data run after run
        match_id = service.create(game, {}, [{"bot": "random"}] * 2, seed=f"archive-{game}")["id"]
    else:
        match_id = service.create(game, {}, [{"name": "a"}, {"name": "b"}])["id"]
        service.abort(match_id, "seeded")
    return service._store.read(match_id), service._store.meta(match_id)


def seed_finished(store, count: int, first_ms: int, apart_ms: int, game: str = "mantis",
                  played: bool = True) -> list[str]:
    """`count` finished matches of `game` in `store`, the first finished at `first_ms` (milliseconds since the epoch),
    then one every `apart_ms`; their ids, oldest first."""
    events, meta = finished_log(game, played)
    unsealed = [{"type": event["type"], "data": event["data"]} for event in events]
    kept = {name: meta[name] for name in KEPT_META}
    listings = finished_listings({"game": game, "seats": json.loads(meta["seats"])}, None)
    seeded = []
    for i in range(count):
        match_id, at = uuid.uuid4().hex, first_ms + i * apart_ms
        store.append(match_id, Head(), unsealed, meta=kept, time=utc_at(at / 1000))
        store.list_finished(match_id, at, listings)
        seeded.append(match_id)
    return seeded
