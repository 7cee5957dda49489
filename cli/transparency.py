"""`cardroom verify`'s transparency checks (docs/fairness.md, "Transparency"), on top of the export's own:
    cardroom verify match.json --head saved-head.json [--proof inclusion.json | --url URL]
        the verified match is a leaf of the tree the saved head signs
    cardroom verify saved-head.json [--head later-head.json] [--proof consistency.json | --url URL]
        the saved head's tree is the start of the later one (default: the server's head now, from --url)
The proofs come from saved files or from the server at --url; they are checked against the signed heads, so the
server's word is never taken for them. --public-key pins the key the heads must be signed by."""
import argparse
import json
import urllib.parse

from cli.bot import Client, HttpError
from service.transparency import HEAD_FORMAT, check_consistency, check_head, check_inclusion


class Unobtainable(Exception):
    """A document that could not be read or fetched (exit 2, as an unreadable export)."""


def add_transparency_options(verify: argparse.ArgumentParser) -> None:
    group = verify.add_argument_group("transparency", "prove a match is in the server's signed log of finished "
                                                      "matches, or that a saved head is the start of a later one")
    group.add_argument("--head", metavar="FILE", help="a saved signed tree head (GET /v1/transparency/head): the "
                                                      "export's match must be in its tree; a head FILE must be its start")
    group.add_argument("--proof", metavar="FILE", help="a saved proof (GET /v1/transparency/proof/...) instead of "
                                                       "asking --url")
    group.add_argument("--url", help="the server to ask for the proof, and for its head now when --head is not given")
    group.add_argument("--public-key", metavar="HEX", help="the key the heads must be signed by (GET "
                                                           "/v1/transparency/key, saved once); default: the saved head's")


def is_tree_head(document: dict) -> bool:
    return document.get("format") == HEAD_FORMAT


def inclusion_asked(args) -> bool:
    return bool(args.head or args.url or args.proof)


def included(args, export: dict) -> str:
    """That the verified export's match is a leaf of the signed head's tree; what was shown (raises
    service.transparency.NotProven)."""
    head = _head(args)
    check_head(head, args.public_key)
    match_id = str(export.get("match_id"))
    query = urllib.parse.urlencode({"match": match_id, "tree_size": head["tree_size"]})
    proof = _document(args, f"/v1/transparency/proof/inclusion?{query}")
    return check_inclusion(match_id, export["events"][-1]["hash"], head, proof)


def consistent(args, saved: dict) -> str:
    """That the saved head's tree is the start of the later head's (--head, or the server's now), both signed by one
    key; what was shown (raises NotProven)."""
    check_head(saved, args.public_key)
    later = _head(args)
    check_head(later, saved["public_key"])
    older, newer = sorted((saved, later), key=lambda head: head["tree_size"])
    query = urllib.parse.urlencode({"first": older["tree_size"], "second": newer["tree_size"]})
    return check_consistency(older, newer, _document(args, f"/v1/transparency/proof/consistency?{query}"))


def _head(args) -> dict:
    if args.head:
        return _read(args.head)
    if not args.url:
        raise Unobtainable("give a saved head (--head FILE) or the server (--url URL) to ask for its head")
    return _fetched(args.url, "/v1/transparency/head")


def _document(args, path: str) -> dict:
    if args.proof:
        return _read(args.proof)
    if not args.url:
        raise Unobtainable("give a saved proof (--proof FILE) or the server (--url URL) to ask for it")
    return _fetched(args.url, path)


def _read(path: str) -> dict:
    try:
        with open(path, encoding="utf-8") as source:
            document = json.load(source)
    except (OSError, ValueError) as error:
        raise Unobtainable(f"cannot read {path}: {error}") from None
    if not isinstance(document, dict):
        raise Unobtainable(f"{path} holds no JSON object")
    return document


def _fetched(url: str, path: str) -> dict:
    try:
        return Client(url).call("GET", path)
    except HttpError as error:
        raise Unobtainable(f"the server refused {path}: {error}") from None
    except (OSError, ValueError) as error:
        raise Unobtainable(f"cannot reach {url}: {error}") from None

