"""bench/bot_strength.py's table, read from documents the service gave (duplicate tournaments of Mantis bots):
the tested entrant's row and verdict from the standings, its moves' times from a match's log, and the table
written into a document between its markers."""
from bench.strength_table import BEGIN, END, HEADER, markdown_row, markers, move_ms, entrant_row, write

# GET /v1/tournaments/<id>/standings of random (entrant 0) against greedy (entrant 1), 2 deals at 2 seats
TWO_SEATS = {"entrants": [
    {"entrant": 1, "name": "greedy #1", "bot": "greedy", "account": None, "matches": 4, "wins": 4, "byes": 0,
     "points": 4.0, "share": 1.0, "share_low": 0.5101091596030786, "share_high": 1.0,
     "rating": {"mu": 32.4862490756188, "sigma": 7.433755967489542, "ordinal": 10.184981173150174,
                "low": 17.916354994554126, "high": 47.056143156683476}},
    {"entrant": 0, "name": "random #0", "bot": "random", "account": None, "matches": 4, "wins": 0, "byes": 0,
     "points": 0.0, "share": 0.0, "share_low": 0.0, "share_high": 0.4898908403969213,
     "rating": {"mu": 17.513750924381196, "sigma": 7.433755967489542, "ordinal": -4.787516978087432,
                "low": 2.9438568433165226, "high": 32.08364500544587}}],
    "head_to_head": [{"a": 0, "b": 1, "a_above": 0, "b_above": 4, "level": 0}]}

# random (entrant 0) against two greedy entrants, 2 deals at 3 seats: one match per seat rotation
THREE_SEATS = {"entrants": [
    {"entrant": 1, "name": "greedy #1", "bot": "greedy", "account": None, "matches": 6, "wins": 4, "byes": 0,
     "points": 4.5, "share": 0.75, "share_low": 0.3648225582565274, "share_high": 0.9400102959152858,
     "rating": {"mu": 30.199917702150344, "sigma": 7.29066928393477, "ordinal": 8.327909850346032,
                "low": 15.910468369732415, "high": 44.489367034568275}},
    {"entrant": 0, "name": "random #0", "bot": "random", "account": None, "matches": 6, "wins": 1, "byes": 0,
     "points": 2.25, "share": 0.375, "share_low": 0.1300045, "share_high": 0.6199955,
     "rating": {"mu": 21.789971159449692, "sigma": 7.0512523648101375, "ordinal": 0.6362140650192813,
                "low": 7.969770369506955, "high": 35.61017194939243}},
    {"entrant": 2, "name": "greedy #2", "bot": "greedy", "account": None, "matches": 6, "wins": 1, "byes": 0,
     "points": 2.25, "share": 0.375, "share_low": 0.1300045, "share_high": 0.6199955,
     "rating": {"mu": 22.916553348154398, "sigma": 7.098772353080923, "ordinal": 1.6202362889116309,
                "low": 9.0032150919205, "high": 36.829891604388294}}],
    "head_to_head": [{"a": 0, "b": 1, "a_above": 1, "b_above": 4, "level": 1},
                     {"a": 0, "b": 2, "a_above": 1, "b_above": 1, "level": 4},
                     {"a": 1, "b": 2, "a_above": 4, "b_above": 1, "level": 1}]}

# the start of a 3-seat match's log (the deal's cards left out), seats moving in turn
LOG = [{"version": 1, "type": "match_created", "data": {"game": "mantis"}, "time": "2026-11-25T07:24:49.039Z"},
       {"version": 2, "type": "dealt", "data": {}, "time": "2026-11-25T07:24:49.039Z"},
       {"version": 3, "type": "moved", "data": {"seat": 0, "move": {"action": "score"}},
        "time": "2026-11-25T07:24:49.051Z"},
       {"version": 4, "type": "score_tried", "data": {"seat": 0, "moved": 0}, "time": "2026-11-25T07:24:49.051Z"},
       {"version": 5, "type": "moved", "data": {"seat": 1, "move": {"action": "score"}},
        "time": "2026-11-25T07:24:49.867Z"},
       {"version": 6, "type": "score_tried", "data": {"seat": 1, "moved": 2}, "time": "2026-11-25T07:24:49.867Z"},
       {"version": 7, "type": "moved", "data": {"seat": 2, "move": {"action": "score"}},
        "time": "2026-11-25T07:24:49.871Z"}]


def test_an_entrant_whose_whole_interval_is_above_half_is_better_and_below_half_worse():
    assert entrant_row(TWO_SEATS, 1) == {"matches": 4, "share": 1.0, "low": 0.5101091596030786, "high": 1.0,
                                        "verdict": "better"}
    assert entrant_row(TWO_SEATS, 0)["verdict"] == "worse"


def test_at_a_larger_table_the_tested_entrant_is_found_by_its_number_and_an_interval_across_half_is_not_separated():
    assert entrant_row(THREE_SEATS, 0) == {"matches": 6, "share": 0.375, "low": 0.1300045, "high": 0.6199955,
                                          "verdict": "not separated"}
    assert entrant_row(THREE_SEATS, 1)["verdict"] == "not separated"


def test_a_seat_s_move_takes_the_time_since_the_event_before_it():
    assert move_ms(LOG, 1) == [816.0]
    assert move_ms(LOG, 0) == [12.0]
    assert move_ms(LOG[:4], 2) == []


def test_a_row_reads_as_the_table_s_columns():
    line = markdown_row("mantis", 2, "random vs greedy", 2, entrant_row(TWO_SEATS, 0), [816.0, 12.0, 30.0], 24.4)
    assert line == "| mantis | 2 | random vs greedy | 2 | 4 | 0.000 [0.000, 0.490] | worse | 30 | 24 |"
    assert line.count("|") == HEADER.splitlines()[0].count("|")


def test_the_table_replaces_the_region_between_the_markers_and_nothing_else(tmp_path):
    document = tmp_path / "bots.md"
    document.write_text(f"# Bots\nbefore\n{BEGIN}\nold table\n{END}\nafter\n")
    write(document, "new table")
    assert document.read_text() == f"# Bots\nbefore\n{BEGIN}\nnew table\n{END}\nafter\n"
    alone = tmp_path / "table.md"
    write(alone, "new table")
    assert alone.read_text() == "new table\n"


def test_a_named_region_is_replaced_and_the_other_tables_are_left_as_they_were(tmp_path):
    document = tmp_path / "bots.md"
    begin, end = markers("filed")
    document.write_text(f"{BEGIN}\ngreedy table\n{END}\nbetween\n{begin}\nold filed table\n{end}\n")
    write(document, "new filed table", "filed")
    assert document.read_text() == f"{BEGIN}\ngreedy table\n{END}\nbetween\n{begin}\nnew filed table\n{end}\n"
