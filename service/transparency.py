"""The transparency log of finished matches (docs/fairness.md, "Transparency"): the head hash of each finished match
is a leaf of an append-only RFC 6962 Merkle tree (domain/merkle.py), appended once, and the server signs the tree's
head. GET /v1/transparency/... serves the signed head and the proofs; `check_inclusion` and `check_consistency` are
what `cardroom verify` runs on them, offline if the documents were saved.

Each process keeps the leaf hashes it has read and reads only the new ones (the log is append-only), with the roots
of the tree's large complete subtrees (domain/merkle.py's Tree): a proof costs no Redis read of the whole tree, and
once those roots are known, O(log n) hashing (docs/fairness.md gives the costs measured, bench/transparency.py).
"""
import json
import threading
import time

from domain import match, merkle
from eventstore.base import Log
from eventstore.transparency import TransparencyStore
from service.errors import NotFound, Unavailable, Unprocessable
from service.signing import Signer, signature_valid

HEAD_FORMAT = "cardroom-tree-head/1"
DUE_BATCH = 100  # finished matches whose leaf is made up per janitor pass


class TransparencyService:
    def __init__(self, store: TransparencyStore, matches: Log, signer: Signer | None, clock=time.time):
        """`matches`: the matches' log, whose metas the janitor's pass reads; `signer`: the server's key (None: the
        log is kept, but no head is signed, and GET /v1/transparency/head answers 503)."""
        self._store = store
        self._matches = matches
        self._signer = signer
        self._clock = clock
        self._lock = threading.Lock()
        self._tree = merkle.Tree()

    # --- a match that finishes (service/matches/reactions/transparency.py) ---------------------------
    def note_due(self, match_id: str, since: float) -> None:
        """Before the append that finishes a match: what the janitor finds if its leaf is never appended."""
        self._store.note_due(match_id, since)

    def record(self, match_id: str, head: str) -> int:
        """Appends the finished match's leaf, once however often asked; its index."""
        index = self._store.append(match_id, merkle.match_leaf(match_id, head).hex())
        self._store.done(match_id)
        return index

    def record_due(self, due_for: float) -> list[tuple[str, str]]:
        """The janitor's pass: the leaves noted due `due_for` seconds ago or more; (match, "recorded" or "unfinished":
        the append that was to finish it never happened, and its note is dropped)."""
        done = []
        for match_id in self._store.due(self._clock() - due_for, DUE_BATCH):
            meta = self._matches.meta(match_id)
            if meta and meta.get("status") == match.FINISHED:
                self.record(match_id, meta["head"])
                done.append((match_id, "recorded"))
            else:
                self._store.done(match_id)
                done.append((match_id, "unfinished"))
        return done

    # --- reading -------------------------------------------------------------------------------------
    def head(self) -> dict:
        """The signed tree head now: {format, tree_size, root_hash, timestamp (ms), public_key, signature}."""
        signer = self._required_signer()
        with self._lock:
            self._catch_up()
            size, root = len(self._tree.leaves), self._tree.root()
        body = {"format": HEAD_FORMAT, "tree_size": size, "root_hash": root.hex(), "timestamp": int(self._clock() * 1000)}
        return {**body, "public_key": signer.public_key, "signature": signer.sign(signed_part(body))}

    def public_key(self) -> str:
        """The key that signs the heads, hex."""
        return self._required_signer().public_key

    def _required_signer(self) -> Signer:
        if self._signer is None:
            raise Unavailable("transparency_unsigned", "this server has no TRANSPARENCY_KEY: it signs no tree head")
        return self._signer

    def inclusion(self, match_id: str, tree_size: int | None = None) -> dict:
        """The audit path of the match's leaf in the tree of `tree_size` leaves (default: the tree now)."""
        index = self._store.index_of(match_id)
        if index is None:
            raise NotFound("match_not_in_log", f"match {match_id!r} is not in the transparency log: no such match, "
                                               f"or not finished (a finished match's leaf follows within seconds)")
        with self._lock:
            size = self._size(tree_size)
            if index >= size:
                raise Unprocessable("tree_size_out_of_range", f"match {match_id!r} is leaf {index}: it is in the "
                                                              f"trees of {index + 1} leaves or more")
            path = self._tree.inclusion_proof(index, size)
            leaf = self._tree.leaves[index]
        return {"match": match_id, "leaf_index": index, "tree_size": size, "leaf_hash": leaf.hex(),
                "audit_path": [sibling.hex() for sibling in path]}

    def consistency(self, first: int, second: int | None = None) -> dict:
        """The proof that the tree of `first` leaves is the start of the tree of `second` (default: the tree now)."""
        with self._lock:
            size = self._size(second)
            if not 0 <= first <= size:
                raise Unprocessable("tree_size_out_of_range", f"first must be from 0 to second ({size})")
            proof = self._tree.consistency_proof(first, size)
        return {"first": first, "second": size, "proof": [node.hex() for node in proof]}

    def _size(self, size: int | None) -> int:
        """`size` if the log has a tree of that many leaves (default: its size now); under the lock."""
        if size is None or size > len(self._tree.leaves):
            self._catch_up()
        if size is not None and not 0 <= size <= len(self._tree.leaves):
            raise Unprocessable("tree_size_out_of_range", f"the log holds {len(self._tree.leaves)} leaves, not {size}")
        return len(self._tree.leaves) if size is None else size

    def _catch_up(self) -> None:
        known = len(self._tree.leaves)
        self._tree.extend([bytes.fromhex(leaf) for leaf in self._store.leaves(known, self._store.size())])


# --- what `cardroom verify` checks, with no server --------------------------------------------------
class NotProven(Exception):
    """A head, a proof or a match that does not show what it should; the message says what."""


def signed_part(head: dict) -> bytes:
    """The bytes a tree head's signature is over: the canonical JSON (keys sorted, no spaces) of its format, size,
    root and time."""
    body = {name: head.get(name) for name in ("format", "tree_size", "root_hash", "timestamp")}
    return json.dumps(body, sort_keys=True, separators=(",", ":")).encode()


def check_head(head: dict, public_key: str | None = None) -> None:
    """A signed tree head, by `public_key` (hex) if given, else by the key it names."""
    if head.get("format") != HEAD_FORMAT:
        raise NotProven(f"not a {HEAD_FORMAT} document")
    if public_key is not None and head.get("public_key") != public_key:
        raise NotProven(f"the head of size {head.get('tree_size')} is signed by another key than {public_key}")
    if not signature_valid(str(head.get("public_key")), signed_part(head), str(head.get("signature"))):
        raise NotProven(f"the signature of the head of size {head.get('tree_size')} is not its key's")


def check_inclusion(match_id: str, last_hash: str, head: dict, proof: dict) -> str:
    """That the match whose log ends at `last_hash` is a leaf of the tree of the signed `head`; what was shown."""
    leaf = merkle.match_leaf(match_id, last_hash)
    if proof.get("match") != match_id or proof.get("tree_size") != head.get("tree_size"):
        raise NotProven(f"the proof is for match {proof.get('match')!r} in a tree of {proof.get('tree_size')}, not "
                        f"{match_id!r} in the head's of {head.get('tree_size')}")
    try:
        included = merkle.verify_inclusion(leaf, int(proof["leaf_index"]), int(head["tree_size"]),
                                           [bytes.fromhex(node) for node in proof["audit_path"]],
                                           bytes.fromhex(head["root_hash"]))
    except (KeyError, TypeError, ValueError) as error:
        raise NotProven(f"the proof or the head is malformed: {error!r}") from None
    if not included:
        raise NotProven(f"match {match_id!r} with this log is not in the tree of {head['tree_size']} leaves whose "
                        f"root the head signs: the log or the tree was rewritten")
    return f"match {match_id} is leaf {proof['leaf_index']} of the signed tree of {head['tree_size']}"


def check_consistency(older: dict, newer: dict, proof: dict) -> str:
    """That the signed tree `older` is the start of the signed tree `newer`: nothing in it was changed or dropped."""
    first, second = older.get("tree_size"), newer.get("tree_size")
    if (proof.get("first"), proof.get("second")) != (first, second):
        raise NotProven(f"the proof is from {proof.get('first')} to {proof.get('second')} leaves, not from "
                        f"{first} to {second}")
    try:
        consistent = merkle.verify_consistency(int(older["tree_size"]), int(newer["tree_size"]),
                                               bytes.fromhex(older["root_hash"]),
                                               bytes.fromhex(newer["root_hash"]),
                                               [bytes.fromhex(node) for node in proof["proof"]])
    except (KeyError, TypeError, ValueError) as error:
        raise NotProven(f"the proof or a head is malformed: {error!r}") from None
    if not consistent:
        raise NotProven(f"the tree of {second} leaves does not extend the tree of {first}: the log was rewritten")
    return f"the signed tree of {first} leaves is the start of the signed tree of {second}"
