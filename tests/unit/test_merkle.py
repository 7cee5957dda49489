"""The Merkle tree of finished matches follows RFC 6962: its roots are the RFC's, every leaf's inclusion proof verifies
at every tree size, every two sizes' consistency proof verifies, and a tampered leaf, proof or root fails."""
import hashlib

from hypothesis import given, settings, strategies as st

from domain import merkle
from domain.merkle import (EMPTY_ROOT, Frontier, consistency_proof, inclusion_proof, leaf_hash, node_hash, root,
                           verify_consistency, verify_inclusion)

# the leaves of RFC 6962's reference test vectors (certificate-transparency-go, merkle tree tests), and the roots of
# their first 1 to 8 leaves
RFC_LEAVES = [bytes.fromhex(data) for data in
              ["", "00", "10", "2021", "3031", "40414243", "5051525354555657", "606162636465666768696a6b6c6d6e6f"]]
RFC_ROOTS = ["6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
             "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
             "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
             "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
             "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
             "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
             "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
             "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328"]

leaf_lists = st.lists(st.binary(max_size=8), min_size=1, max_size=40).map(lambda datas: [leaf_hash(d) for d in datas])


def reference_root(leaves):
    """MTH straight from RFC 6962's recursive definition."""
    if not leaves:
        return hashlib.sha256(b"").digest()
    if len(leaves) == 1:
        return leaves[0]
    split = 1 << ((len(leaves) - 1).bit_length() - 1)
    return node_hash(reference_root(leaves[:split]), reference_root(leaves[split:]))


def test_the_roots_of_rfc_6962_s_reference_trees_are_reproduced():
    leaves = [leaf_hash(data) for data in RFC_LEAVES]
    assert [root(leaves[:size]).hex() for size in range(1, 9)] == RFC_ROOTS
    assert root([]) == EMPTY_ROOT


@settings(deadline=None)
@given(leaf_lists)
def test_a_frontier_grown_in_steps_gives_the_rfc_s_root_at_every_size(leaves):
    frontier = Frontier()
    for size in range(1, len(leaves) + 1):
        frontier.extend(leaves[frontier.size:size])
        assert frontier.root() == reference_root(leaves[:size])


@settings(max_examples=40, deadline=None)
@given(leaf_lists)
def test_every_leaf_s_inclusion_proof_verifies_at_every_tree_size(leaves):
    for size in range(1, len(leaves) + 1):
        tree, tree_root = leaves[:size], reference_root(leaves[:size])
        for index in range(size):
            proof = inclusion_proof(tree, index)
            assert verify_inclusion(leaves[index], index, size, proof, tree_root)


@settings(max_examples=40, deadline=None)
@given(leaf_lists)
def test_a_consistency_proof_between_any_two_sizes_verifies(leaves):
    for second in range(0, len(leaves) + 1):
        for first in range(0, second + 1):
            proof = consistency_proof(leaves[:second], first)
            assert verify_consistency(first, second, root(leaves[:first]), root(leaves[:second]), proof)


def flipped(digest: bytes) -> bytes:
    return bytes([digest[0] ^ 1]) + digest[1:]


@settings(deadline=None)
@given(leaf_lists, st.data())
def test_a_tampered_leaf_index_proof_or_root_fails_inclusion(leaves, data):
    index = data.draw(st.integers(0, len(leaves) - 1))
    proof, tree_root = inclusion_proof(leaves, index), root(leaves)
    assert not verify_inclusion(flipped(leaves[index]), index, len(leaves), proof, tree_root)
    assert not verify_inclusion(leaves[index], index, len(leaves), proof, flipped(tree_root))
    if proof:
        at = data.draw(st.integers(0, len(proof) - 1))
        assert not verify_inclusion(leaves[index], index, len(leaves), proof[:at] + [flipped(proof[at])] + proof[at + 1:],
                                    tree_root)
        assert not verify_inclusion(leaves[index], index, len(leaves), proof[:-1], tree_root)
    other = data.draw(st.integers(0, len(leaves) - 1))
    if leaves[other] != leaves[index]:
        assert not verify_inclusion(leaves[other], index, len(leaves), proof, tree_root)


@settings(deadline=None)
@given(leaf_lists, st.data())
def test_a_rewritten_leaf_or_a_tampered_root_or_proof_fails_consistency(leaves, data):
    second = len(leaves)
    first = data.draw(st.integers(1, second))
    proof = consistency_proof(leaves, first)
    first_root, second_root = root(leaves[:first]), root(leaves)
    changed = data.draw(st.integers(0, first - 1))
    rewritten = leaves[:changed] + [flipped(leaves[changed])] + leaves[changed + 1:]
    assert not verify_consistency(first, second, first_root, root(rewritten), consistency_proof(rewritten, first))
    assert not verify_consistency(first, second, flipped(first_root), second_root, proof)
    assert not verify_consistency(first, second, first_root, flipped(second_root), proof)
    if proof:
        at = data.draw(st.integers(0, len(proof) - 1))
        assert not verify_consistency(first, second, first_root, second_root,
                                      proof[:at] + [flipped(proof[at])] + proof[at + 1:])


def test_a_proof_for_a_leaf_or_size_the_tree_does_not_have_is_refused():
    leaves = [leaf_hash(bytes([i])) for i in range(5)]
    assert not verify_inclusion(leaves[0], 5, 5, [], root(leaves))
    assert not verify_consistency(6, 5, root(leaves), root(leaves), [])
    for build in (lambda: inclusion_proof(leaves, 5), lambda: consistency_proof(leaves, 6)):
        try:
            build()
        except ValueError:
            continue
        raise AssertionError("a proof was built for what the tree does not have")


def test_a_match_s_leaf_commits_to_its_id_and_its_head():
    head = "ab" * 32
    assert merkle.match_leaf("m1", head) == leaf_hash(b'{"head":"' + head.encode() + b'","match":"m1"}')
    assert len({merkle.match_leaf("m1", head), merkle.match_leaf("m2", head), merkle.match_leaf("m1", "cd" * 32)}) == 3


def reference_path(index, leaves):
    """PATH(m, D[n]) straight from RFC 6962 2.1.1."""
    if len(leaves) == 1:
        return []
    split = 1 << ((len(leaves) - 1).bit_length() - 1)
    if index < split:
        return reference_path(index, leaves[:split]) + [reference_root(leaves[split:])]
    return reference_path(index - split, leaves[split:]) + [reference_root(leaves[:split])]


def reference_subproof(first, leaves, complete):
    """SUBPROOF(m, D[n], b) straight from RFC 6962 2.1.2."""
    if first == len(leaves):
        return [] if complete else [reference_root(leaves)]
    split = 1 << ((len(leaves) - 1).bit_length() - 1)
    if first <= split:
        return reference_subproof(first, leaves[:split], complete) + [reference_root(leaves[split:])]
    return reference_subproof(first - split, leaves[split:], False) + [reference_root(leaves[:split])]


@settings(max_examples=40, deadline=None)
@given(leaf_lists, st.integers(2, 8), st.data())
def test_a_growing_tree_that_remembers_its_subtrees_gives_the_rfc_s_proofs_at_every_earlier_size(leaves, remembered,
                                                                                                  data):
    tree = merkle.Tree()
    with patched_remembered_from(remembered):  # from 2 leaves up: every path through the memory is taken
        for size in range(1, len(leaves) + 1):
            tree.extend(leaves[len(tree.leaves):size])
            earlier = data.draw(st.integers(1, size))
            index = data.draw(st.integers(0, earlier - 1))
            first = data.draw(st.integers(1, earlier))
            assert tree.inclusion_proof(index, earlier) == reference_path(index, leaves[:earlier])
            expected = [] if first == earlier else reference_subproof(first, leaves[:earlier], True)
            assert tree.consistency_proof(first, earlier) == expected
            assert tree.root() == reference_root(leaves[:size])


class patched_remembered_from:
    def __init__(self, leaves):
        self._leaves, self._was = leaves, merkle.REMEMBERED_FROM

    def __enter__(self):
        merkle.REMEMBERED_FROM = self._leaves

    def __exit__(self, *exc):
        merkle.REMEMBERED_FROM = self._was
