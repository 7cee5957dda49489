"""The settings of the several-machines layout: the cluster's nodes, RQ's own Redis, and what `make run`
starts for them."""
import pytest

from bootstrap import build_queue
from bootstrap.config import Settings
from tests.unit.test_supervision import parsed


def test_rq_uses_the_redis_url_unless_given_its_own_and_no_cluster_is_the_default():
    plain = Settings.from_env({"REDIS_URL": "redis://a:6379/0"})
    assert plain.rq_redis_url == "redis://a:6379/0" and plain.redis_cluster_nodes == ()
    split = Settings.from_env({"REDIS_CLUSTER_NODES": " n1:7000, n2:7001,", "RQ_REDIS_URL": "redis://q:6379/0"})
    assert split.redis_cluster_nodes == ("n1:7000", "n2:7001") and split.rq_redis_url == "redis://q:6379/0"
    assert split.redis_wait_replicas == 0 and split.archive_after == 604800


def test_a_cluster_without_a_redis_for_rq_is_refused_with_a_message_that_names_the_setting():
    with pytest.raises(RuntimeError, match="RQ_REDIS_URL"):
        build_queue(Settings.from_env({"REDIS_CLUSTER_NODES": "n1:7000"}))


def test_make_run_on_a_cluster_starts_the_embedded_redis_for_rq_only_when_rq_has_none(tmp_path):
    alone = parsed(tmp_path, REDIS_CLUSTER_NODES="127.0.0.1:7000")
    assert alone.has_section("program:redis") and "REDIS_URL=" in alone["supervisord"]["environment"]
    given = parsed(tmp_path, REDIS_CLUSTER_NODES="127.0.0.1:7000", RQ_REDIS_URL="redis://q:6379/0")
    assert not given.has_section("program:redis") and "REDIS_URL=" not in given["supervisord"]["environment"]
