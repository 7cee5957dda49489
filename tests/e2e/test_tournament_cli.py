"""`cardroom tournament` against the running service: it creates the tournament, waits for the workers to play
it, prints the standings and saves the ratings chart."""
import re

import pytest

from cli import main

pytestmark = pytest.mark.e2e


def test_the_cli_runs_a_tournament_and_prints_its_standings(server, tmp_path, capsys):
    chart = tmp_path / "ratings.svg"
    assert main(["tournament", "--url", server, "--game", "mantis", "--bots", "random,greedy", "--format", "duplicate",
                 "--deals", "2", "--chart", str(chart), "--poll", "0.2"]) == 0
    captured = capsys.readouterr()
    assert "4 matches" in captured.out and "random #0" in captured.out and "greedy #1" in captured.out
    assert chart.read_text().startswith("<svg")
    # captured output is no terminal: the progress, read every 0.2 s, leaves at most one line in it, not a copy a read
    progress_lines = [line for line in re.split(r"[\r\n]", captured.err) if re.search(r"\b\d+/4\b", line)]
    assert len(progress_lines) <= 1, captured.err
