"""The `cardroom` command. `cardroom verify FILE` checks an export offline: no server, no Redis."""
import argparse
import json
import sys

from service.audit import verify_export


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cardroom", description="cardroom's offline tools")
    commands = parser.add_subparsers(dest="command", required=True)
    verify = commands.add_parser("verify", help="check an export: hash chain, seed commitment, deal, moves, result")
    verify.add_argument("file", help="a document from GET /v1/matches/<id>/export ('-' reads standard input)")
    verify.add_argument("--json", action="store_true", help="print the verdict as JSON")
    args = parser.parse_args(argv)
    try:
        source = sys.stdin if args.file == "-" else open(args.file, encoding="utf-8")
        with source:
            document = json.load(source)
    except (OSError, ValueError) as error:
        print(f"cardroom verify: cannot read {args.file}: {error}", file=sys.stderr)
        return 2
    verdict = verify_export(document if isinstance(document, dict) else {})
    print(json.dumps(verdict.as_dict(), indent=2) if args.json else verdict.summary())
    return 0 if verdict.ok else 1
