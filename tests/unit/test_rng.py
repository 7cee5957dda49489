"""The match generator's shuffle is the documented Fisher-Yates on below() (domain/rng.py): the same
permutation, and the stream left where those draws leave it, whatever was drawn before."""
from hypothesis import given as for_all, settings, strategies as st

from domain.rng import Rng


def documented_shuffle(rng: Rng, items: list) -> list:
    result = list(items)
    for i in range(len(result) - 1, 0, -1):
        j = rng.below(i + 1)
        result[i], result[j] = result[j], result[i]
    return result


@settings(max_examples=50, deadline=None)
@for_all(seed=st.text(max_size=8), drawn_before=st.integers(0, 9), size=st.integers(0, 300))
def test_a_shuffle_is_fisher_yates_on_below_and_leaves_the_stream_where_those_draws_leave_it(seed, drawn_before,
                                                                                             size):
    shuffling, documented = Rng(seed, "deal"), Rng(seed, "deal")
    for _ in range(drawn_before):
        assert shuffling.below(1000) == documented.below(1000)
    assert shuffling.shuffled(range(size)) == documented_shuffle(documented, list(range(size)))
    assert [shuffling.below(2**63 + 1) for _ in range(5)] == [documented.below(2**63 + 1) for _ in range(5)]
