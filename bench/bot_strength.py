"""How strong the default search bot is, measured as a user measures it: the project's own duplicate tournaments
over HTTP, on a stack started as `make run` starts it (supervisord, gunicorn, RQ workers, an embedded Redis).

For every game: ismcts (its default options: level 4, the default turn) against each opponent (default:
greedy), at 2 players with --deals deals (2 matches each) and at the game's largest table with --largest-deals
(one match per seat rotation: the tested bot, then the opponent in every other seat). Each row is the tested
entrant's win share with the 95% interval of GET /v1/tournaments/<id>/standings (in duplicate the deal is the
unit: docs/tournaments.md), the verdict against the even share 0.5 (a seat's points are the fraction of the
other seats it finished above, so 0.5 at any table size), and the median time a tested move took in the
matches' logs (the think time the server pads every ismcts turn to, so at least budget_ms, and the queue).
The table goes to stdout, and with --out into a document between the markers of bench/strength_table.py.

    .venv/bin/python bench/bot_strength.py --deals 2 --largest-deals 1           # smoke run, minutes
    .venv/bin/python bench/bot_strength.py --out docs/bots.md                     # the figures of docs/bots.md
    .venv/bin/python bench/bot_strength.py --games flipout --against ismcts:level=3
    .venv/bin/python bench/bot_strength.py --games flipout --largest-deals 0 --against-account filed \
        --region filed --out docs/bots.md                                         # against the issue's bot

--against-account plays an opponent as a user's bot plays: an account of the run's own, entered in the duplicate
tournament by its creator's key (docs/tournaments.md), its seats played from the account's feed by cardroom
bot's client (cli/bot.py) in a thread of this process, with a built-in kind or `filed`, the ismcts bot as issue
#27 found it (bench/filed_ismcts.py), which the server's workers do not have; by default on the iterations the
issue measured in each game (`filed:iterations=N` gives others).
"""
import argparse
import os
import signal
import sys
import tempfile
import threading
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from cli.bot import Bot, Client  # noqa: E402
from cli.tournament import follow  # noqa: E402
from common import NO_RATE_LIMITS  # noqa: E402
from domain.bots import BOTS  # noqa: E402
from domain.games import GAMES  # noqa: E402
from filed_ismcts import FILED_KIND  # noqa: E402
from strength_table import HEADER, markdown_row, move_ms, entrant_row, write  # noqa: E402
from tests.e2e.conftest import running_service  # noqa: E402

TESTED = 0  # the tested bot is entrant 0, every other entrant the opponent
ACCOUNT = "opponent"  # the name of --against-account's account


def entrant(spec: str, budget_ms: int | None) -> dict:
    """`kind` or `kind:option=value,option=value` as an entrant; --budget-ms goes to every ismcts entrant that
    names no budget of its own."""
    kind, bot_options = options_of(spec)
    if kind == "ismcts" and budget_ms is not None:
        bot_options.setdefault("budget_ms", budget_ms)
    return {"bot": kind, **({"bot_options": bot_options} if bot_options else {})}


def options_of(spec: str) -> tuple[str, dict]:
    kind, _, options = spec.partition(":")
    return kind, {name: int(value) for name, value in (o.split("=") for o in options.split(",") if o)}


def account_opponent(base: str, spec: str) -> tuple[Client, dict, str]:
    """An account of its own, its seats played by a client thread with the bot `spec` names; the client with its
    key (whose tournaments may enter it), its entrant and its label."""
    kind, options = options_of(spec)
    keyed = Client(base, Client(base).call("POST", "/v1/accounts", {"name": ACCOUNT, "kind": "bot"})["api_key"])
    player = Bot(keyed, FILED_KIND if kind == FILED_KIND.id else BOTS[kind], options)
    threading.Thread(target=player.run, daemon=True).start()  # dies with the run, as the stack does
    return keyed, {"account": ACCOUNT}, f"{label({'bot': kind, 'bot_options': options})} as an account"


def measure(client: Client, game: str, players: int, deals: int, tested: dict, opponent: dict,
            parallel: int) -> tuple[dict, list[float], float]:
    """One duplicate tournament: the tested entrant's row, the milliseconds of its moves, the run's seconds."""
    started = time.monotonic()
    created = client.call("POST", "/v1/tournaments", {
        "game": game, "format": "duplicate", "deals": deals, "table_size": players, "max_parallel": parallel,
        "entrants": [tested] + [opponent] * (players - 1)})
    finished = follow(client, created, poll=1.0)
    seconds = time.monotonic() - started
    row = entrant_row(client.call("GET", f"/v1/tournaments/{created['id']}/standings"), TESTED)
    ms = [m for table in finished["pairings"][0]["tables"]
          for m in move_ms(client.call("GET", f"/v1/matches/{table['match']}/events")["events"],
                           table["entrants"].index(TESTED))]
    return row, ms, seconds


def label(spec: dict) -> str:
    options = spec.get("bot_options", {})
    return spec["bot"] + (f" ({', '.join(f'{name}={value}' for name, value in options.items())})" if options else "")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", default=",".join(GAMES), help="comma-separated games (default: all)")
    parser.add_argument("--deals", type=int, default=100, help="deals at 2 players (2 matches each)")
    parser.add_argument("--largest-deals", type=int, default=20,
                        help="deals at the game's largest table (one match per seat; 0: none)")
    parser.add_argument("--budget-ms", type=int, help="every ismcts entrant's budget_ms (default: its default turn)")
    parser.add_argument("--tested", default="ismcts", help="the tested bot, `kind[:option=value,...]`")
    parser.add_argument("--against", action="append",
                        help="an opponent, `kind[:option=value,...]`, repeatable (default: greedy)")
    parser.add_argument("--against-account", help="an opponent played as the run's own account by a client over "
                                                  "HTTP, `kind[:option=value,...]`: a built-in bot or `filed` (the "
                                                  "issue's ismcts); instead of --against, with --largest-deals 0")
    parser.add_argument("--workers", type=int, default=2, help="RQ workers, and matches in play at once")
    parser.add_argument("--out", type=Path, help="write the table here (between the markers, if the file has them)")
    parser.add_argument("--region", help="the named markers to write between (bench/strength_table.py's markers)")
    args = parser.parse_args()
    # a run of hours gets stopped with kill: leave through running_service's cleanup, not around it, so the
    # stack it started (Redis, gunicorn, workers) stops with it
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(128 + signal.SIGTERM))
    tested = entrant(args.tested, args.budget_ms)
    if args.against_account and (args.against or args.largest_deals):
        parser.error("an account enters a tournament once, as one opponent: --against-account takes no --against "
                     "and --largest-deals 0")
    lines = [HEADER]
    print(HEADER, flush=True)
    with running_service(Path(tempfile.mkdtemp(prefix="cardroom-strength-")), WORKERS=str(args.workers),
                         **NO_RATE_LIMITS) as base:
        client = Client(base)
        opponents = [(opponent, label(opponent)) for opponent in
                     (entrant(spec, args.budget_ms) for spec in args.against or ["greedy"])]
        if args.against_account:
            client, account, name = account_opponent(base, args.against_account)
            opponents = [(account, name)]
        for game in args.games.split(","):
            tables = ((2, args.deals), (GAMES[game].INFO.max_players, args.largest_deals))
            for players, deals in [(players, deals) for players, deals in tables if deals > 0]:  # 0: skipped
                for opponent, name in opponents:
                    row, ms, seconds = measure(client, game, players, deals, tested, opponent, args.workers)
                    lines.append(markdown_row(game, players, f"{label(tested)} vs {name}", deals, row,
                                              ms, seconds))
                    print(lines[-1], flush=True)
    if args.out:  # the table says how it was made: a smoke run's table must not pass for the figures
        made = (f"`bench/bot_strength.py {' '.join(sys.argv[1:])}`, {datetime.now(timezone.utc):%Y-%m-%d %H:%M} UTC, "
                f"{os.cpu_count()} cores, {os.getloadavg()[0]:.1f} load average at the end:")
        write(args.out, "\n".join([made, "", *lines]), args.region)


if __name__ == "__main__":
    main()
