"""The `cardroom` command. `cardroom verify FILE` checks an export offline (a match's or a tournament's): no
server, no Redis; `cardroom verify DIR` a whole dump, which `cardroom dump DIR --url URL --since DAY` writes from a
server's public API (cli/archive.py, docs/archive.md); with --head/--proof/--url, also the match's place in the
transparency log, or a saved head's consistency with a later one (cli/transparency.py). `cardroom bot --url URL --key KEY` plays an account's turns over HTTP (cli/bot.py); with
`--seek GAME` it seeks matches forever (docs/ladder.md).
`cardroom tournament --url URL ...` runs a tournament on a server and prints its standings. `cardroom admin --url URL
--key ADMIN_KEY ...` acts as the operator (cli/admin.py). `cardroom ratings rebuild --url URL --key ADMIN_KEY` recomputes
every rating from the logs (cli/ratings.py, docs/ladder.md)."""
import argparse
import json
import logging
import os
import sys
import threading
from pathlib import Path

from cli.admin import add_admin_command, run_admin
from cli.archive import add_dump_command, run_dump, verify_dump
from cli.bot import ANYONE, NOBODY, Bot, Client, HttpError, Seeker
from domain.bots import BOTS
from domain.errors import InvalidSetup
from cli.ratings import add_ratings_command, run_ratings
from cli.tournament import add_tournament_command, run_tournament
from cli.transparency import Unobtainable, add_transparency_options, consistent, included, inclusion_asked, is_tree_head
from service.audit import verify_export
from service.tournament_audit import verify_tournament
from service.tournaments import EXPORT_FORMAT as TOURNAMENT_EXPORT
from service.transparency import NotProven


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom", description="cardroom's tools")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check an export: hash chain, seed commitment, deal, moves, result "
                                                "(a tournament's: also every pairing and every match)")
    verify.add_argument("file", help="a document from GET /v1/matches/<id>/export or /v1/tournaments/<id>/export "
                                     "('-' reads standard input), a dump's directory (cardroom dump), or a saved head "
                                     "from GET /v1/transparency/head")
    verify.add_argument("--json", action="store_true", help="print the verdict as JSON")
    add_transparency_options(verify)
    bot = commands.add_parser("bot", help="play every turn an account owes, from its feed, until interrupted")
    bot.add_argument("--url", required=True, help="the server, e.g. http://localhost:8000")
    bot.add_argument("--key", required=True, help="the account's API key")
    bot.add_argument("--policy", choices=sorted(BOTS), default="greedy", help="the built-in policy (default greedy)")
    bot.add_argument("--options", type=json.loads, default={}, help='the policy\'s options as JSON, e.g. \'{"budget_ms": 200}\'')
    bot.add_argument("--accept", type=accepted_challengers, default=ANYONE, metavar="WHOM",
                     help="the challenges to accept (the others are declined): anyone (the default), nobody, or a "
                          "comma-separated list of account names or ids")
    seeking = bot.add_argument_group("seeking", "keep the account on the ladder: seek a match, play it, seek again")
    seeking.add_argument("--seek", metavar="GAME", help="the game to seek matches of (GET /v1/games)")
    seeking.add_argument("--players", type=int, default=2, help="seats of the match sought (default 2)")
    seeking.add_argument("--game-options", type=json.loads, default={}, metavar="JSON",
                         help='the game\'s options, e.g. \'{"edition": "compact"}\'')
    seeking.add_argument("--clock", type=json.loads, metavar="JSON",
                         help='the turn clock, e.g. \'{"move_ms": 30000}\' (docs/clocks.md); required with --rated')
    seeking.add_argument("--rated", action="store_true", help="seek rated matches")
    seeking.add_argument("--rating-range", type=float, metavar="POINTS",
                         help="the most an opponent's rating may differ (default: any); widens as the seek waits")
    seeking.add_argument("--bot-after", type=int, metavar="SECONDS",
                         help="let a house bot take the seat nobody came for after this long (default: never)")
    add_dump_command(commands)
    add_tournament_command(commands)
    add_admin_command(commands)
    add_ratings_command(commands)
    args = parser.parse_args(argv)
    return {"bot": run_bot, "tournament": run_tournament, "admin": run_admin, "ratings": run_ratings,
            "dump": run_dump}.get(args.command, run_verify)(args)


def accepted_challengers(value: str) -> str | set[str]:
    return value if value in (ANYONE, NOBODY) else {whom.strip() for whom in value.split(",") if whom.strip()}


def first_seek(seeker: Seeker) -> None:
    """The first seek, here, so that terms the server refuses end the command with the reason; a server not up yet,
    busy or at its limits is left to the seeker's retries."""
    try:
        seeker.step()
    except HttpError as error:
        if error.status not in (409, 429) and error.status < 500:
            raise
    except (OSError, ValueError):
        pass


def seek_terms(args) -> dict:
    """The body of POST /v1/seeks that `--seek` and its options make."""
    optional = {"clock": args.clock, "rating_range": args.rating_range, "bot_after": args.bot_after}
    return {"game": args.seek, "players": args.players, "options": args.game_options, "rated": args.rated,
            **{name: value for name, value in optional.items() if value is not None}}


def run_verify(args) -> int:
    if os.path.isdir(args.file):
        return verify_dump(Path(args.file), args.json)
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
        with source:
            document = json.load(source)
    except (OSError, ValueError) as error:
        print(f"cardroom verify: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    document = document if isinstance(document, dict) else {}
    if is_tree_head(document):
        return run_transparency(args, lambda: consistent(args, document), {})
    check = verify_tournament if document.get("format") == TOURNAMENT_EXPORT else verify_export
    verdict = check(document)
    if verdict.ok and inclusion_asked(args) and check is verify_export:
        return run_transparency(args, lambda: included(args, document), verdict.as_dict(), verdict.summary())
    print(json.dumps(verdict.as_dict(), indent=2) if args.json else verdict.summary())
    return 0 if verdict.ok else 1


def run_transparency(args, prove, verdict: dict, summary: str | None = None) -> int:
    """Prints what the transparency check showed (after the export's verdict, if any): 0 shown, 1 not, 2 a head or a
    proof could not be had."""
    try:
        shown, problem, status = prove(), None, 0
    except NotProven as failure:
        shown, problem, status = None, str(failure), 1
    except Unobtainable as failure:
        print(f"cardroom verify: {failure}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps({**verdict, "transparency": {"ok": not status, "shown": shown, "problem": problem}}, indent=2))
    else:
        print("\n".join(filter(None, [summary, f"OK: {shown}" if shown else f"NOT PROVEN: {problem}"])))
    return status


def run_bot(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    client = Client(args.url, args.key)
    try:
        player = Bot(client, args.policy, args.options, accept=args.accept)
        if args.seek:
            seeker = Seeker(client, seek_terms(args))
            first_seek(seeker)
            threading.Thread(target=seeker.run, daemon=True, name="seeker").start()
        player.run()
    except InvalidSetup as error:
        print(f"cardroom bot: {error}", file=sys.stderr)
        return 2
    except HttpError as error:
        print(f"cardroom bot: the server refused: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0
