"""The tournament decider (domain/tournament.py) and its standings (domain/standings.py): given these events,
when this command, then these events (or this refusal)."""
import pytest

from domain import standings, tournament
from domain.errors import InvalidSetup
from domain.match import commitment

SEED, SALT = "s" * 64, "salt"
TWO_BOTS = [{"bot": "random"}, {"bot": "greedy"}]


def spec(**changes):
    return {"game": "mantis", "options": {}, "format": "round_robin", "entrants": TWO_BOTS, "table_size": 2,
            "max_parallel": 2, **changes}


def created(**changes):
    return tournament.evolve_all(None, tournament.create(spec(**changes), SEED, SALT, max_matches=1000))


def started(state):
    for number, table in tournament.to_start(state):
        state = tournament.evolve_all(state, tournament.start(state, number, table, f"m{number}-{table}"))
    return state


def win_for_seat(seat):
    return {"winners": [seat], "scores": {}}


def test_creating_commits_to_the_seed_and_each_deal_and_pairs_the_first_round():
    events = tournament.create(spec(format="duplicate", deals=2), SEED, SALT, max_matches=1000)
    assert [e["type"] for e in events] == ["tournament_created", "round_paired"]
    data = events[0]["data"]
    assert data["commitment"] == commitment(SEED, SALT)
    assert data["deal_commitments"] == [commitment(tournament.deal_seed(SEED, d), SALT) for d in range(2)]
    assert SEED not in str(events)
    assert events[1]["data"]["tables"] == [{"entrants": [0, 1], "deal": 0}, {"entrants": [1, 0], "deal": 0},
                                           {"entrants": [0, 1], "deal": 1}, {"entrants": [1, 0], "deal": 1}]


@pytest.mark.parametrize("changes, reason", [
    ({"table_size": 3}, "too_few_entrants"),
    ({"table_size": 7, "entrants": TWO_BOTS * 4}, "invalid_player_count"),
    ({"game": "9stax", "table_size": 5, "entrants": TWO_BOTS * 3}, None),  # the game's own refusal
    ({"entrants": [{"bot": "wizard"}, {"bot": "random"}]}, "unknown_bot"),
    ({"format": "knockout"}, "unknown_format"),
    ({"format": "swiss"}, "rounds_required"),
    ({"format": "duplicate"}, "deals_required"),
    ({"format": "duplicate", "deals": 3, "entrants": TWO_BOTS * 2}, "duplicate_table_size"),
    ({"format": "duplicate", "deals": 3, "entrants": [{"bot": "random"}, {"name": "ann", "account": "a1"}]},
     "duplicate_with_accounts"),
    ({"format": "duplicate", "deals": 600}, "too_many_matches"),
    ({"entrants": [{"name": "ann", "account": "a1"}, {"name": "ann", "account": "a1"}]}, "entrant_twice"),
])
def test_a_spec_that_cannot_run_is_refused_with_a_reason(changes, reason):
    with pytest.raises(InvalidSetup) as refused:
        tournament.create(spec(**changes), SEED, SALT, max_matches=1000)
    assert reason is None or refused.value.reason == reason


def test_a_duplicate_takes_its_creators_own_account_and_owns_its_seeds():
    ann_and_a_bot = [{"name": "ann", "account": "a1"}, {"bot": "greedy"}]
    events = tournament.create(spec(format="duplicate", deals=2, entrants=ann_and_a_bot), SEED, SALT,
                               max_matches=1000, owner="a1")
    assert events[0]["data"]["owner"] == "a1"
    assert "owner" not in created(format="duplicate", deals=2)  # bots alone: no seed is anyone's


@pytest.mark.parametrize("owner", [None, "b2"])
def test_a_duplicate_refuses_an_account_that_is_not_its_creators(owner):
    ann_and_a_bot = [{"name": "ann", "account": "a1"}, {"bot": "greedy"}]
    with pytest.raises(InvalidSetup) as refused:
        tournament.create(spec(format="duplicate", deals=2, entrants=ann_and_a_bot), SEED, SALT, max_matches=1000,
                          owner=owner)
    assert refused.value.reason == "duplicate_with_accounts"


def test_no_more_tables_start_than_max_parallel_allows():
    state = started(created(entrants=TWO_BOTS * 2, max_parallel=3))
    assert sum(1 for t in state["rounds"][0]["tables"] if t["match"]) == 3
    assert tournament.to_start(state) == []


def test_a_match_is_recorded_once_and_a_stranger_not_at_all():
    state = started(created())
    first = tournament.record(state, "m1-0", win_for_seat(1), SEED, SALT)
    assert [e["type"] for e in first] == ["match_recorded"]
    state = tournament.evolve_all(state, first)
    assert tournament.record(state, "m1-0", win_for_seat(0), SEED, SALT) == []
    assert tournament.record(state, "elsewhere", win_for_seat(0), SEED, SALT) == []


def test_the_last_result_finishes_the_tournament_and_reveals_the_seed():
    state = started(created())
    state = tournament.evolve_all(state, tournament.record(state, "m1-0", win_for_seat(1), SEED, SALT))
    events = tournament.record(state, "m1-1", win_for_seat(0), SEED, SALT)
    assert [e["type"] for e in events] == ["match_recorded", "tournament_finished"]
    assert events[-1]["data"] == {"seed": SEED, "salt": SALT}


def test_a_finished_swiss_round_pairs_the_next_by_score():
    state = started(created(format="swiss", rounds=2, entrants=TWO_BOTS * 2))
    tables = state["rounds"][0]["tables"]
    state = tournament.evolve_all(state, tournament.record(state, tables[0]["match"], win_for_seat(0), SEED, SALT))
    events = tournament.record(state, tables[1]["match"], win_for_seat(0), SEED, SALT)
    assert [e["type"] for e in events] == ["match_recorded", "round_paired"]
    winners = {tables[0]["entrants"][0], tables[1]["entrants"][0]}
    assert any(set(t["entrants"]) == winners for t in events[1]["data"]["tables"])


def test_shares_count_a_tie_half_and_multi_seat_places():
    assert tournament.shares({"entrants": [0, 1], "result": {"winners": [0, 1]}}) == [0.5, 0.5]
    assert tournament.shares({"entrants": [0, 1, 2], "result": {"winners": [2]}}) == [0.25, 0.25, 1.0]


def test_wilson_interval_matches_the_textbook_value():
    low, high = standings.wilson(8, 10)
    assert (round(low, 4), round(high, 4)) == (0.4902, 0.9433)


def test_standings_give_points_shares_and_head_to_head():
    state = started(created())
    for match_id, seat in (("m1-0", 1), ("m1-1", 0)):  # entrant 1 (greedy) wins both: seat 1, then seat 0
        state = tournament.evolve_all(state, tournament.record(state, match_id, win_for_seat(seat), SEED, SALT))
    table = standings.standings(state)
    assert [(r["name"], r["points"], r["share"]) for r in table["entrants"]] == [("greedy #1", 2.0, 1.0),
                                                                                  ("random #0", 0.0, 0.0)]
    assert table["head_to_head"] == [{"a": 0, "b": 1, "a_above": 0, "b_above": 2, "level": 0}]


def test_a_duplicate_interval_counts_deals_not_matches():
    # each deal is split 1-1 between the seats: the cards decided it, the entrants are level
    state = started(created(format="duplicate", deals=3, max_parallel=6))
    for table in state["rounds"][0]["tables"]:
        state = tournament.evolve_all(state, tournament.record(state, table["match"], win_for_seat(0), SEED, SALT))
    row = standings.standings(state)["entrants"][0]
    assert row["share"] == 0.5
    assert (row["share_low"], row["share_high"]) == standings.wilson(3, 6)  # no spread across deals: Wilson


@pytest.mark.parametrize("successes, trials", [(0, 7), (7, 7), (3, 7), (1, 3)])
def test_a_wilson_interval_holds_the_observed_share(successes, trials):
    low, high = standings.wilson(successes, trials)
    assert 0 <= low <= successes / trials <= high <= 1
