"""Challenges (docs/challenges.md): given accounts and their policies, when a match names another account than
the creator's, then that seat is invited and the match waits for its answer; nobody is seated without consent."""
import pytest

from domain.errors import IllegalMove
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from eventstore.accounts import SEATED
from eventstore.clock import utc_at
from service.accounts import DEFAULT_AUTO_ACCEPT_MAX, AccountService
from service.errors import Conflict, Forbidden, RateLimited, Unauthorized, Unprocessable
from service.live.feed import AccountFeeds
from service.live.hub import Hub
from service.tournament_audit import verify_tournament
from service.tournaments import TournamentService
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineTournaments, make_service

EXPIRY = 600.0


class Now:
    """A clock the test moves."""

    def __init__(self, at: float = 1_800_000_000.0):
        self.at = at

    def __call__(self) -> float:
        return self.at


class Quota:
    """Allows `allowed` uses per inviter, then asks to retry in 30 s."""

    def __init__(self, allowed: int):
        self.allowed, self.used = allowed, {}

    def take(self, who):
        self.used[who] = self.used.get(who, 0) + 1
        return None if self.used[who] <= self.allowed else 30.0


@pytest.fixture
def now():
    return Now()


@pytest.fixture
def accounts():
    return AccountService(InMemoryAccountStore(), max_open_matches=2)


@pytest.fixture
def store():
    return InMemoryEventStore()


@pytest.fixture
def service(store, accounts, now):
    return make_service(store=store, accounts=accounts, clock=now, challenge_expiry=EXPIRY)


def key_of(accounts, name, challenges=None) -> str:
    key = accounts.register(name, "human")["api_key"]
    if challenges is not None:
        accounts.set_challenges(key, challenges)
    return key


def challenge(service, inviter_key, invitee="bob") -> dict:
    """ann's key seats her and invites `invitee`."""
    return service.create("mantis", {}, [{"account": "ann"}, {"account": invitee}], credential=inviter_key)


def audit_ok(service, match_id) -> bool:
    return service.audit(match_id)["ok"]


def test_naming_another_account_invites_it_and_the_match_waits_dealing_nothing(service, accounts):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    assert created["status"] == "waiting" and created["view"] is None
    assert [s["invited"] for s in created["seats"]] == [False, True]
    assert service.invitations(bob)["challenges"] == [{
        "match": created["id"], "game": "mantis", "seat": 1, "by": {"account": accounts.me(ann)["id"], "name": "ann"},
        "expires_at": "2027-01-15T08:10:00.000Z", "created_at": service._store.meta(created["id"])["created_at"]}]
    with pytest.raises(IllegalMove) as refused:  # an invited seat cannot play before it accepts
        service.move(created["id"], bob, {"action": "score"}, created["version"])
    assert refused.value.reason == "match_not_started"


def test_accepting_seats_the_account_deals_and_the_verifier_replays_it(service, accounts):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    accepted = service.accept(created["id"], bob)
    assert accepted["status"] == "active" and accepted["you"] == 1 and not accepted["seats"][1]["invited"]
    assert service.accept(created["id"], bob) == accepted  # a retry answers the same
    assert service.invitations(bob)["challenges"] == []
    assert audit_ok(service, created["id"])


def test_declining_cancels_the_match_for_nobody_and_a_retry_answers_the_same(service, accounts):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    declined = service.decline(created["id"], bob)
    assert declined["status"] == "finished"
    assert declined["result"] == {"winners": [], "scores": {}, "canceled": {"reason": "declined", "seats": [1]}}
    assert service.decline(created["id"], bob) == declined
    with pytest.raises(Conflict) as too_late:
        service.accept(created["id"], bob)
    assert too_late.value.reason == "not_invited"
    assert audit_ok(service, created["id"])


def test_an_invitation_unanswered_until_it_expires_cancels_the_match_by_its_timer_or_the_janitor(service, accounts, now):
    ann, _ = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    now.at += EXPIRY - 5
    assert service.overdue_clocks(grace=1) == []
    assert service.time_out(created["id"], created["version"]) == "early"
    now.at += 10
    assert service.overdue_clocks(grace=1) == [(created["id"], created["version"])]  # a lost timer is made up
    assert service.time_out(created["id"], created["version"]) == "expired"
    canceled = service.get(created["id"], None)
    assert canceled["result"]["canceled"] == {"reason": "expired", "seats": [1]}
    assert service.overdue_clocks(grace=1) == []
    assert audit_ok(service, created["id"])


def test_a_stranger_cannot_fill_an_accounts_open_matches_with_invitations(service, accounts):
    mallory, victim = key_of(accounts, "mallory"), key_of(accounts, "victim")
    for _ in range(5):  # more than max_open_matches (2)
        service.create("mantis", {}, [{"name": "x"}, {"account": "victim"}], credential=mallory)
    own = service.create("mantis", {}, [{"account": "victim"}, {"name": "friend"}], credential=victim)
    assert own["status"] == "active"
    assert len(service.invitations(victim)["challenges"]) == 5


def test_an_invitation_is_accepted_only_with_room_for_one_more_open_match(service, accounts):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    for _ in range(2):
        service.create("mantis", {}, [{"account": "bob"}, {"name": "x"}], credential=bob)
    with pytest.raises(Conflict) as full:
        service.accept(created["id"], bob)
    assert full.value.reason == "too_many_open_matches"


# --- an auto account keeps room for its own matches --------------------------------------------------------------
@pytest.fixture
def roomy(store, now):
    """Accounts with room for 30 open matches, and a service seating them."""
    accounts = AccountService(InMemoryAccountStore(), clock=lambda: utc_at(now()), max_open_matches=30)
    return accounts, make_service(store=store, accounts=accounts, clock=now, challenge_expiry=EXPIRY)


def solo(name):
    return [{"account": name}, {"bot": "random"}]


def test_an_auto_account_at_its_auto_accept_max_is_invited_past_it_and_its_own_match_still_finds_room(roomy):
    accounts, service = roomy
    robo = key_of(accounts, "robo", "auto")
    strangers = [key_of(accounts, f"stranger{i}") for i in range(6)]
    created = [service.create("mantis", {}, [{"name": "x"}, {"account": "robo"}], credential=strangers[i % 6])
               for i in range(DEFAULT_AUTO_ACCEPT_MAX + 5)]
    assert [m["status"] for m in created] == ["active"] * DEFAULT_AUTO_ACCEPT_MAX + ["waiting"] * 5
    assert len(service.invitations(robo)["challenges"]) == 5
    own = [service.create("mantis", {}, solo("robo"), credential=robo) for _ in range(30 - DEFAULT_AUTO_ACCEPT_MAX)]
    assert {m["status"] for m in own} == {"active"}  # the pending invitations took none of its room
    with pytest.raises(Conflict) as full:
        service.create("mantis", {}, solo("robo"), credential=robo)
    assert full.value.reason == "too_many_open_matches"


def test_an_auto_account_past_its_room_is_invited_rather_than_refusing_the_stranger(roomy):
    accounts, service = roomy
    robo, ann = key_of(accounts, "robo", "auto"), key_of(accounts, "ann")
    accounts.set_auto_accept_max(robo, 30)
    for _ in range(30):
        service.create("mantis", {}, solo("robo"), credential=robo)
    named = service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)
    assert named["status"] == "waiting" and named["seats"][1]["invited"]


def test_an_auto_match_finished_frees_its_place_for_the_next_stranger(roomy):
    accounts, service = roomy
    robo, ann = key_of(accounts, "robo", "auto"), key_of(accounts, "ann")
    accounts.set_auto_accept_max(robo, 1)
    first = service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)
    second = service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)
    assert (first["status"], second["status"]) == ("active", "waiting")
    service.resign(first["id"], ann)
    third = service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)
    assert third["status"] == "active"


def test_an_auto_accept_max_of_zero_makes_every_invitation_wait(roomy):
    accounts, service = roomy
    robo, ann = key_of(accounts, "robo", "auto"), key_of(accounts, "ann")
    assert accounts.set_auto_accept_max(robo, 0)["auto_accept_max"] == 0
    assert service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)["status"] == \
        "waiting"


@pytest.mark.parametrize("most", [-1, 31, "5", 2.5, True, None])
def test_an_auto_accept_max_that_is_not_a_count_within_the_room_is_refused_with_a_reason(roomy, most):
    accounts, _ = roomy
    robo = key_of(accounts, "robo", "auto")
    with pytest.raises(Unprocessable) as refused:
        accounts.set_auto_accept_max(robo, most)
    assert refused.value.reason == "invalid_auto_accept_max"
    assert accounts.me(robo)["auto_accept_max"] == DEFAULT_AUTO_ACCEPT_MAX


def test_a_match_noted_whose_creation_never_came_stops_holding_room_after_a_minute(roomy, now):
    accounts, service = roomy
    robo = key_of(accounts, "robo")
    account = accounts.authenticate(robo)
    for i in range(30):  # as 30 creations whose processes died between noting and appending leave them
        accounts.note_match(account["id"], f"{i:032x}", SEATED)
    with pytest.raises(Conflict) as full:
        service.create("mantis", {}, solo("robo"), credential=robo)
    assert full.value.reason == "too_many_open_matches"
    now.at += 61
    assert service.create("mantis", {}, solo("robo"), credential=robo)["status"] == "active"
    assert len(accounts.open_match_ids(account["id"])) == 1


@pytest.mark.parametrize("body, reason", [
    ({"auto_accept_max": 500}, "invalid_auto_accept_max"),
    ({"auto_accept_max": -1}, "invalid_request"),
    ({"auto_accept_max": "ten"}, "invalid_request"),
    ({"auto_accept_max": None}, "invalid_request"),
])
def test_over_http_a_bad_auto_accept_max_is_refused_with_a_reason(body, reason):
    client = make_client()
    key = client.post("/v1/accounts", json={"name": "robo", "kind": "bot"}).get_json()["api_key"]
    assert_error(client.patch("/v1/accounts/me", json=body, headers=bearer(key)), 422, reason)


def test_over_http_an_account_sets_auto_and_its_auto_accept_max_at_once_and_its_document_shows_them():
    client = make_client()
    key = client.post("/v1/accounts", json={"name": "robo", "kind": "bot"}).get_json()["api_key"]
    updated = client.patch("/v1/accounts/me", json={"challenges": "auto", "auto_accept_max": 3}, headers=bearer(key))
    assert updated.status_code == 200
    assert {k: updated.get_json()[k] for k in ("challenges", "auto_accept_max")} == {"challenges": "auto",
                                                                                    "auto_accept_max": 3}
    assert client.get("/v1/accounts/me", headers=bearer(key)).get_json()["auto_accept_max"] == 3
    unchanged = client.patch("/v1/accounts/me", json={}, headers=bearer(key))  # an empty change changes nothing
    assert unchanged.status_code == 200 and unchanged.get_json() == updated.get_json()


@pytest.mark.parametrize("policy, invited_by_ann, invited_by_cy", [
    ("anyone", "invited", "invited"),
    ("auto", "seated", "seated"),
    ("nobody", "challenge_refused", "challenge_refused"),
    (["ann"], "invited", "challenge_refused"),
])
def test_the_invitees_policy_decides_whether_it_is_invited_seated_at_once_or_refused(
        service, accounts, policy, invited_by_ann, invited_by_cy):
    ann, cy = key_of(accounts, "ann"), key_of(accounts, "cy")
    key_of(accounts, "bob", policy)
    for inviter, expected in ((ann, invited_by_ann), (cy, invited_by_cy)):
        name = accounts.me(inviter)["name"]
        try:
            created = service.create("mantis", {}, [{"account": name}, {"account": "bob"}], credential=inviter)
        except Forbidden as refused:
            assert refused.reason == expected
            continue
        assert ("invited" if created["seats"][1]["invited"] else "seated") == expected
        assert created["status"] == ("waiting" if expected == "invited" else "active")


def test_only_a_caller_with_a_key_may_name_another_account(service, accounts):
    key_of(accounts, "bob", "auto")
    with pytest.raises(Unauthorized) as refused:
        service.create("mantis", {}, [{"name": "anon"}, {"account": "bob"}])
    assert refused.value.reason == "key_required"


def test_a_seat_that_was_never_invited_is_not_accepted_neither_the_inviters_own_nor_an_auto_accounts(
        service, accounts):
    ann, bob, robo = key_of(accounts, "ann"), key_of(accounts, "bob"), key_of(accounts, "robo", "auto")
    created = challenge(service, ann)
    with pytest.raises(Conflict) as inviter:
        service.accept(created["id"], ann)
    assert inviter.value.reason == "not_invited"
    seated = service.create("mantis", {}, [{"account": "ann"}, {"account": "robo"}], credential=ann)
    with pytest.raises(Conflict) as unasked:
        service.accept(seated["id"], robo)
    assert unasked.value.reason == "not_invited"
    accepted = service.accept(created["id"], bob)
    assert service.accept(created["id"], bob) == accepted  # the invited account's retry still answers the same


def test_only_the_invited_account_answers_an_invitation(service, accounts):
    ann, bob, cy = key_of(accounts, "ann"), key_of(accounts, "bob"), key_of(accounts, "cy")
    created = challenge(service, ann)
    with pytest.raises(Forbidden) as stranger:
        service.accept(created["id"], cy)
    assert stranger.value.reason == "not_invited"
    with pytest.raises(Conflict) as inviter:  # ann's seat is hers already
        service.decline(created["id"], ann)
    assert inviter.value.reason == "not_invited"
    with pytest.raises(Conflict) as left:  # the invited account declines; it has no seat to leave
        service.leave(created["id"], bob)
    assert left.value.reason == "seat_invited"


def test_invitations_past_the_inviters_quota_are_refused_with_when_to_retry(store, accounts, now):
    service = make_service(store=store, accounts=accounts, clock=now, invitations=Quota(allowed=2))
    ann = key_of(accounts, "ann")
    key_of(accounts, "bob")
    invitation = [{"name": "x"}, {"account": "bob"}]
    for _ in range(2):
        service.create("mantis", {}, invitation, credential=ann)
    with pytest.raises(RateLimited) as refused:
        service.create("mantis", {}, invitation, credential=ann)
    assert refused.value.details == {"retry_after": 30}
    service.create("mantis", {}, [{"account": "ann"}, {"name": "x"}], credential=ann)  # her own seat: no invitation


def test_the_feed_announces_a_challenge_and_its_cancellation(service, accounts, store):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    frames = AccountFeeds(accounts, service, store, Hub(store), 0.3, 0.02).open(bob)
    assert next(frames).type == "synced"
    created = challenge(service, ann)
    told = next(f for f in frames if f is not None)
    assert (told.type, told.data["match"], told.data["by"]["name"]) == ("challenge", created["id"], "ann")
    service.decline(created["id"], bob)
    told = next(f for f in frames if f is not None)
    assert (told.type, told.data["reason"]) == ("challenge_canceled", "declined")
    frames.close()


def test_a_feed_that_connects_later_is_told_the_pending_challenge(service, accounts, store):
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = challenge(service, ann)
    frames = AccountFeeds(accounts, service, store, Hub(store), 0.3, 0.02).open(bob)
    assert [(f.type, f.data.get("match")) for f in [next(frames), next(frames)]] == [
        ("challenge", created["id"]), ("synced", None)]
    frames.close()


@pytest.mark.parametrize("policy", ["everyone", ["x" * 41], list(range(3)), ["a"] * 101, 7, None])
def test_a_bad_policy_is_refused_with_a_reason(policy):
    client = make_client()
    key = client.post("/v1/accounts", json={"name": "ann", "kind": "bot"}).get_json()["api_key"]
    assert_error(client.patch("/v1/accounts/me", json={"challenges": policy}, headers=bearer(key)), 422,
                 "invalid_request")


def test_over_http_a_bot_sets_auto_and_a_person_accepts_from_the_challenges_list():
    client = make_client()
    ann, bob, bot = (client.post("/v1/accounts", json={"name": n, "kind": k}).get_json()
                     for n, k in (("ann", "human"), ("bob", "human"), ("robo", "bot")))
    assert client.patch("/v1/accounts/me", json={"challenges": "auto"}, headers=bearer(bot["api_key"])).get_json()[
        "challenges"] == "auto"
    assert client.patch("/v1/accounts/me", json={"challenges": ["ANN"]}, headers=bearer(bob["api_key"])).get_json()[
        "challenges"] == [ann["id"]]
    seats = {"game": "mantis", "seats": [{"account": "ann"}, {"account": "bob"}, {"account": "robo"}]}
    created = client.post("/v1/matches", json=seats, headers=bearer(ann["api_key"])).get_json()
    assert [s["invited"] for s in created["seats"]] == [False, True, False] and created["status"] == "waiting"
    listed = client.get("/v1/accounts/me/challenges", headers=bearer(bob["api_key"])).get_json()["challenges"]
    assert [c["match"] for c in listed] == [created["id"]]
    accepted = client.post(f"/v1/matches/{created['id']}/accept", headers=bearer(bob["api_key"]))
    assert accepted.status_code == 200 and accepted.get_json()["status"] == "active"
    assert client.get(f"/v1/matches/{created['id']}/audit").get_json()["ok"]
    assert_error(client.post("/v1/matches", json=seats), 401, "key_required")
    assert_error(client.post(f"/v1/matches/{created['id']}/decline"), 401, "token_required")


def test_over_http_the_quota_answers_429_with_retry_after():
    client = make_client(invitations=Quota(allowed=1))
    ann = client.post("/v1/accounts", json={"name": "ann", "kind": "human"}).get_json()["api_key"]
    client.post("/v1/accounts", json={"name": "bob", "kind": "human"})
    body = {"game": "mantis", "seats": [{"account": "ann"}, {"account": "bob"}]}
    assert client.post("/v1/matches", json=body, headers=bearer(ann)).status_code == 201
    refused = client.post("/v1/matches", json=body, headers=bearer(ann))
    assert_error(refused, 429, "rate_limited")
    assert refused.headers["Retry-After"] == "30"


# --- tournaments: each account entered by another accepts its entry, or the tournament never starts ----------
ROUND_ROBIN = {"game": "mantis", "options": {}, "format": "round_robin", "table_size": 2, "max_parallel": 4}


@pytest.fixture
def tournaments(store, service, now):
    jobs = InlineTournaments()
    jobs.service = TournamentService(store, service, jobs, max_matches=100, accounts=service._accounts, clock=now)
    return jobs.service


def entered(tournaments, accounts) -> tuple[dict, str]:
    """ann's key enters her and invites bob: (the tournament, bob's key)."""
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob")
    created = tournaments.create({**ROUND_ROBIN, "entrants": [{"account": "ann"}, {"account": "bob"},
                                                              {"bot": "random"}]}, ann)
    return created, bob


def test_a_tournament_entering_another_account_waits_for_its_acceptance_then_starts(tournaments, accounts, service):
    created, bob = entered(tournaments, accounts)
    assert created["status"] == "waiting" and [e.get("invited", False) for e in created["entrants"]] == [
        False, True, False]
    assert [c["tournament"] for c in service.invitations(bob)["challenges"]] == [created["id"]]
    assert tournaments.advance(created["id"], created["version"]) == "idle"  # nothing starts while it waits
    accepted = tournaments.accept(created["id"], bob)
    assert accepted["status"] == "running" and tournaments.accept(created["id"], bob)["status"] == "running"
    started = [t for t in tournaments.get(created["id"])["pairings"][0]["tables"] if t["match"]]
    assert started and all(service.get(t["match"], None)["status"] == "active" for t in started)  # seated, not invited
    assert service.invitations(bob)["challenges"] == []


def test_a_declined_entry_cancels_the_tournament_and_its_export_verifies(tournaments, accounts):
    created, bob = entered(tournaments, accounts)
    declined = tournaments.decline(created["id"], bob)
    assert declined["status"] == "finished" and declined["canceled"] == {"reason": "declined", "entrants": [1]}
    assert verify_tournament(tournaments.export(created["id"])).ok
    with pytest.raises(Conflict) as late:
        tournaments.accept(created["id"], bob)
    assert late.value.reason == "not_invited"


def test_an_entry_unanswered_until_it_expires_cancels_the_tournament_when_the_janitor_looks(tournaments, accounts, now):
    created, _ = entered(tournaments, accounts)
    now.at += EXPIRY - 5
    assert tournaments.stalled(stall_after=1) == []
    now.at += 10
    assert tournaments.stalled(stall_after=1) == [(created["id"], created["version"])]
    assert tournaments.advance(created["id"], created["version"]) == "canceled"
    assert tournaments.get(created["id"])["canceled"] == {"reason": "expired", "entrants": [1]}
    assert verify_tournament(tournaments.export(created["id"])).ok


def test_a_tournament_may_enter_another_account_only_with_a_key_and_its_consent(tournaments, accounts):
    ann = key_of(accounts, "ann")
    key_of(accounts, "bob", "nobody")
    spec = {**ROUND_ROBIN, "entrants": [{"account": "ann"}, {"account": "bob"}]}
    with pytest.raises(Unauthorized):
        tournaments.create(spec)
    with pytest.raises(Forbidden) as refused:
        tournaments.create(spec, ann)
    assert refused.value.reason == "challenge_refused"
