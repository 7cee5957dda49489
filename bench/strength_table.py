"""The table bench/bot_strength.py prints: a tested entrant's row read from a duplicate tournament's standings
(GET /v1/tournaments/<id>/standings) and its matches' logs, its verdict, the markdown, and where the table goes
in a document. Apart from the run so that a unit test reads it on recorded documents."""
import statistics
from datetime import datetime
from pathlib import Path

# A seat's points are the fraction of the other seats it finished above (docs/tournaments.md), so an entrant
# as strong as the others scores half at any table size.
EVEN_SHARE = 0.5
BEGIN, END = "<!-- bot_strength.py: begin -->", "<!-- bot_strength.py: end -->"
HEADER = ("| game | players | tested vs opponent | deals | matches | tested win share [95%] | verdict "
          "| ms per tested move (median) | run s |\n|---|---|---|---|---|---|---|---|---|")


def verdict(low: float, high: float) -> str:
    if low > EVEN_SHARE:
        return "better"
    if high < EVEN_SHARE:
        return "worse"
    return "not separated"


def entrant_row(standings: dict, entrant: int) -> dict:
    """The entrant's share, its interval (the deal as the unit, as the standings give it), its matches
    and the verdict against the even share."""
    row = next(r for r in standings["entrants"] if r["entrant"] == entrant)
    return {"matches": row["matches"], "share": row["share"], "low": row["share_low"], "high": row["share_high"],
            "verdict": verdict(row["share_low"], row["share_high"])}


def move_ms(events: list[dict], seat: int) -> list[float]:
    """Milliseconds from the event before each move of `seat` to that move, from a match's log (events' "time"):
    the turn as a player sees it, the bot's think time and the queue included."""
    times = [datetime.fromisoformat(e["time"]) for e in events]
    return [(times[i] - times[i - 1]).total_seconds() * 1000 for i, e in enumerate(events)
            if i and e["type"] == "moved" and e["data"]["seat"] == seat]


def markdown_row(game: str, players: int, pairing: str, deals: int, row: dict, ms: list[float],
                 seconds: float) -> str:
    median = f"{statistics.median(ms):.0f}" if ms else "-"
    return (f"| {game} | {players} | {pairing} | {deals} | {row['matches']} | {row['share']:.3f} "
            f"[{row['low']:.3f}, {row['high']:.3f}] | {row['verdict']} | {median} | {seconds:.0f} |")


def markers(region: str | None = None) -> tuple[str, str]:
    """The markers of a table in a document: BEGIN and END, or a named region's (one document holds several)."""
    if region is None:
        return BEGIN, END
    return f"<!-- bot_strength.py {region}: begin -->", f"<!-- bot_strength.py {region}: end -->"


def write(path: Path, table: str, region: str | None = None) -> None:
    """Replaces the region between its markers in `path` (a document that includes the table), or writes the
    table alone to a file without that region."""
    text = path.read_text() if path.exists() else ""
    begin, end = markers(region)
    if begin in text and end in text:
        head, rest = text.split(begin, 1)
        path.write_text(f"{head}{begin}\n{table}\n{end}{rest.split(end, 1)[1]}")
    else:
        path.write_text(table + "\n")
