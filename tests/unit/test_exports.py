"""The streams of finished matches' exports on the in-memory store (service/matches/exports.py): oldest first, each a
complete export that verifies, filtered, scoped to an account or a tournament, resumable after the last match (an
archived match's: tests/integration/test_archive.py)."""
import functools

import pytest
from hypothesis import given, settings, strategies as st

from eventstore.memory import InMemoryEventStore
from service.audit import verify_export
from service.errors import NotFound, Unprocessable
from service.matches import Selection, exports
from service.repository import tournament_key
from service.tournaments import TournamentService
from tests.support.service import InlineBots, InlineTournaments, make_service

START = 1_700_000_000.0  # seconds since the epoch: when the first match of a test finishes
TWO_BOTS = [{"bot": "random"}, {"bot": "random"}]
CLOCK = {"move_ms": 60_000}


class Clock:
    def __init__(self):
        self.now = START

    def __call__(self):
        return self.now


def a_service(store=None, **options):
    clock = Clock()
    return make_service(InlineBots(), store=store or InMemoryEventStore(), clock=clock, **options), clock


def bots_finish(service, clock, at: float, game: str = "flipout") -> str:
    """A match of two random bots, played to its end at `at` (seconds since the epoch); its id."""
    clock.now = at
    return service.create(game, {}, TWO_BOTS)["id"]


def settled(clock):
    """Time enough after the last match for the streams to send it."""
    clock.now += exports.SETTLE_MS / 1000 + 0.001


def ids(exported) -> list[str]:
    return [document["match_id"] for document in exported]


def test_every_finished_match_is_streamed_oldest_first_as_a_complete_export_that_verifies():
    service, clock = a_service()
    finished = [bots_finish(service, clock, START + 60 * i, game) for i, game in
                enumerate(["flipout", "mantis", "blockers", "flipout"])]
    settled(clock)
    sent = list(service.finished_exports(Selection()))
    assert ids(sent) == finished
    assert all(document["complete"] and verify_export(document).ok for document in sent)


def test_a_match_going_on_or_listed_within_the_settling_time_is_not_streamed_yet():
    service, clock = a_service()
    done = bots_finish(service, clock, START)
    going_on = service.create("flipout", {}, [{"name": "ann"}, {"bot": "random"}])["id"]
    recent = bots_finish(service, clock, START + 1)
    clock.now = START + 1 + exports.SETTLE_MS / 1000
    assert ids(service.finished_exports(Selection())) == [done]
    clock.now += 0.001
    assert ids(service.finished_exports(Selection())) == [done, recent]
    assert going_on not in ids(service.finished_exports(Selection()))


def test_the_game_rated_and_interval_filters_select_the_matches_streamed():
    service, clock = a_service()
    ann = service._require_accounts().register("ann", "human")
    mantis = bots_finish(service, clock, START, "mantis")
    flipout = bots_finish(service, clock, START + 3600, "flipout")
    clock.now = START + 7200
    rated = service.create("flipout", {}, [{"account": "ann"}, {"bot": "random"}], credential=ann["api_key"],
                           clock_spec=CLOCK, rated=True)["id"]
    service.resign(rated, ann["api_key"])
    settled(clock)
    hour = 3_600_000
    assert ids(service.finished_exports(Selection(game="flipout"))) == [flipout, rated]
    assert ids(service.finished_exports(Selection(rated=True))) == [rated]
    assert ids(service.finished_exports(Selection(game="flipout", rated=False))) == [flipout]
    start = int(START * 1000)
    assert ids(service.finished_exports(Selection(since=start + hour, until=start + 2 * hour))) == [flipout]
    assert ids(service.finished_exports(Selection(until=start + hour))) == [mantis]


def test_an_accounts_stream_has_its_matches_only_and_a_tournaments_its_own():
    store, jobs = InMemoryEventStore(), InlineTournaments()
    service, clock = a_service(store, tournaments=jobs)
    tournaments = jobs.service = TournamentService(store, service, jobs, 100, accounts=service._require_accounts())
    ann = service._require_accounts().register("ann", "human")
    bots_finish(service, clock, START)
    clock.now = START + 60
    hers = service.create("flipout", {}, [{"account": "ann"}, {"bot": "random"}], credential=ann["api_key"])["id"]
    service.resign(hers, ann["api_key"])
    clock.now = START + 120
    tournament = tournaments.create({"game": "flipout", "options": {}, "format": "round_robin", "table_size": 2,
                                     "max_parallel": 1, "entrants": TWO_BOTS})["id"]
    settled(clock)
    assert ids(service.finished_exports(Selection(account="ann"))) == [hers]
    assert ids(service.finished_exports(Selection(account="ann", rated=False, game="flipout"))) == [hers]
    assert ids(service.finished_exports(Selection(account="ann", rated=True))) == []
    assert ids(service.finished_exports(Selection(account="ann", game="mantis"))) == []
    recorded = [e["data"]["match"] for e in store.read(tournament_key(tournament)) if e["type"] == "match_recorded"]
    played = ids(service.finished_exports(Selection(tournament=tournament)))
    assert recorded and sorted(played) == sorted(recorded) and hers not in played


@pytest.mark.parametrize("selection, after, status, reason", [
    (Selection(account="nobody"), None, NotFound, "account_not_found"),
    (Selection(tournament="nothing"), None, NotFound, "tournament_not_found"),
    (Selection(since=2000, until=2000), None, Unprocessable, "empty_interval"),
    (Selection(), "no-such-match", Unprocessable, "after_not_listed"),
])
def test_a_selection_or_resume_point_that_names_nothing_is_refused_before_anything_is_sent(selection, after, status,
                                                                                           reason):
    service, _ = a_service()
    with pytest.raises(status) as refused:
        service.finished_exports(selection, after)
    assert refused.value.reason == reason


@functools.cache
def twelve_finished() -> tuple:
    """A service with twelve finished matches, two at each of six times (the listing pages three ids at a time)."""
    service, clock = a_service()
    finished = [bots_finish(service, clock, START + 60 * (i // 2)) for i in range(12)]
    settled(clock)
    return service, finished


@settings(max_examples=25, deadline=None)
@given(limits=st.lists(st.integers(min_value=1, max_value=5), min_size=1, max_size=12))
def test_a_stream_resumed_after_the_last_match_received_sends_the_rest_with_nothing_lost_or_repeated(limits):
    service, finished = twelve_finished()
    received, after = [], None
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(exports, "PAGE", 3)
        for limit in limits:
            received += ids(service.finished_exports(Selection(), after, limit))
            after = received[-1] if received else None
        received += ids(service.finished_exports(Selection(), after))
    assert sorted(received) == sorted(finished) and len(received) == len(finished)
    assert received == ids(service.finished_exports(Selection()))


class ListingLater(InMemoryEventStore):
    """A store whose listings of finished matches are kept only once `listing` is set: the matches that finished
    before a server kept them."""
    listing = False

    def list_finished(self, match_id, at, listings):
        if self.listing:
            super().list_finished(match_id, at, listings)


def test_matches_finished_before_the_listings_were_kept_are_listed_at_their_finishing_time():
    store = ListingLater()
    service, clock = a_service(store)
    earlier = [bots_finish(service, clock, START + 60 * i) for i in range(3)]
    settled(clock)
    assert ids(service.finished_exports(Selection())) == []
    store.listing = True
    assert service.list_finished_matches() == 3 and service.list_finished_matches() == 3
    later = bots_finish(service, clock, clock.now)
    settled(clock)
    assert ids(service.finished_exports(Selection())) == earlier + [later]
    assert ids(service.finished_exports(Selection(game="flipout", rated=False))) == earlier + [later]
