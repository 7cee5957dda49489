"""A tournament on a Redis Cluster: its log lives under its own hash tag, its matches' logs on every node, and
its catalog in one slot; it runs to its end and its export verifies offline."""
import pytest

from eventstore.redis_cluster import ClusterEventStore
from eventstore.redis_store import keys
from service.repository import tournament_key
from service.tournament_audit import verify_tournament
from tests.support.service import InlineTournaments, make_tournaments

pytestmark = pytest.mark.integration
DUPLICATE = {"game": "mantis", "options": {}, "format": "duplicate", "deals": 3, "table_size": 2, "max_parallel": 6,
             "entrants": [{"bot": "random"}, {"bot": "greedy"}]}


def test_a_duplicate_tournament_runs_to_its_end_on_a_cluster_and_its_export_verifies(redis_cluster, cluster_client):
    service = make_tournaments(InlineTournaments(), store=ClusterEventStore(cluster_client))
    created = service.create(DUPLICATE)
    document = service.get(created["id"])
    assert document["status"] == "finished" and document["progress"] == {"done": 6, "total": 6}
    matches = [t["match"] for t in document["pairings"][0]["tables"]]
    assert len({redis_cluster.master_of(keys(m)[0]) for m in matches + [tournament_key(created["id"])]}) > 1
    assert verify_tournament(service.export(created["id"])).ok
    assert [t["id"] for t in service.list_tournaments(None, None, 10)["tournaments"]] == [created["id"]]
