"""The several-machines layout on one machine: two API nodes (each `make run`'s gunicorn, one bot worker and
RQ's scheduler) against one 3-master Redis Cluster holding the event log and accounts, with RQ on its own
plain Redis. Every game plays to the end with its seat's stream resumed on the other node each time."""
import pytest
import requests
from redis import Redis
from rq import Queue, Worker

from tests.e2e.conftest import running_service
from tests.e2e.test_streams import play_through_dropped_streams

pytestmark = pytest.mark.e2e

GAMES = {"mantis classic": ("mantis", {"edition": "classic"}), "mantis compact": ("mantis", {"edition": "compact"}),
         "9stax": ("9stax", {}), "blockers": ("blockers", {}), "flipout": ("flipout", {})}
QUEUE = "bots-e2e-cluster"


@pytest.fixture(scope="module")
def api_nodes(redis_cluster, redis_url, tmp_path_factory):
    settings = dict(REDIS_CLUSTER_NODES=redis_cluster.nodes, RQ_REDIS_URL=redis_url, QUEUE=QUEUE, WORKERS="1",
                    WEB_CONCURRENCY="1", LIMIT_CREATE="", LIMIT_JOIN="", LIMIT_MOVES="", LIMIT_ACCOUNTS="",
                    LIMIT_CHALLENGES="", LIMIT_READS="")
    redis_cluster.flush()
    with running_service(tmp_path_factory.mktemp("node-a"), **settings) as first, \
            running_service(tmp_path_factory.mktemp("node-b"), **settings) as second:
        yield [first, second]


@pytest.mark.parametrize("name", GAMES)
def test_every_game_plays_to_the_end_across_two_api_nodes_with_its_stream_resumed_on_the_other(api_nodes, name):
    game, options = GAMES[name]
    seen, log, connections = play_through_dropped_streams(api_nodes, game, options, bots=("random",))
    assert [(e["version"], e["type"], e["hash"]) for e in seen] == [(e["version"], e["type"], e["hash"]) for e in log]
    assert seen[-1]["type"] == "match_finished" and connections > 1


def test_the_nodes_share_the_catalog_the_accounts_and_two_workers_serve_the_one_queue(api_nodes, redis_url):
    first, second = api_nodes
    account = requests.post(f"{first}/v1/accounts", json={"name": "cluster-ann", "kind": "human"})
    assert account.status_code == 201, account.json()
    key = account.json()["api_key"]
    created = requests.post(f"{second}/v1/matches", headers={"Authorization": f"Bearer {key}"},
                            json={"game": "mantis", "seats": [{"account": "cluster-ann"}, {"bot": "random"}]})
    assert created.status_code == 201, created.json()
    listed = requests.get(f"{first}/v1/matches", params={"game": "mantis"}).json()
    assert created.json()["id"] in [m["id"] for m in listed["matches"]]
    mine = requests.get(f"{first}/v1/accounts/me/matches", headers={"Authorization": f"Bearer {key}"}).json()
    assert [m["id"] for m in mine["matches"]] == [created.json()["id"]]
    assert len(Worker.all(queue=Queue(QUEUE, connection=Redis.from_url(redis_url)))) == 2
