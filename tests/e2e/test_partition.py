"""A network partition between the whole service and its Redis that heals with dead connections (tests/support/
relay.py): every connection opened before the partition stays silent for good, without a close. The bots take
their next turn after the heal, whatever the workers were waiting on when it began."""
import time
import uuid
from urllib.parse import urlparse

import pytest
import requests

from tests.e2e.conftest import NO_RATE_LIMITS, running_service
from tests.support.relay import Relay
from tests.support.waiting import wait_for

pytestmark = pytest.mark.e2e
PARTITION_SECONDS = 4  # longer than REDIS_TIMEOUT and STALL_AFTER: every program meets the outage
HUMAN_AGAINST_A_BOT = {"game": "mantis", "seats": [{"name": "ann"}, {"bot": "greedy"}]}


def relay_to(redis_url: str) -> Relay:
    target = urlparse(redis_url)
    return Relay(target.hostname, target.port)


class HumanSeat:
    """The human seat of a match against one bot, played over HTTP as a client that retries what fails."""

    def __init__(self, base: str):
        self.base = base
        created = self._retried(lambda: requests.post(f"{base}/v1/matches", json=HUMAN_AGAINST_A_BOT, timeout=10))
        self.match = created["id"]
        self._auth = {"Authorization": f"Bearer {created['seats'][0]['token']}"}

    def view(self) -> dict:
        return self._retried(lambda: requests.get(f"{self.base}/v1/matches/{self.match}", headers=self._auth,
                                                  timeout=10))

    def my_turn(self) -> dict | None:
        """The view when the human is to act, else None."""
        view = self.view()
        assert view["status"] != "finished", "the match ended before the test was done with it"
        return view if view["to_act"] == [0] else None

    def move(self) -> int:
        """Scores, once (an Idempotency-Key makes the retries safe); the version after the move."""
        version = wait_for(self.my_turn, "the human's turn")["version"]
        key = uuid.uuid4().hex
        answer = self._retried(lambda: requests.post(
            f"{self.base}/v1/matches/{self.match}/moves", json={"move": {"action": "score"}, "expected_version": version},
            headers={**self._auth, "Idempotency-Key": key}, timeout=10))
        return answer["version"]

    def bot_moved_after(self, version: int) -> bool:
        return self.view()["version"] > version

    @staticmethod
    def _retried(request) -> dict:
        """The answer's body once it is not a 503 (Redis unreachable) nor a lost connection."""
        def answered():
            try:
                answer = request()
            except requests.RequestException:
                return None
            if answer.status_code == 503:
                return None
            assert answer.ok, answer.text
            return answer.json()
        return wait_for(answered, "an answer other than 503")


def partition(relay: Relay, seconds: float) -> None:
    relay.blackhole()
    time.sleep(seconds)  # the outage's length, not a measurement
    relay.heal()


def test_after_a_partition_that_heals_with_dead_connections_the_bot_takes_its_next_turn(redis_url, tmp_path):
    relay = relay_to(redis_url)
    try:
        with running_service(tmp_path, REDIS_URL=relay.url, QUEUE=f"bots-partition-{uuid.uuid4().hex[:8]}",
                             **NO_RATE_LIMITS) as base:
            seat = HumanSeat(base)
            before = seat.move()
            wait_for(lambda: seat.bot_moved_after(before), "the bot's turn before the partition")

            partition(relay, PARTITION_SECONDS)
            after = seat.move()

            wait_for(lambda: seat.bot_moved_after(after), "the bot's first turn after the heal", seconds=90)
    finally:
        relay.close()
