"""Rematches on a real Redis: given finished matches, when both players ask for the rematch at once, many times over,
then each finished match has exactly one rematch, which both requests answer and which starts."""
import threading

import pytest

from eventstore.accounts import RedisAccountStore
from eventstore.redis_store import RedisEventStore
from service.accounts import AccountService
from tests.support.service import make_service

pytestmark = pytest.mark.integration
REQUESTS = 6  # at once per finished match, the two players' keys in turn


@pytest.fixture
def accounts(redis_client):
    return AccountService(RedisAccountStore(redis_client))


@pytest.fixture
def service(redis_client, accounts):
    return make_service(store=RedisEventStore(redis_client), accounts=accounts)


def asked_at_once(service, match_id: str, keys: list[str]) -> list:
    """Each key's rematch request, all released at once by a barrier: what each answered or raised."""
    answers: list = [None] * len(keys)
    barrier = threading.Barrier(len(keys))

    def ask(i: int) -> None:
        barrier.wait()
        try:
            answers[i] = service.rematch(match_id, keys[i])
        except Exception as error:  # a failed request is the test's failure, shown by the assertion below
            answers[i] = error

    threads = [threading.Thread(target=ask, args=(i,)) for i in range(len(keys))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    return answers


def test_two_players_asking_at_once_many_times_make_one_rematch_per_match_which_starts(service, accounts,
                                                                                        redis_client):
    ann, bob = (accounts.register(name, "human")["api_key"] for name in ("ann", "bob"))
    accounts.set_challenges(bob, "auto")
    played = []
    for _ in range(5):
        created = service.create("mantis", {}, [{"account": "ann"}, {"account": "bob"}], credential=ann)
        service.resign(created["id"], bob)
        played.append(created["id"])
    accounts.set_challenges(bob, "anyone")  # the rematches invite bob, who answers by asking too
    listed = redis_client.zcard("cr:matches")
    for match_id in played:
        answers = asked_at_once(service, match_id, [ann, bob] * (REQUESTS // 2))
        assert all(isinstance(answer, tuple) for answer in answers), answers
        assert [created for _, created in answers].count(True) == 1
        rematch_ids = {document["id"] for document, _ in answers}
        assert len(rematch_ids) == 1
        rematch_id = rematch_ids.pop()
        assert service.get(match_id, None)["rematch"] == rematch_id
        rematch = service.get(rematch_id, None)
        assert rematch["rematch_of"] == match_id and rematch["status"] == "active"
        assert service.audit(rematch_id)["ok"]
    assert redis_client.zcard("cr:matches") == listed + len(played)
