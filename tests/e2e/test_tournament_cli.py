"""`cardroom tournament` against the running service: it creates the tournament, waits for the workers to play
it, prints the standings and saves the ratings chart."""
import pytest

from cli import main

pytestmark = pytest.mark.e2e


def test_the_cli_runs_a_tournament_and_prints_its_standings(server, tmp_path, capsys):
    chart = tmp_path / "ratings.svg"
    assert main(["tournament", "--url", server, "--game", "mantis", "--bots", "random,greedy", "--format", "duplicate",
                 "--deals", "2", "--chart", str(chart), "--poll", "0.2"]) == 0
    out = capsys.readouterr().out
    assert "4 matches" in out and "random #0" in out and "greedy #1" in out
    assert chart.read_text().startswith("<svg")
