"""What keeps the service's cost bounded: the indexes of the janitor and the listing, what a finished match
stops keeping, and one worker at most per match."""
from domain import match
from eventstore.memory import InMemoryEventStore
from service.matches import MatchService
from tests.support.service import InlineBots, RecordedBots

HUMANS = [{"name": "ann"}, {"name": "bob"}, {"name": "cy"}]
BOT_FIRST = [{"bot": "random"}, {"name": "ann"}, {"name": "bob"}]


class Clock:
    def __init__(self, now=1000.0):
        self.now = now

    def __call__(self):
        return self.now


def given_a_service(bots=None, **options):
    store, clock = InMemoryEventStore(), Clock()
    bots = bots if bots is not None else RecordedBots()
    service = MatchService(store, bots, clock=clock, **options)
    if isinstance(bots, InlineBots):
        bots.service = service
    return service, store, clock


def test_only_matches_awaiting_a_bot_are_noted_for_the_janitor():
    service, store, _ = given_a_service()
    service.create("mantis", {}, HUMANS)
    awaiting = service.create("mantis", {}, BOT_FIRST)["id"]
    assert store.bots_awaited(float("inf"), 10) == [(awaiting, 1000.0)]


def test_a_bot_turn_awaited_longer_than_stall_after_is_stalled_and_a_recent_one_is_not():
    service, _, clock = given_a_service()
    created = service.create("mantis", {}, BOT_FIRST)["id"]
    clock.now += 4
    assert service.stalled_bot_turns(stall_after=5, give_up_after=3600) == []
    clock.now += 2
    assert service.stalled_bot_turns(stall_after=5, give_up_after=3600) == [(created, 0, 2)]


def test_once_the_bot_has_played_the_match_leaves_the_janitors_index():
    service, store, clock = given_a_service()
    created = service.create("mantis", {}, BOT_FIRST)["id"]
    clock.now += 1
    assert service.play_bot_turn(created, 0, 2) == "played"  # now a human is to act
    clock.now += 60
    assert store.bots_awaited(float("inf"), 10) == []
    assert service.stalled_bot_turns(stall_after=5, give_up_after=3600) == []


def test_a_finished_bot_match_leaves_the_index_and_its_extras_expire_but_not_its_log():
    service, store, _ = given_a_service(InlineBots(), keep_finished_extras=600)
    created = service.create("mantis", {}, [{"bot": "random"}, {"bot": "greedy"}])["id"]
    assert service.get(created, None)["status"] == "finished"
    assert store.bots_awaited(float("inf"), 10) == [] and store.expiring == {created: 600}
    assert service.events(created, None)["events"][-1]["type"] == "match_finished"


def test_the_janitor_forgets_an_entry_whose_match_never_got_its_first_append():
    service, store, clock = given_a_service()
    store.await_bot("crashed-during-create", clock.now)
    clock.now += 10
    assert service.stalled_bot_turns(stall_after=5, give_up_after=3600) == []
    assert store.bots_awaited(float("inf"), 10) == []


def test_a_bot_turn_awaited_past_the_expiry_is_given_up_and_no_longer_costs_a_pass():
    service, store, clock = given_a_service()
    created = service.create("mantis", {}, BOT_FIRST)["id"]
    clock.now += 30
    assert service.stalled_bot_turns(stall_after=5, give_up_after=60) == [(created, 0, 2)]
    clock.now += 31
    assert service.stalled_bot_turns(stall_after=5, give_up_after=60) == []
    assert store.bots_awaited(float("inf"), 10) == []


def test_the_status_listing_shows_only_matches_whose_meta_has_that_status():
    service, store, _ = given_a_service(InlineBots())
    waiting = service.create("mantis", {}, [{"name": "ann"}, {"open": True}])["id"]
    active = service.create("mantis", {}, HUMANS)["id"]
    finished = service.create("mantis", {}, [{"bot": "random"}, {"bot": "random"}])["id"]
    store.list_status(active, "mantis", "finished")  # as a crash between listing and appending leaves it
    listed = {status: [m["id"] for m in service.list_matches(None, status, None, 10)["matches"]]
              for status in ("waiting", "active", "finished")}
    assert listed == {"waiting": [waiting], "active": [active], "finished": [finished]}


def test_a_match_moves_from_waiting_to_active_in_the_status_listing_when_its_last_seat_is_filled():
    service, _, _ = given_a_service()
    created = service.create("mantis", {}, [{"name": "ann"}, {"open": True}])["id"]
    service.join(created, "bob")
    assert service.list_matches("mantis", "waiting", None, 10)["matches"] == []
    assert [m["id"] for m in service.list_matches("mantis", "active", None, 10)["matches"]] == [created]


def test_the_status_listing_pages_past_stale_entries_with_a_cursor():
    service, store, _ = given_a_service()
    ids = [service.create("mantis", {}, HUMANS)["id"] for _ in range(5)]
    for stale in ids[:4]:
        store.list_status(stale, "mantis", "waiting")  # all five are active: none of these waits
    assert service.list_matches(None, "waiting", None, 2) == {"matches": [], "next_cursor": None}
    first = service.list_matches(None, "active", None, 2)
    second = service.list_matches(None, "active", first["next_cursor"], 2)
    third = service.list_matches(None, "active", second["next_cursor"], 2)
    assert [m["id"] for page in (first, second, third) for m in page["matches"]] == ids[::-1]
    assert third["next_cursor"] is None


class CountingBots(InlineBots):
    """Plays at once, and remembers every turn scheduled and how many bot seats were to act then."""

    def __init__(self):
        super().__init__()
        self.history: list[tuple[str, int, int]] = []

    def schedule(self, match_id, seat, version):
        self.history.append((match_id, seat, version))
        super().schedule(match_id, seat, version)


def test_a_match_with_several_bots_to_act_at_once_holds_one_worker_and_still_plays_to_the_end():
    bots = CountingBots()
    service, store, _ = given_a_service(bots)
    created = service.create("9stax", {}, [{"bot": "random"}] * 4, seed="answers-0")["id"]
    assert service.get(created, None)["status"] == "finished"
    versions = [version for _, _, version in bots.history]
    assert len(versions) == len(set(versions))  # never two jobs for one version
    log = store.read(created)
    assert len([e for e in log if e["type"] == "moved"]) == len(versions)  # every turn played, none wasted
    state, together = None, 0
    for event in log:
        state = match.evolve(state, event)
        together += len(match.to_act(state)) > 1
    assert together > 0  # what this test is about: this seed's deal has several seats answer at once
