"""The `cardroom` command. `cardroom verify FILE` checks an export offline (a match's or a tournament's): no
server, no Redis. `cardroom bot --url URL --key KEY` plays an account's turns over HTTP (cli/bot.py).
`cardroom tournament --url URL ...` runs a tournament on a server and prints its standings. `cardroom admin --url URL
--key ADMIN_KEY ...` acts as the operator (cli/admin.py). `cardroom ratings rebuild --url URL --key ADMIN_KEY` recomputes
every rating from the logs (cli/ratings.py, docs/ladder.md)."""
import argparse
import json
import logging
import sys

from cli.admin import add_admin_command, run_admin
from cli.bot import ANYONE, NOBODY, Bot, Client, HttpError
from domain.bots import BOTS
from domain.errors import InvalidSetup
from cli.ratings import add_ratings_command, run_ratings
from cli.tournament import add_tournament_command, run_tournament
from service.audit import verify_export
from service.tournament_audit import verify_tournament
from service.tournaments import EXPORT_FORMAT as TOURNAMENT_EXPORT


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom", description="cardroom's tools")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check an export: hash chain, seed commitment, deal, moves, result "
                                                "(a tournament's: also every pairing and every match)")
    verify.add_argument("file", help="a document from GET /v1/matches/<id>/export or /v1/tournaments/<id>/export "
                                     "('-' reads standard input)")
    verify.add_argument("--json", action="store_true", help="print the verdict as JSON")
    bot = commands.add_parser("bot", help="play every turn an account owes, from its feed, until interrupted")
    bot.add_argument("--url", required=True, help="the server, e.g. http://localhost:8000")
    bot.add_argument("--key", required=True, help="the account's API key")
    bot.add_argument("--policy", choices=sorted(BOTS), default="greedy", help="the built-in policy (default greedy)")
    bot.add_argument("--options", type=json.loads, default={}, help='the policy\'s options as JSON, e.g. \'{"budget_ms": 200}\'')
    bot.add_argument("--accept", type=accepted_challengers, default=ANYONE, metavar="WHOM",
                     help="the challenges to accept (the others are declined): anyone (the default), nobody, or a "
                          "comma-separated list of account names or ids")
    add_tournament_command(commands)
    add_admin_command(commands)
    add_ratings_command(commands)
    args = parser.parse_args(argv)
    return {"bot": run_bot, "tournament": run_tournament, "admin": run_admin,
            "ratings": run_ratings}.get(args.command, run_verify)(args)


def accepted_challengers(value: str) -> str | set[str]:
    return value if value in (ANYONE, NOBODY) else {whom.strip() for whom in value.split(",") if whom.strip()}


def run_verify(args) -> int:
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
        with source:
            document = json.load(source)
    except (OSError, ValueError) as error:
        print(f"cardroom verify: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    document = document if isinstance(document, dict) else {}
    check = verify_tournament if document.get("format") == TOURNAMENT_EXPORT else verify_export
    verdict = check(document)
    print(json.dumps(verdict.as_dict(), indent=2) if args.json else verdict.summary())
    return 0 if verdict.ok else 1


def run_bot(args) -> int:
    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s", stream=sys.stderr)
    try:
        Bot(Client(args.url, args.key), args.policy, args.options, accept=args.accept).run()
    except InvalidSetup as error:
        print(f"cardroom bot: {error}", file=sys.stderr)
        return 2
    except HttpError as error:
        print(f"cardroom bot: the server refused the key: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 0
    return 0
