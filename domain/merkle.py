"""An append-only Merkle tree as Certificate Transparency defines it (RFC 6962, section 2.1), with its audit paths
(inclusion proofs) and consistency proofs, and their verification as RFC 9162 (section 2.1.3.2, 2.1.4.2) states it.
Pure and hashlib-only, so the offline verifier (`cardroom verify`) runs the same code the server does, and the
recipe, as the seed's (domain/rng.py), can be rewritten in any language from docs/fairness.md.

    leaf hash  = SHA-256(0x00 || data)
    node hash  = SHA-256(0x01 || left || right)
    MTH({})    = SHA-256("");  MTH({d}) = leaf hash of d;  MTH(D[n]) = node hash of MTH(D[0:k]), MTH(D[k:n]),
                 k the largest power of two smaller than n

Hashes are bytes here; the documents that carry them (service/transparency.py) write them as hex. A Tree builds the
proofs from its leaf hashes, remembering the roots of its large complete subtrees (docs/fairness.md gives the costs
measured); a Frontier folds a growing tree's root from only its new leaves.
"""
import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

EMPTY_ROOT = hashlib.sha256(b"").digest()


def leaf_hash(data: bytes) -> bytes:
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    return hashlib.sha256(b"\x01" + left + right).digest()


def match_leaf(match_id: str, head: str) -> bytes:
    """A finished match's leaf: the canonical JSON (keys sorted, no spaces, as the hash chain's) of its id and the hash
    of its log's last event, which commits to every event before it."""
    return leaf_hash(json.dumps({"head": head, "match": match_id}, sort_keys=True, separators=(",", ":")).encode())


def _split(size: int) -> int:
    """The largest power of two smaller than `size` (> 1): where RFC 6962 splits a tree."""
    return 1 << ((size - 1).bit_length() - 1)


@dataclass
class Frontier:
    """The roots of the complete subtrees a tree of `size` leaves is made of, largest first: enough to give its root
    and to grow it leaf by leaf without the leaves before."""
    size: int = 0
    peaks: list[tuple[int, bytes]] = field(default_factory=list)  # (leaves under it, its hash)

    def extend(self, leaves: Sequence[bytes]) -> None:
        for leaf in leaves:
            self.peaks.append((1, leaf))
            while len(self.peaks) > 1 and self.peaks[-2][0] == self.peaks[-1][0]:
                (count, left), (_, right) = self.peaks[-2], self.peaks[-1]
                self.peaks[-2:] = [(2 * count, node_hash(left, right))]
            self.size += 1

    def root(self) -> bytes:
        if not self.peaks:
            return EMPTY_ROOT
        folded = self.peaks[-1][1]
        for _, peak in reversed(self.peaks[:-1]):
            folded = node_hash(peak, folded)
        return folded


def root(leaves: Sequence[bytes]) -> bytes:
    """MTH of the tree whose leaf hashes are `leaves`."""
    frontier = Frontier()
    frontier.extend(leaves)
    return frontier.root()


REMEMBERED_FROM = 256  # a Tree remembers the roots of its complete subtrees of this many leaves or more (2 at least)


class Tree:
    """A growing tree's leaf hashes, remembering the roots of its complete subtrees of REMEMBERED_FROM leaves or more:
    an append-only tree never changes them, so once they are known a proof hashes O(REMEMBERED_FROM * log n) leaves,
    not O(n), for about 2n / REMEMBERED_FROM remembered hashes."""

    def __init__(self, leaves: Sequence[bytes] = ()):
        self.leaves: list[bytes] = []
        self._frontier = Frontier()
        self._complete: dict[tuple[int, int], bytes] = {}  # (first leaf, leaves) -> root
        self.extend(leaves)

    def extend(self, leaves: Sequence[bytes]) -> None:
        self.leaves += leaves
        self._frontier.extend(leaves)

    def root(self) -> bytes:
        return self._frontier.root()

    def inclusion_proof(self, index: int, size: int) -> list[bytes]:
        """PATH(index, D[size]) of RFC 6962 2.1.1: the hashes that lead from leaf `index` to the root of the tree of
        the first `size` leaves."""
        if not 0 <= index < size <= len(self.leaves):
            raise ValueError(f"no leaf {index} in a tree of {size} (of {len(self.leaves)})")
        path: list[bytes] = []
        low, high = 0, size
        while high - low > 1:
            middle = low + _split(high - low)
            if index < middle:
                path.append(self._subtree_root(middle, high))
                high = middle
            else:
                path.append(self._subtree_root(low, middle))
                low = middle
        return path[::-1]

    def consistency_proof(self, first: int, size: int) -> list[bytes]:
        """PROOF(first, D[size]) of RFC 6962 2.1.2: the hashes that show the tree of the first `first` leaves is the
        start of the tree of the first `size`. Empty when `first` is 0 or `size`."""
        if not 0 <= first <= size <= len(self.leaves):
            raise ValueError(f"no tree of {first} leaves before one of {size} (of {len(self.leaves)})")
        if first in (0, size):
            return []
        proof: list[bytes] = []
        low, high, complete = 0, size, True
        while first != high - low:
            split = _split(high - low)
            if first <= split:
                proof.append(self._subtree_root(low + split, high))
                high = low + split
            else:
                proof.append(self._subtree_root(low, low + split))
                low, first, complete = low + split, first - split, False
        if not complete:
            proof.append(self._subtree_root(low, high))
        return proof[::-1]

    def _subtree_root(self, low: int, high: int) -> bytes:
        """MTH of the leaves from `low` up to `high`, excluded (a subtree of RFC 6962's split)."""
        count = high - low
        if count < REMEMBERED_FROM:
            return root(self.leaves[low:high])
        if count & (count - 1):  # not complete: the right edge of the tree, its complete parts remembered
            split = low + _split(count)
            return node_hash(self._subtree_root(low, split), self._subtree_root(split, high))
        known = self._complete.get((low, count))
        if known is None:
            half = low + count // 2
            known = self._complete[low, count] = node_hash(self._subtree_root(low, half),
                                                           self._subtree_root(half, high))
        return known


def inclusion_proof(leaves: Sequence[bytes], index: int) -> list[bytes]:
    """A leaf's audit path in the tree of exactly these leaves (Tree.inclusion_proof)."""
    return Tree(leaves).inclusion_proof(index, len(leaves))


def consistency_proof(leaves: Sequence[bytes], first: int) -> list[bytes]:
    """The consistency proof from the first `first` leaves to all of them (Tree.consistency_proof)."""
    return Tree(leaves).consistency_proof(first, len(leaves))


def verify_inclusion(leaf: bytes, index: int, size: int, proof: Sequence[bytes], root_hash: bytes) -> bool:
    """RFC 9162 2.1.3.2: whether `proof` shows the leaf hash `leaf` at `index` in the tree of `size` with `root_hash`."""
    if not 0 <= index < size:
        return False
    fn, sn, folded = index, size - 1, leaf
    for sibling in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            folded = node_hash(sibling, folded)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            folded = node_hash(folded, sibling)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and folded == root_hash


def verify_consistency(first: int, second: int, first_root: bytes, second_root: bytes,
                       proof: Sequence[bytes]) -> bool:
    """RFC 9162 2.1.4.2: whether `proof` shows the tree of `first` leaves with `first_root` is the start of the tree of
    `second` leaves with `second_root`. An empty tree starts every tree; a tree is consistent with itself alone."""
    if not 0 <= first <= second:
        return False
    if first == 0:
        return not proof and first_root == EMPTY_ROOT and (second > 0 or second_root == EMPTY_ROOT)
    if first == second:
        return not proof and first_root == second_root
    if not proof:
        return False
    path = [first_root, *proof] if first & (first - 1) == 0 else list(proof)
    fn, sn = first - 1, second - 1
    while fn & 1:
        fn, sn = fn >> 1, sn >> 1
    first_folded = second_folded = path[0]
    for sibling in path[1:]:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            first_folded = node_hash(sibling, first_folded)
            second_folded = node_hash(sibling, second_folded)
            while not fn & 1 and fn:
                fn, sn = fn >> 1, sn >> 1
        else:
            second_folded = node_hash(second_folded, sibling)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and first_folded == first_root and second_folded == second_root
