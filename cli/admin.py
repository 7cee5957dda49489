"""`cardroom admin`: the operator's actions over HTTP with the ADMIN_KEY (docs/operations.md)."""
import argparse
import json
import sys

from cli.bot import Client, HttpError


def add_admin_command(commands) -> None:
    admin = commands.add_parser("admin", help="the operator's actions: abort a match, disable or enable an account, "
                                              "list and re-enqueue stuck bot turns, void a match's rating")
    admin.add_argument("--url", required=True, help="the server, e.g. http://localhost:8000")
    admin.add_argument("--key", required=True, help="the server's ADMIN_KEY")
    admin.add_argument("--by", default="admin", help="who acts, for the log (default: admin)")
    actions = admin.add_subparsers(dest="action", required=True)
    for action, target, help_text in (("abort", "match", "end a match with no result"),
                                      ("disable", "account", "refuse an account's key and take it out of its matches"),
                                      ("enable", "account", "accept an account's key again"),
                                      ("void-rating", "match", "take a rated match's rating back and recompute "
                                                               "its ladder without it")):
        parser = actions.add_parser(action, help=help_text)
        parser.add_argument(target, help=f"the {target}'s id" + (" or name" if target == "account" else ""))
        parser.add_argument("--reason", required=True, help="why: logged with the action")
    actions.add_parser("stuck", help="list the bot turns awaited longer than STALL_AFTER")
    requeue = actions.add_parser("requeue", help="enqueue every stuck bot turn again")
    requeue.add_argument("--reason", required=True, help="why: logged with the action")


def run_admin(args: argparse.Namespace) -> int:
    code, _ = ask("admin", args, *_request(args))
    return code


def ask(command: str, args: argparse.Namespace, method: str, path: str, body: dict | None) -> tuple[int, dict | None]:
    """An operator's request with the ADMIN_KEY, its answer printed as JSON: (exit code, answer), the code 1 when
    the server refused it and 2 when it cannot be reached (said on stderr; no answer)."""
    try:
        answer = Client(args.url, args.key).call(method, path, body)
    except HttpError as error:
        print(f"cardroom {command}: {error}", file=sys.stderr)
        return 1, None
    except OSError as error:
        print(f"cardroom {command}: cannot reach {args.url}: {error}", file=sys.stderr)
        return 2, None
    print(json.dumps(answer, indent=2))
    return 0, answer


def _request(args: argparse.Namespace) -> tuple[str, str, dict | None]:
    """(method, path, body) of the action asked."""
    why = {"reason": args.reason, "by": args.by} if args.action != "stuck" else None
    if args.action == "abort":
        return "POST", f"/v1/admin/matches/{args.match}/abort", why
    if args.action in ("disable", "enable"):
        return "POST", f"/v1/admin/accounts/{args.account}/{args.action}", why
    if args.action == "void-rating":
        return "POST", f"/v1/admin/ratings/{args.match}/void", why
    if args.action == "requeue":
        return "POST", "/v1/admin/bot-turns/requeue", why
    return "GET", "/v1/admin/bot-turns", None
