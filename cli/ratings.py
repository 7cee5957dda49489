"""`cardroom ratings`: rated play's operator tools over HTTP (docs/ladder.md). `rebuild` recomputes every rating from
the logs of the rated matches, in each ladder's order, and replaces the leaderboards with them (the ADMIN_KEY)."""
import argparse

from cli.admin import ask


def add_ratings_command(commands) -> None:
    ratings = commands.add_parser("ratings", help="rated play: rebuild every rating from the logs")
    actions = ratings.add_subparsers(dest="action", required=True)
    rebuild = actions.add_parser("rebuild", help="recompute every rating from the rated matches' logs and replace "
                                                 "the leaderboards (repairs a damaged projection)")
    rebuild.add_argument("--url", required=True, help="the server, e.g. http://localhost:8000")
    rebuild.add_argument("--key", required=True, help="the server's ADMIN_KEY")
    rebuild.add_argument("--reason", required=True, help="why: logged with the action")
    rebuild.add_argument("--by", default="admin", help="who acts, for the log (default: admin)")


def run_ratings(args: argparse.Namespace) -> int:
    code, answer = ask("ratings", args, "POST", "/v1/admin/ratings/rebuild", {"reason": args.reason, "by": args.by})
    return code if answer is None else 1 if answer["differences"] else 0
