"""`cardroom tournament`: create a tournament on a running server, show a progress bar while the workers play
it, print the standings table, and optionally save the ratings chart (SVG). Standard library only (urllib)."""
import json
import sys
import time
import urllib.error
import urllib.request

BAR = 40


def add_tournament_command(commands) -> None:
    run = commands.add_parser("tournament", help="run a tournament of built-in bots on a server and print its "
                                                 "standings")
    run.add_argument("--url", default="http://localhost:8000", help="the server (default %(default)s)")
    run.add_argument("--game", required=True, help="a game id (GET /v1/games)")
    run.add_argument("--bots", required=True, help="comma-separated bot kinds, one entrant each: random,greedy")
    run.add_argument("--format", default="duplicate", choices=["round_robin", "swiss", "duplicate"])
    run.add_argument("--deals", type=int, default=20, help="duplicate: deals (default %(default)s)")
    run.add_argument("--rounds", type=int, default=5, help="swiss: rounds (default %(default)s)")
    run.add_argument("--table-size", type=int, help="seats per match (default 2; duplicate: every entrant)")
    run.add_argument("--max-parallel", type=int, default=8, help="matches at once (default %(default)s)")
    run.add_argument("--chart", help="save the ratings chart (SVG) to this file")
    run.add_argument("--poll", type=float, default=0.5, help="seconds between progress reads (default %(default)s)")


def run_tournament(args) -> int:
    bots = [b.strip() for b in args.bots.split(",") if b.strip()]
    spec = {"game": args.game, "format": args.format, "max_parallel": args.max_parallel,
            "entrants": [{"bot": bot} for bot in bots],
            "table_size": args.table_size or (len(bots) if args.format == "duplicate" else 2)}
    spec.update({"deals": args.deals} if args.format == "duplicate" else {})
    spec.update({"rounds": args.rounds} if args.format == "swiss" else {})
    base = args.url.rstrip("/")
    try:
        created = _call(f"{base}/v1/tournaments", spec)
        document = created
        while document["status"] != "finished":
            _progress(document)
            time.sleep(args.poll)
            document = _call(f"{base}/v1/tournaments/{created['id']}")
        _progress(document)
        print(file=sys.stderr)
        standings = _call(f"{base}/v1/tournaments/{created['id']}/standings")
        if args.chart:
            with urllib.request.urlopen(f"{base}/v1/tournaments/{created['id']}/chart.svg") as answer, \
                    open(args.chart, "wb") as chart:
                chart.write(answer.read())
    except urllib.error.HTTPError as refused:
        body = json.loads(refused.read() or b"{}")
        print(f"cardroom tournament: {refused.code} {body.get('reason')}: {body.get('message')}", file=sys.stderr)
        return 1
    except (urllib.error.URLError, OSError) as error:
        print(f"cardroom tournament: cannot reach {base}: {error}", file=sys.stderr)
        return 2
    print(f"tournament {created['id']}: {document['name']}, {document['progress']['total']} matches")
    print(table(standings["entrants"]))
    if args.chart:
        print(f"ratings chart: {args.chart}")
    return 0


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


def _progress(document: dict) -> None:
    done, total = document["progress"]["done"], document["progress"]["total"]
    filled = BAR * done // max(total, 1)
    eta = document.get("eta_seconds")
    eta_text = f" ETA {eta:.0f} s" if eta is not None else ""
    print(f"\r[{'#' * filled}{'.' * (BAR - filled)}] {done}/{total}{eta_text}   ", end="", file=sys.stderr,
          flush=True)


def _call(url: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"} if data else {})
    with urllib.request.urlopen(request, timeout=30) as answer:
        return json.loads(answer.read())
