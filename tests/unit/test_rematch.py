"""Rematch and play again (docs/challenges.md): given a finished match, when a seat's account asks for its rematch,
then the same game, options, clock and rated flag are offered to the same players one seat on, each other account by
the usual invitation; one rematch per match, however many ask and however they race. And a link to a match's open
seats that anyone may follow."""
import threading

import pytest

from api.rate_limits import RateLimits
from eventstore.accounts import InMemoryAccountStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from service.errors import Conflict, Forbidden, Unauthorized
from service.matches.rematches import rematch_id_of
from service.tournaments import TournamentService
from tests.support.http import assert_error, bearer, make_client
from tests.support.service import InlineTournaments, make_service

EXPIRY = 600.0
CLOCK = {"move_ms": 30_000, "bank_ms": 60_000}


class Now:
    """A clock the test moves."""

    def __init__(self, at: float = 1_800_000_000.0):
        self.at = at

    def __call__(self) -> float:
        return self.at


@pytest.fixture
def now():
    return Now()


@pytest.fixture
def accounts():
    return AccountService(InMemoryAccountStore())


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


def finished(service, creator_key, seats, resigning, **options) -> dict:
    """A match created by `creator_key` with `seats`, ended by the seats whose credentials are `resigning` resigning
    in turn (a match ends when one seat is left in)."""
    created = service.create("mantis", options.pop("game_options", {}), seats, credential=creator_key, **options)
    for credential in resigning:
        service.resign(created["id"], credential)
    assert service.get(created["id"], None)["status"] == "finished"
    return created


def ann_beat_bob(service, accounts, **options) -> tuple[dict, str, str]:
    """bob (seated unasked: `auto`) resigns against ann: (the finished match, ann's key, bob's key)."""
    ann, bob = key_of(accounts, "ann"), key_of(accounts, "bob", challenges="auto")
    played = finished(service, ann, [{"account": "ann"}, {"account": "bob"}], [bob], **options)
    accounts.set_challenges(bob, "anyone")  # from now on bob is asked, as most accounts are
    return played, ann, bob


def matches_in_catalog(store) -> int:
    return len(store.matches(None, None, 1000))


def test_a_seat_asking_offers_the_same_terms_one_seat_on_seats_the_asker_and_invites_the_other(service, accounts):
    played, ann, bob = ann_beat_bob(service, accounts, clock_spec=CLOCK, game_options={"edition": "compact"})
    offered, created = service.rematch(played["id"], bob)
    assert created and offered["id"] != played["id"] and offered["rematch_of"] == played["id"]
    assert (offered["game"], offered["options"], offered["rated"]) == ("mantis", played["options"], False)
    assert {part: offered["clock"][part] for part in CLOCK} == CLOCK
    assert [(s["name"], s["invited"]) for s in offered["seats"]] == [("bob", False), ("ann", True)]  # rotated by one
    assert offered["status"] == "waiting" and offered["you"] == 0
    assert [c["match"] for c in service.invitations(ann)["challenges"]] == [offered["id"]]
    assert service.get(played["id"], None)["rematch"] == offered["id"]
    assert service._store.read(offered["id"])[0]["data"]["rematch_of"] == played["id"]
    assert service.audit(offered["id"])["ok"]


def test_the_other_seat_asking_answers_the_same_rematch_and_accepts_it(service, accounts, store):
    played, ann, bob = ann_beat_bob(service, accounts)
    offered, _ = service.rematch(played["id"], ann)
    listed = matches_in_catalog(store)
    answered, created = service.rematch(played["id"], bob)
    assert not created and answered["id"] == offered["id"] and answered["status"] == "active"
    assert answered["you"] == 0 and matches_in_catalog(store) == listed  # bob, seat 1 before, opens now
    again, created = service.rematch(played["id"], ann)  # the asker asking again: the same match, as it is now
    assert not created and again["id"] == offered["id"] and again["status"] == "active" and again["you"] == 1


def test_an_invited_seat_that_does_not_answer_lets_the_rematch_expire_as_any_invitation(service, accounts, now):
    played, ann, bob = ann_beat_bob(service, accounts)
    offered, _ = service.rematch(played["id"], ann)
    assert service.invitations(bob)["challenges"][0]["expires_at"] == "2027-01-15T08:10:00.000Z"  # now + EXPIRY
    now.at += EXPIRY + 1
    assert service.time_out(offered["id"], offered["version"]) == "expired"
    assert service.get(offered["id"], None)["result"]["canceled"] == {"reason": "expired", "seats": [0]}  # bob's
    answered, created = service.rematch(played["id"], bob)  # one rematch per match, even a canceled one
    assert not created and answered["id"] == offered["id"] and answered["status"] == "finished"


def test_an_auto_account_is_seated_at_once_and_the_rematch_starts(service, accounts):
    played, ann, bob = ann_beat_bob(service, accounts)
    accounts.set_challenges(bob, "auto")
    offered, created = service.rematch(played["id"], ann)
    assert created and offered["status"] == "active" and not any(s["invited"] for s in offered["seats"])


def test_house_bots_sit_again_as_the_same_bot_and_a_seat_without_an_account_is_opened(service, accounts):
    ann = key_of(accounts, "ann")
    seats = [{"account": "ann"}, {"bot": "greedy"}, {"bot": "ismcts", "bot_options": {"level": 2}}, {"name": "cy"}]
    created = service.create("mantis", {}, seats, credential=ann)
    cy = created["seats"][3]["token"]
    for credential in (ann, cy):
        service.resign(created["id"], credential)
    service._resign(created["id"], lambda _: 1)  # the greedy bot gives up too (the bots are not played here)
    offered, _ = service.rematch(created["id"], ann)
    shown = [(s["name"], s["bot"], s["open"], s["account"] is not None) for s in offered["seats"]]
    assert shown == [(None, None, True, False), ("ann", None, False, True), ("greedy bot", "greedy", False, False),
                     ("ismcts bot", "ismcts", False, False)]
    assert service._store.read(offered["id"])[0]["data"]["seats"][3]["bot_options"] == \
        service._store.read(created["id"])[0]["data"]["seats"][2]["bot_options"]
    assert offered["status"] == "waiting"
    assert service.invite(offered["id"]) == {"match": offered["id"], "open_seats": [0]}


def test_a_rated_match_is_rematched_rated(service, accounts):
    played, ann, bob = ann_beat_bob(service, accounts, clock_spec=CLOCK, rated=True)
    offered, _ = service.rematch(played["id"], ann)
    assert offered["rated"] and service._store.read(offered["id"])[0]["data"]["rated"] is True


def test_two_seats_asking_at_once_make_exactly_one_rematch_which_starts(store, accounts, now):
    """Both requests find no rematch yet (the store's first look for it is held until both have looked), then both
    create it: one append wins, the other answers the winner's match and accepts its seat."""
    service = make_service(store=HeldLookups(store, parties=2), accounts=accounts, clock=now)
    played, ann, bob = ann_beat_bob(service, accounts)
    service._store.hold(rematch_id_of(played["id"]))
    listed = matches_in_catalog(store)
    answers: dict[str, tuple[dict, bool]] = {}
    askers = [threading.Thread(target=lambda name=name, key=key: answers.__setitem__(
        name, service.rematch(played["id"], key))) for name, key in (("ann", ann), ("bob", bob))]
    for asker in askers:
        asker.start()
    for asker in askers:
        asker.join(timeout=30)
    assert sorted(created for _, created in answers.values()) == [False, True]
    assert answers["ann"][0]["id"] == answers["bob"][0]["id"] and matches_in_catalog(store) == listed + 1
    assert service.get(answers["ann"][0]["id"], None)["status"] == "active"  # the second asker accepted it


class HeldLookups:
    """The in-memory store, whose first `parties` lookups of a held meta wait for one another: requests that race."""

    def __init__(self, store, parties: int):
        self._store = store
        self._held: str | None = None
        self._barrier = threading.Barrier(parties, timeout=10)
        self._waiting = parties

    def hold(self, stream: str) -> None:
        self._held = stream

    def meta(self, stream):
        if stream == self._held and self._waiting:
            self._waiting -= 1
            seen = self._store.meta(stream)
            self._barrier.wait()
            return seen
        return self._store.meta(stream)

    def __getattr__(self, name):
        return getattr(self._store, name)


def test_only_a_seat_s_account_of_a_played_match_may_ask_each_refusal_with_its_reason(service, accounts):
    ann, eve = key_of(accounts, "ann"), key_of(accounts, "eve")
    played = finished(service, ann, [{"account": "ann"}, {"name": "cy"}], [ann])
    declined = service.create("mantis", {}, [{"account": "ann"}, {"account": "eve"}], credential=ann)
    service.decline(declined["id"], eve)
    for error, reason, match_id, credential in [(Forbidden, "not_a_seat", played["id"], eve),
                                                (Forbidden, "account_required", played["id"],
                                                 played["seats"][1]["token"]),
                                                (Unauthorized, "key_required", played["id"], None),
                                                (Conflict, "match_not_played", declined["id"], ann)]:
        with pytest.raises(error) as refused:
            service.rematch(match_id, credential)
        assert refused.value.reason == reason
    assert service.get(played["id"], None)["rematch"] is None


def test_a_match_not_finished_is_refused_a_rematch(service, accounts):
    ann = key_of(accounts, "ann")
    going = service.create("mantis", {}, [{"account": "ann"}, {"bot": "random"}], credential=ann)
    with pytest.raises(Conflict) as refused:
        service.rematch(going["id"], ann)
    assert refused.value.reason == "match_not_finished"
    assert service.get(going["id"], None)["rematch"] is None


def test_a_tournament_s_match_is_refused_a_rematch(store, service, accounts, now):
    ann = key_of(accounts, "ann")
    jobs = InlineTournaments()
    jobs.service = TournamentService(store, service, jobs, max_matches=100, accounts=accounts, clock=now)
    tournament = jobs.service.create({"game": "mantis", "options": {}, "format": "round_robin", "table_size": 2,
                                      "max_parallel": 4, "entrants": [{"account": "ann"}, {"bot": "random"}]}, ann)
    table = next(t for t in jobs.service.get(tournament["id"])["pairings"][0]["tables"] if t["match"])
    service.resign(table["match"], ann)
    with pytest.raises(Conflict) as refused:
        service.rematch(table["match"], ann)
    assert refused.value.reason == "tournament_match"


def test_the_invite_names_the_open_seats_and_when_the_invitations_beside_them_expire(service, accounts):
    ann, _ = key_of(accounts, "ann"), key_of(accounts, "bob")
    waiting = service.create("mantis", {}, [{"account": "ann"}, {"open": True}, {"account": "bob"}, {"open": True}],
                             credential=ann)
    assert service.invite(waiting["id"]) == {"match": waiting["id"], "open_seats": [1, 3],
                                             "expires_at": "2027-01-15T08:10:00.000Z"}
    full = service.create("mantis", {}, [{"account": "ann"}, {"name": "cy"}], credential=ann)
    with pytest.raises(Conflict) as refused:
        service.invite(full["id"])
    assert refused.value.reason == "no_open_seats"


# --- over HTTP ------------------------------------------------------------------------------------------------------
def test_over_http_the_rematch_is_201_then_200_and_the_finished_match_s_etag_changes_with_it():
    client = make_client()
    ann, bob = (client.post("/v1/accounts", json={"name": n, "kind": "human"}).get_json()["api_key"]
                for n in ("ann", "bob"))
    client.patch("/v1/accounts/me", json={"challenges": "auto"}, headers=bearer(bob))
    played = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"account": "bob"}]},
                         headers=bearer(ann)).get_json()
    client.post(f"/v1/matches/{played['id']}/resign", headers=bearer(bob))
    before = client.get(f"/v1/matches/{played['id']}")
    assert before.get_json()["rematch"] is None
    asked = client.post(f"/v1/matches/{played['id']}/rematch", headers=bearer(ann))
    assert asked.status_code == 201 and asked.get_json()["rematch_of"] == played["id"]
    again = client.post(f"/v1/matches/{played['id']}/rematch", headers=bearer(bob))
    assert again.status_code == 200 and again.get_json()["id"] == asked.get_json()["id"]
    after = client.get(f"/v1/matches/{played['id']}", headers={"If-None-Match": before.headers["ETag"]})
    assert after.status_code == 200 and after.get_json()["rematch"] == asked.get_json()["id"]
    assert_error(client.post(f"/v1/matches/{played['id']}/rematch"), 401, "key_required")
    assert_error(client.post(f"/v1/matches/{asked.get_json()['id']}/rematch", headers=bearer(ann)), 409,
                 "match_not_finished")
    assert_error(client.post("/v1/matches/nope/rematch", headers=bearer(ann)), 404, "match_not_found")


def test_over_http_the_invite_is_the_viewer_s_page_with_a_join_affordance():
    client = make_client()
    waiting = client.post("/v1/matches", json={"game": "mantis", "seats": [{"name": "ann"}, {"open": True}]}).get_json()
    invite = client.get(f"/v1/matches/{waiting['id']}/invite")
    assert invite.status_code == 200
    assert invite.get_json() == {"url": f"http://localhost/matches/{waiting['id']}?join=1", "match": waiting["id"],
                                 "open_seats": [1]}
    assert client.get(f"/matches/{waiting['id']}?join=1").status_code == 200
    client.post(f"/v1/matches/{waiting['id']}/join", json={"name": "bob"})
    assert_error(client.get(f"/v1/matches/{waiting['id']}/invite"), 409, "no_open_seats")


def test_over_http_a_rematch_counts_as_a_match_created_against_the_askers_rate_limit():
    client = make_client(rate_limits=RateLimits("memory://", create="2/minute", join="", moves=""))
    ann = client.post("/v1/accounts", json={"name": "ann", "kind": "human"}).get_json()["api_key"]
    played = client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"name": "cy"}]},
                         headers=bearer(ann)).get_json()
    client.post(f"/v1/matches/{played['id']}/resign", headers=bearer(ann))
    assert client.post(f"/v1/matches/{played['id']}/rematch", headers=bearer(ann)).status_code == 201  # the 2nd
    assert_error(client.post(f"/v1/matches/{played['id']}/rematch", headers=bearer(ann)), 429, "rate_limited")
    assert_error(client.post("/v1/matches", json={"game": "mantis", "seats": [{"account": "ann"}, {"bot": "random"}]},
                             headers=bearer(ann)), 429, "rate_limited")
