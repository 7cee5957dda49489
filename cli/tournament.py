"""`cardroom tournament`: create a tournament on a running server, show a progress bar while the workers play
it, print the standings table, and optionally save the ratings chart (SVG)."""
import sys
import time
import urllib.request

from tqdm import tqdm

from cli.bot import CALL_TIMEOUT, Client, HttpError

# tqdm's default bar with the server's ETA (it knows the matches in play) instead of tqdm's own rate estimate
BAR_FORMAT = "{l_bar}{bar}| {n_fmt}/{total_fmt}{postfix}"


def add_tournament_command(commands) -> None:
    run = commands.add_parser("tournament", help="run a tournament of built-in bots (and accounts) on a server and "
                                                 "print its standings")
    run.add_argument("--url", default="http://localhost:8000", help="the server (default %(default)s)")
    run.add_argument("--game", required=True, help="a game id (GET /v1/games)")
    run.add_argument("--bots", default="", help="comma-separated bot kinds, one entrant each: random,greedy")
    run.add_argument("--accounts", default="", help="comma-separated accounts (names or ids), entered before the "
                                                    "bots: yours is entered, another invited (docs/challenges.md); "
                                                    "their turns are played from their feeds, e.g. by cardroom bot")
    run.add_argument("--key", help="your account's key, which creates the tournament (needed with --accounts)")
    run.add_argument("--format", default="duplicate", choices=["round_robin", "swiss", "duplicate"])
    run.add_argument("--deals", type=int, default=20, help="duplicate: deals (default %(default)s)")
    run.add_argument("--rounds", type=int, default=5, help="swiss: rounds (default %(default)s)")
    run.add_argument("--table-size", type=int, help="seats per match (default 2; duplicate: every entrant)")
    run.add_argument("--max-parallel", type=int, default=8, help="matches at once (default %(default)s)")
    run.add_argument("--chart", help="save the ratings chart (SVG) to this file")
    run.add_argument("--poll", type=float, default=0.5, help="seconds between progress reads (default %(default)s)")


def tournament_spec(args) -> dict:
    entrants = ([{"account": a} for a in _listed(args.accounts)] +
                [{"bot": bot} for bot in _listed(args.bots)])
    spec = {"game": args.game, "format": args.format, "max_parallel": args.max_parallel, "entrants": entrants,
            "table_size": args.table_size or (len(entrants) if args.format == "duplicate" else 2)}
    spec.update({"deals": args.deals} if args.format == "duplicate" else {})
    spec.update({"rounds": args.rounds} if args.format == "swiss" else {})
    return spec


def _listed(names: str) -> list[str]:
    return [name.strip() for name in names.split(",") if name.strip()]


def run_tournament(args) -> int:
    spec = tournament_spec(args)
    base = args.url.rstrip("/")
    client = Client(base, args.key)
    try:
        document = follow(client, client.call("POST", "/v1/tournaments", spec), args.poll)
        standings = client.call("GET", f"/v1/tournaments/{document['id']}/standings")
        if args.chart:
            with urllib.request.urlopen(f"{base}/v1/tournaments/{document['id']}/chart.svg",
                                        timeout=CALL_TIMEOUT) as answer, open(args.chart, "wb") as chart:
                chart.write(answer.read())
    except HttpError as refused:
        print(f"cardroom tournament: {refused}", file=sys.stderr)
        return 1
    except OSError as error:  # refused, unreachable or timed out (urllib's URLError is one)
        print(f"cardroom tournament: cannot reach {base}: {error}", file=sys.stderr)
        return 2
    print(f"tournament {document['id']}: {document['name']}, {document['progress']['total']} matches")
    print(table(standings["entrants"]))
    if args.chart:
        print(f"ratings chart: {args.chart}")
    return 0


def follow(client: Client, document: dict, poll: float, output=None) -> dict:
    """Reads the tournament every `poll` seconds until it is finished, drawing its progress on `output`
    (standard error by default). The bar is drawn only when `output` is a terminal (tqdm's disable=None):
    redirected to a file or a pipe, a redrawn bar would leave a copy of itself at every read."""
    with tqdm(total=document["progress"]["total"], unit="match", file=output or sys.stderr, disable=None,
              bar_format=BAR_FORMAT) as bar:
        while True:
            bar.total, bar.n = document["progress"]["total"], document["progress"]["done"]
            eta = document.get("eta_seconds")
            bar.set_postfix_str("" if eta is None else f"ETA {eta:.0f} s")  # redraws the bar
            if document["status"] == "finished":
                return document
            time.sleep(poll)
            document = client.call("GET", f"/v1/tournaments/{document['id']}")


def table(rows: list[dict]) -> str:
    """The standings as a text table, best first."""
    lines = [f"{'#':>3}  {'entrant':<20} {'matches':>7} {'points':>7} {'win share (95%)':>22} "
             f"{'mu':>6} {'sigma':>6} {'ordinal':>7}"]
    for place, row in enumerate(rows, 1):
        share = "-" if row["share"] is None else \
            f"{row['share']:.3f} [{row['share_low']:.3f}, {row['share_high']:.3f}]"
        rating = row["rating"]
        lines.append(f"{place:>3}  {row['name'][:20]:<20} {row['matches']:>7} {row['points']:>7.1f} {share:>22} "
                     f"{rating['mu']:>6.2f} {rating['sigma']:>6.2f} {rating['ordinal']:>7.2f}")
    return "\n".join(lines)
