"""Rated play through the service on the in-memory store: a rated match that finishes is rated once on its ladder,
the leaderboard is its projection, and a rebuild from the logs gives the same table (and repairs a damaged one)."""
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from eventstore.accounts import InMemoryAccountStore
from eventstore.leaderboards import InMemoryLeaderboardStore
from eventstore.memory import InMemoryEventStore
from service.accounts import AccountService
from domain import ladder
from service import ratings
from service.errors import Conflict, NotFound, Unprocessable
from service.ladders import LadderService, _counted, _rated, _replayed, ladder_key
from tests.support.service import InlineBots, make_service

CLOCK = {"move_ms": 60_000}
LADDER = "mantis.classic.2p"


class Rig:
    """A match service whose bots play at once, with accounts and ladders, on one in-memory store."""

    def __init__(self, ladders_class=LadderService):
        self.store, self.boards = InMemoryEventStore(), InMemoryLeaderboardStore()
        self.accounts = AccountService(InMemoryAccountStore())
        self.ladders = ladders_class(self.store, self.boards)
        self.service = make_service(InlineBots(), store=self.store, accounts=self.accounts, ladders=self.ladders)

    def account(self, name):
        return self.accounts.register(name, "human")

    def play(self, key, seats, **options):
        """A rated match of `seats` created with `key`, its account seat always playing its first legal move."""
        created = self.service.create("mantis", {}, seats, credential=key, clock_spec=CLOCK, rated=True, **options)
        while (legal := self.service.legal_moves(created["id"], key))["moves"]:
            self.service.move(created["id"], key, legal["moves"][0], legal["version"])
        return created["id"]

    def ladder_log(self, ladder_id=LADDER):
        return [event["data"] for event in self.store.read(ladder_key(ladder_id))]

    def table(self, ladder_id="mantis", provisional=True):
        """The ladder's entries: its provisional listing (every player's, until ten rated matches), or its ranked."""
        return self.ladders.leaderboard(ladder_id, None, 2, 0, 100, provisional)["entries"]


def test_a_finished_rated_match_appends_its_rating_to_its_ladder_and_the_leaderboard_shows_it():
    rig = Rig()
    ann = rig.account("ann")
    match_id = rig.play(ann["api_key"], [{"account": ann["id"]}, {"bot": "greedy"}])
    (rated,) = rig.ladder_log()
    assert rated["match"] == match_id and rated["ladder"] == LADDER
    assert [seat["player"] for seat in rated["seats"]] == [ann["id"], "bot:greedy"]
    assert all(seat["before"] == {"mu": 25.0, "sigma": 25 / 3} for seat in rated["seats"])
    winner, loser = sorted(rated["seats"], key=lambda seat: seat["rank"])
    assert winner["after"]["mu"] > 25 > loser["after"]["mu"]
    table = rig.table()
    assert [entry["player"] for entry in table] == [winner["player"], loser["player"]]
    assert all(entry["games"] == 1 and entry["low"] < entry["mu"] < entry["high"] for entry in table)
    assert rig.service.get(match_id, None)["rated"] is True


def test_rating_a_match_twice_is_refused_by_its_ladders_log():
    rig = Rig()
    ann = rig.account("ann")
    match_id = rig.play(ann["api_key"], [{"account": ann["id"]}, {"bot": "random"}])
    assert rig.ladders.rate_stored(match_id) == "already"
    assert len(rig.ladder_log()) == 1 and rig.table()[0]["games"] == 1


class Crashing(LadderService):
    """A process that dies after the finishing append, before the rating."""

    def rate(self, match_id, state, at):
        return "lost"


def test_a_rating_lost_with_its_process_is_made_up_by_the_janitors_pass():
    rig = Rig(Crashing)
    ann = rig.account("ann")
    match_id = rig.play(ann["api_key"], [{"account": ann["id"]}, {"bot": "greedy"}])
    assert rig.ladder_log() == []
    janitor = LadderService(rig.store, rig.boards)  # another process, reading the note left before the append
    assert janitor.rate_due(due_for=-1) == [(match_id, "rated")]
    assert [rated["match"] for rated in rig.ladder_log()] == [match_id]
    assert janitor.rate_due(due_for=-1) == []  # done: no longer due


def test_a_seat_that_resigns_ranks_last():
    rig = Rig()
    ann = rig.account("ann")
    created = rig.service.create("mantis", {}, [{"account": ann["id"]}, {"bot": "greedy"}],
                                 credential=ann["api_key"], clock_spec=CLOCK, rated=True)
    legal = rig.service.legal_moves(created["id"], ann["api_key"])
    rig.service.move(created["id"], ann["api_key"], legal["moves"][0], legal["version"])  # the bot answers at once
    rig.service.resign(created["id"], ann["api_key"])
    (rated,) = rig.ladder_log()
    assert [(seat["player"], seat["rank"]) for seat in rated["seats"]] == [(ann["id"], 2), ("bot:greedy", 1)]


def test_an_aborted_rated_match_counts_for_nobody():
    rig = Rig()
    ann = rig.account("ann")
    created = rig.service.create("mantis", {}, [{"account": ann["id"]}, {"bot": "greedy"}],
                                 credential=ann["api_key"], clock_spec=CLOCK, rated=True)
    rig.service.abort(created["id"], "broken")
    assert rig.ladder_log() == [] and rig.table() == []
    assert rig.boards.due(float("inf"), 10) == []


def test_a_tournaments_match_is_not_rated_on_a_ladder():
    rig = Rig()
    with pytest.raises(Unprocessable) as refused:
        rig.service.create("mantis", {}, [{"bot": "greedy"}, {"bot": "random"}], clock_spec=CLOCK, rated=True,
                           tournament="t1")
    assert refused.value.reason == "rated_tournament"


def several_rated_matches(rig):
    ann, bob = rig.account("ann"), rig.account("bob")
    for key, seats in [(ann["api_key"], [{"account": ann["id"]}, {"bot": "greedy"}]),
                       (bob["api_key"], [{"bot": "random"}, {"account": bob["id"]}]),
                       (ann["api_key"], [{"bot": "ismcts", "bot_options": {"level": 1}}, {"account": ann["id"]}]),
                       (bob["api_key"], [{"account": bob["id"]}, {"bot": "greedy"}])]:
        rig.play(key, seats)
    return ann, bob


def test_a_rebuild_from_the_logs_gives_the_same_table_as_the_live_one():
    rig = Rig()
    ann, _ = several_rated_matches(rig)
    live, history = rig.table(), rig.ladders.ratings_of(ann["id"])
    assert rig.ladders.rebuild() == {"ladders": 1, "matches": 4, "differences": []}
    assert rig.table() == live and len(live) == 5
    assert rig.ladders.ratings_of(ann["id"]) == history and len(history[0]["history"]) == 2


def test_a_rebuild_repairs_a_damaged_projection():
    rig = Rig()
    ann, bob = several_rated_matches(rig)
    live = rig.table()
    damaged = [{**row, "mu": 99.0, "ordinal": 99.0} for row in rig.boards.page(LADDER, 0, 1, True)[0]]
    rig.boards.replace(LADDER, damaged, {})  # one wrong row, the others and every history lost
    assert rig.table() != live
    rig.ladders.rebuild()
    assert rig.table() == live
    assert len(rig.ladders.ratings_of(bob["id"])[0]["history"]) == 2


def test_a_rated_challenge_declined_counts_for_nobody():
    rig = Rig()
    ann, bob = rig.account("ann"), rig.account("bob")
    created = rig.service.create("mantis", {}, [{"account": ann["id"]}, {"account": bob["id"]}],
                                 credential=ann["api_key"], clock_spec=CLOCK, rated=True)
    assert created["seats"][1]["invited"]
    rig.service.decline(created["id"], bob["api_key"])
    assert rig.service.get(created["id"], None)["status"] == "finished"
    assert rig.ladder_log() == [] and rig.boards.due(float("inf"), 10) == []


def test_two_accounts_rated_against_each_other_once_the_invited_one_accepts():
    rig = Rig()
    ann, bob = rig.account("ann"), rig.account("bob")
    created = rig.service.create("mantis", {}, [{"account": ann["id"]}, {"account": bob["id"]}],
                                 credential=ann["api_key"], clock_spec=CLOCK, rated=True)
    rig.service.accept(created["id"], bob["api_key"])
    keys = [ann["api_key"], bob["api_key"]]
    while (current := rig.service.get(created["id"], None))["to_act"]:
        key = keys[current["to_act"][0]]
        legal = rig.service.legal_moves(created["id"], key)
        rig.service.move(created["id"], key, legal["moves"][0], legal["version"])
    (rated,) = rig.ladder_log()
    assert [seat["player"] for seat in rated["seats"]] == [ann["id"], bob["id"]]
    assert sorted(seat["rank"] for seat in rated["seats"]) in ([1, 2], [1, 1])


def test_matchmaking_reads_a_players_rating_on_the_ladder_of_its_terms_and_a_newcomers_elsewhere():
    rig = Rig()
    ann = rig.account("ann")
    rig.play(ann["api_key"], [{"account": ann["id"]}, {"bot": "greedy"}])
    (row,) = [entry for entry in rig.table() if entry["player"] == ann["id"]]
    assert rig.ladders.rating_of(ann["id"], "mantis", {"edition": "classic"}, 2) == {"mu": row["mu"],
                                                                                     "sigma": row["sigma"]}
    assert rig.ladders.rating_of(ann["id"], "mantis", {"edition": "classic"}, 3) == {"mu": 25.0, "sigma": 25 / 3}


# --- ratings worth trusting: the farm of issue #49 --------------------------------------------------------
FLIPOUT = "flipout.2p"


def farm(rig, ann, bob, moves_before_resigning, rounds=8):
    """The issue's farm: ann creates a rated FlipOut match naming bob, bob accepts, ann plays her turn if bob is to
    move at all, bob makes `moves_before_resigning` moves and resigns; `rounds` times."""
    for _ in range(rounds):
        created = rig.service.create("flipout", {}, [{"account": ann["id"]}, {"account": bob["id"]}],
                                     credential=ann["api_key"], clock_spec=CLOCK, rated=True)
        rig.service.accept(created["id"], bob["api_key"])
        for _ in range(moves_before_resigning):
            while (legal := rig.service.legal_moves(created["id"], ann["api_key"]))["moves"]:
                rig.service.move(created["id"], ann["api_key"], legal["moves"][0], legal["version"])
            legal = rig.service.legal_moves(created["id"], bob["api_key"])
            rig.service.move(created["id"], bob["api_key"], legal["moves"][0], legal["version"])
        rig.service.resign(created["id"], bob["api_key"])


def test_the_farm_of_resigning_at_once_moves_nobody_and_the_ladder_says_why():
    # given two accounts farming: bob accepts ann's rated match and resigns at once, eight times
    rig = Rig()
    farm(rig, rig.account("ann"), rig.account("bob"), moves_before_resigning=0)
    # then no match moved a rating: each is in the ladder's log as not rated, because a seat never moved
    log = rig.ladder_log(FLIPOUT)
    assert [(event["reason"], len(event["seats"])) for event in log] == [(ladder.FIRST_MOVES_MISSING, 2)] * 8
    assert rig.table("flipout") == [] and rig.table("flipout", provisional=False) == []


def test_the_farm_of_one_move_then_resigning_has_three_results_rated_and_leaves_both_provisional():
    # given bob makes a move each match before resigning: every seat moved, so the first results count
    rig = Rig()
    ann, bob = rig.account("ann"), rig.account("bob")
    farm(rig, ann, bob, moves_before_resigning=1)
    log = rig.ladder_log(FLIPOUT)
    # then only the first REPEATS_PER_DAY results of the pair that day are rated, the rest recorded as repeats
    assert [event.get("reason") for event in log] == [None] * ladder.REPEATS_PER_DAY + \
        [ladder.REPEAT_PAIRING] * (8 - ladder.REPEATS_PER_DAY)
    # and nobody moves up the ladder: both are provisional, listed apart, nobody ranked
    assert rig.table("flipout", provisional=False) == []
    assert {(entry["player"], entry["games"]) for entry in rig.table("flipout")} == {
        (ann["id"], ladder.REPEATS_PER_DAY), (bob["id"], ladder.REPEATS_PER_DAY)}
    # and a rebuild from the logs decides every match the same way
    assert rig.ladders.rebuild() == {"ladders": 1, "matches": 8, "differences": []}


def test_a_player_is_ranked_once_established_and_listed_apart_before():
    rig = Rig()
    ann = rig.account("ann")
    bots = [{"bot": "greedy"}, {"bot": "random"}, {"bot": "ismcts", "bot_options": {"level": 1}}]
    for game in range(ladder.PROVISIONAL_GAMES):
        rig.play(ann["api_key"], [{"account": ann["id"]}, bots[game % 3]])
        ranked = [entry["player"] for entry in rig.table(provisional=False)]
        assert (ann["id"] in ranked) == (game + 1 == ladder.PROVISIONAL_GAMES)
    board = rig.ladders.leaderboard("mantis", None, 2, 0, 100)
    assert board["totals"] == {"established": 1, "provisional": 3} and board["entries"][0]["provisional"] is False


# --- the operator's void ---------------------------------------------------------------------------------
def test_a_voided_rating_is_in_the_ladders_log_and_the_ladder_stands_as_if_it_had_never_been_rated():
    # given four rated matches, the first ann's against the greedy bot
    rig = Rig()
    ann, bob = several_rated_matches(rig)
    first = rig.ladder_log()[0]["match"]
    # when the operator voids it
    voided = rig.ladders.void(first, "ops", "farmed")
    # then the ladder's log says so, with the standings it changed
    event = rig.ladder_log()[-1]
    assert (event["match"], event["by"], event["reason"]) == (first, "ops", "farmed")
    assert voided == {"match": first, "ladder": LADDER, "players": sorted(event["players"])}
    assert ann["id"] in voided["players"] and "bot:greedy" in voided["players"]
    # and ann has one rated match left, its history without the voided one
    (rating,) = rig.ladders.ratings_of(ann["id"])
    assert rating["games"] == 1 and first not in [point["match"] for point in rating["history"]]
    # and her rating is her other match's alone, recomputed from a newcomer's (her opponent played only that one)
    (other,) = [event for event in rig.ladder_log()[:-1]
                if event["match"] != first and ann["id"] in [seat["player"] for seat in event["seats"]]]
    seat = [seat["player"] for seat in other["seats"]].index(ann["id"])
    assert rating["mu"] == pytest.approx(ratings.rate([None, None], [s["rank"] for s in other["seats"]])[seat]["mu"])
    # and a rebuild from the logs gives the same table
    live = rig.table()
    assert rig.ladders.rebuild() == {"ladders": 1, "matches": 4, "differences": []}
    assert rig.table() == live


def test_a_rating_is_voided_once_and_only_a_rating_that_moved_is_voided():
    rig = Rig()
    ann, bob = several_rated_matches(rig)
    first = rig.ladder_log()[0]["match"]
    rig.ladders.void(first, "ops", "farmed")
    with pytest.raises(Conflict) as again:
        rig.ladders.void(first, "ops", "twice")
    assert again.value.reason == "rating_voided"
    farm(rig, ann, bob, moves_before_resigning=0, rounds=1)
    with pytest.raises(Conflict) as not_rated:
        rig.ladders.void(rig.ladder_log(FLIPOUT)[0]["match"], "ops", "never rated")
    assert not_rated.value.reason == "match_not_rated"
    with pytest.raises(NotFound) as missing:
        rig.ladders.void("no-such-match", "ops", "typo")
    assert missing.value.reason == "match_not_found"


PLAYERS = [f"{letter * 32}" for letter in "abcd"]


@settings(max_examples=40, deadline=None)
@given(results=st.lists(st.tuples(st.permutations(range(4)), st.integers(1, 2)), min_size=2, max_size=12),
       draw=st.data())
def test_a_ladder_that_voids_a_match_stands_as_one_that_never_rated_it(results, draw):
    """Whatever the results, whichever match is voided and however many are rated after the void: the standings
    the log folds to are those of the rated matches but the voided one, replayed from newcomers."""
    voided = draw.draw(st.integers(0, len(results) - 1))
    void_after = draw.draw(st.integers(voided + 1, len(results)))

    def event(i):
        (first, second, *_), winner = results[i]
        entrants = [{"player": PLAYERS[p], "name": f"p{p}", "kind": "account", "rank": 1 if seat + 1 == winner else 2}
                    for seat, p in enumerate((first, second))]
        return f"m{i}", f"2026-11-25T05:{i:02d}:00.000Z", entrants

    state, log = None, []
    for i in range(len(results)):
        if i == void_after:
            state, log = void(state, log, f"m{voided}")
        rated = _rated(LADDER, *event(i), state)
        state, log = ladder.evolve(state, rated), log + [rated]
    if void_after == len(results):
        state, log = void(state, log, f"m{voided}")
    never = None  # the ladder that never rated the voided match, every match rated afresh
    for i in range(len(results)):
        if i != voided:
            never = ladder.evolve(never, _rated(LADDER, *event(i), never))
    assert {p: standing_of(s) for p, s in state["players"].items()} == \
        {p: standing_of(s) for p, s in never["players"].items()}


def void(state, log, match_id):
    kept = [(version, data) for version, data in _counted(log) if data["match"] != match_id]
    event = ladder.voided(LADDER, match_id, "2026-11-25T06:00:00.000Z", "ops", "a test", state,
                          _replayed(LADDER, kept)[0])
    return ladder.evolve(state, event), log + [event]


def standing_of(standing):
    return {key: pytest.approx(value) if isinstance(value, float) else value for key, value in standing.items()
            if key != "version"}
