"""The room decisions of the account stores, as properties: given any sequence of notes, seeks' holds, releases,
closes and time passing, the Lua scripts on a real Redis decide every step as the in-memory store does, and no
account is ever given more open matches than its room unless a pairing gave them."""
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from eventstore.accounts import AUTO, INVITED, PAIRED, SEATED, InMemoryAccountStore, RedisAccountStore

pytestmark = pytest.mark.integration
ROOM, MOST_SEEKS, AUTO_MAX, NOW = 3, 1, 1, 1_800_000_000_000
ACCOUNT = "a" * 32
# bounds this small, matches more than the room and seeks more than their bound: every decision comes up often
MATCHES = [f"m{i}" for i in range(5)]
SEEKS = ["s0", "s1"]

notes = st.tuples(st.just("note"), st.sampled_from(MATCHES), st.sampled_from([INVITED, SEATED, AUTO, PAIRED]),
                  st.sampled_from(SEEKS))
holds = st.tuples(st.just("hold"), st.sampled_from(SEEKS), st.integers(1, 3))
steps = st.lists(st.one_of(  # notes and holds mostly, so that the bounds are reached, and then left again
    notes, notes, notes, holds, holds,
    st.tuples(st.just("release"), st.sampled_from(SEEKS)),
    st.tuples(st.just("close"), st.sampled_from(MATCHES)),
    st.tuples(st.just("wait"), st.integers(1, 2)),
), min_size=12, max_size=40)


def run(store, sequence) -> list:
    """What the store answers at each step, and what it holds at the end."""
    now, answers = NOW, []
    for step in sequence:
        kind, *args = step
        if kind == "note":
            match_id, how, seek = args
            answers.append(store.note_match(ACCOUNT, match_id, how, now, ROOM, AUTO_MAX, seek))
        elif kind == "hold":
            seek, lasts = args
            answers.append(store.hold_seek(ACCOUNT, seek, now + lasts * 1000, now, ROOM, MOST_SEEKS))
        elif kind == "release":
            store.release_seeks(ACCOUNT, args)
        elif kind == "close":
            store.close_matches(ACCOUNT, args)
        else:
            now += args[0] * 1000
        if not any(s[0] == "note" and s[2] == PAIRED for s in sequence):
            assert len(store.open_matches(ACCOUNT)) <= ROOM
    return answers + [store.open_matches(ACCOUNT), store.invitations(ACCOUNT), store.opened_at(ACCOUNT, MATCHES),
                      store.matches(ACCOUNT, None, len(MATCHES))]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(sequence=steps)
def test_redis_decides_every_step_of_an_accounts_room_as_the_in_memory_store(redis_client, sequence):
    redis_client.flushdb()
    assert run(RedisAccountStore(redis_client), sequence) == run(InMemoryAccountStore(), sequence)

