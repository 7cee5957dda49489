"""`make run` heals itself: each kind of child it supervises (Redis, an RQ worker, the RQ scheduler, gunicorn)
is SIGKILLed under a light load of matches; the service answers again within seconds, no process of the
killed child is left behind, every match finishes with a verified log; with `appendfsync always` no
acknowledged move is lost however often Redis is killed; through a Redis outage every endpoint answers 503
and the bots resume by themselves."""
import configparser
import os
import signal
import subprocess
import sys
import threading
import time
import xmlrpc.client
from pathlib import Path

import pytest
import requests
from supervisor.xmlrpc import SupervisorTransport

from bootstrap.embedded_redis import free_port
from tests.e2e.conftest import running_service

pytestmark = pytest.mark.e2e
RECOVERY_LIMIT = 30.0  # seconds from a kill until the child runs again and /health answers 200 (measured: 1-7)
# created before each kill; the searching bot's turns take tens of milliseconds, so kills land mid-job
BOT_MATCHES = [("mantis", [{"bot": "random"}] * 3),
               ("mantis", [{"bot": "ismcts", "bot_options": {"iterations": 50}}, {"bot": "greedy"}])]


class Service:
    """The running service: its URL and, through supervisord's XML-RPC socket, its children."""

    def __init__(self, base: str, data_dir: Path):
        self.base, self.data_dir = base, data_dir
        control = configparser.RawConfigParser()
        control.read(data_dir / "supervisord.conf")  # supervisorctl's section: the socket and its password
        transport = SupervisorTransport(control["supervisorctl"]["username"], control["supervisorctl"]["password"],
                                        control["supervisorctl"]["serverurl"])
        self._supervisor = xmlrpc.client.ServerProxy("http://127.0.0.1", transport=transport).supervisor

    def pid(self, name: str) -> int:
        info = next(p for p in self._supervisor.getAllProcessInfo() if p["name"] == name)
        return info["pid"] if info["statename"] == "RUNNING" else 0

    def stop(self, name: str) -> None:
        self._supervisor.stopProcess(name)

    def start(self, name: str) -> None:
        self._supervisor.startProcess(name)

    def healthy(self) -> bool:
        try:
            return requests.get(f"{self.base}/health", timeout=2).status_code == 200
        except requests.RequestException:
            return False

    def kill(self, name: str) -> float:
        """SIGKILLs the child; returns the seconds until it runs again (a new pid) and /health is 200.
        Checks that no process it had started (gunicorn's workers, a forked scheduler) outlives it."""
        victim = self.pid(name)
        family = [victim, *descendants(victim)]
        killed_at = time.monotonic()
        os.kill(victim, signal.SIGKILL)
        while self.pid(name) in (0, victim) or not self.healthy():
            assert time.monotonic() - killed_at < RECOVERY_LIMIT, f"{name} did not come back"
            time.sleep(0.05)
        recovered = time.monotonic() - killed_at
        while [pid for pid in family if alive(pid)]:
            assert time.monotonic() - killed_at < RECOVERY_LIMIT, f"left behind by {name}: {family}"
            time.sleep(0.05)
        return recovered

    def create(self, game: str, seats: list[dict]) -> dict:
        """As a client does: a 503 (Redis still coming back) is tried again after its Retry-After."""
        deadline = time.monotonic() + RECOVERY_LIMIT
        while True:
            created = requests.post(f"{self.base}/v1/matches", json={"game": game, "seats": seats}, timeout=10)
            if created.status_code != 503 or time.monotonic() > deadline:
                assert created.status_code == 201, created.text
                return created.json()
            time.sleep(float(created.headers["Retry-After"]))


def descendants(pid: int) -> list[int]:
    parents = {}
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:  # the process ended while we looked
            continue
        parents[int(stat.parent.name)] = int(fields[1])
    found, frontier = [], [pid]
    while frontier:
        children = [child for child, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def alive(pid: int) -> bool:
    try:
        return Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.fixture(scope="module")
def service(tmp_path_factory):
    """The whole service with its own embedded Redis, fsyncing every write (appendfsync always), without the read
    limit: one address checks hundreds of matches' logs at once at the end."""
    data_dir = tmp_path_factory.mktemp("heal")
    with running_service(data_dir, EMBEDDED_REDIS_PORT=str(free_port()), REDIS_APPENDFSYNC="always",
                         STALL_AFTER="2", JANITOR_EVERY="0.5", LIMIT_READS="") as base:
        yield Service(base, data_dir)


def test_supervisorctl_lists_every_program_running_and_supervisord_logged_nothing_critical(service):
    status = subprocess.run([Path(sys.executable).with_name("supervisorctl"), "-c",
                             service.data_dir / "supervisord.conf", "status"], capture_output=True, text=True)
    programs = dict(line.split()[:2] for line in status.stdout.splitlines())
    assert set(programs) == {"redis", "web", "worker:worker-0", "worker:worker-1", "scheduler"}, status
    assert set(programs.values()) == {"RUNNING"}
    assert service.pid("web") > 0  # and the XML-RPC client the other tests use gets in with the same password
    log = (service.data_dir / "logs" / "supervisord.log").read_text()
    assert "spawned: 'web'" in log and " CRIT " not in log


def test_each_kind_of_child_killed_under_load_is_back_within_seconds_and_every_match_finishes(service):
    ids, recovery = [], {}
    for child in ("worker-0", "scheduler", "web", "redis", "worker-1"):
        ids += [service.create(game, seats)["id"] for game, seats in BOT_MATCHES]
        time.sleep(0.3)  # the bots are at it when the kill lands
        recovery[child] = service.kill(child)
    deadline = time.monotonic() + 60
    for match_id in ids:
        while requests.get(f"{service.base}/v1/matches/{match_id}", timeout=10).json()["status"] != "finished":
            assert time.monotonic() < deadline, f"match {match_id} never finished"
            time.sleep(0.2)
        audit = requests.get(f"{service.base}/v1/matches/{match_id}/audit", timeout=10).json()
        assert audit["ok"] and audit["complete"], audit["summary"]
    print("seconds until back after SIGKILL:", {child: round(s, 2) for child, s in recovery.items()})


def test_redis_killed_five_times_under_moves_loses_no_acknowledged_move(service):
    acknowledged, stop = [], threading.Event()
    player = threading.Thread(target=play_human_matches, args=(service.base, acknowledged, stop))
    player.start()
    try:
        recovery = []
        for _ in range(5):
            time.sleep(1.0)
            recovery.append(service.kill("redis"))
    finally:
        stop.set()
        player.join(timeout=30)
    lost = [(match_id, version) for match_id, version, digest in acknowledged
            if digest not in stored_hashes(service.base, match_id)]
    print(f"{len(acknowledged)} acknowledged moves, {len(lost)} lost across 5 Redis kills; "
          f"seconds until back: {[round(s, 2) for s in recovery]}")
    assert len(acknowledged) > 50 and lost == []


def test_through_a_redis_outage_every_endpoint_answers_503_and_the_bots_resume_within_seconds(service):
    match = service.create(*BOT_MATCHES[0])
    service.stop("redis")
    time.sleep(5)  # long enough for RQ's reconnecting to have backed off to its longest pause (2 s)
    for response in (requests.get(f"{service.base}/health", timeout=10),
                     requests.get(f"{service.base}/v1/matches/{match['id']}", timeout=10),
                     requests.post(f"{service.base}/v1/matches", json=dict(zip(("game", "seats"), BOT_MATCHES[0])),
                                   timeout=10)):
        assert response.status_code == 503 and response.json()["reason"] == "redis_unreachable", response.text
        assert response.headers["Retry-After"] == "1" and "127.0.0.1" not in response.text
    service.start("redis")
    back_at = time.monotonic()
    fresh = service.create(*BOT_MATCHES[0])
    for match_id in (match["id"], fresh["id"]):
        while requests.get(f"{service.base}/v1/matches/{match_id}", timeout=10).json()["status"] != "finished":
            assert time.monotonic() - back_at < 60, "the bots did not resume after the outage"
            time.sleep(0.1)
    print(f"after a 5 s Redis outage both bot matches finished {time.monotonic() - back_at:.1f} s after its return")


def play_human_matches(base: str, acknowledged: list, stop: threading.Event) -> None:
    """Two human seats moving in turn; every 201 is recorded as (match, version, hash of its last event).
    A refused, failed or unanswered request is read again and retried, as a real client would."""
    match = None
    while not stop.is_set():
        try:
            match = match or start_match(base)
            outcome = score_once(base, match, acknowledged) if match else "retry"
        except requests.RequestException:  # the connection broke while Redis restarted
            outcome = "retry"
        if outcome == "finished":
            match = None
        elif outcome == "retry":
            time.sleep(0.05)


def start_match(base: str) -> dict | None:
    created = requests.post(f"{base}/v1/matches", timeout=5,
                            json={"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]})
    return created.json() if created.status_code == 201 else None


def score_once(base: str, match: dict, acknowledged: list) -> str:
    """'moved', 'finished', or 'retry' (a 503 while Redis is down, or a 409)."""
    current = requests.get(f"{base}/v1/matches/{match['id']}", timeout=5)
    if current.status_code != 200:
        return "retry"
    state = current.json()
    if state["status"] == "finished":
        return "finished"
    token = match["seats"][state["to_act"][0]]["token"]
    moved = requests.post(f"{base}/v1/matches/{match['id']}/moves", timeout=5,
                          headers={"Authorization": f"Bearer {token}"},
                          json={"move": {"action": "score"}, "expected_version": state["version"]})
    if moved.status_code != 201:
        return "retry"
    acknowledged.append((match["id"], moved.json()["version"], moved.json()["events"][-1]["hash"]))
    return "moved"


def stored_hashes(base: str, match_id: str) -> set[str]:
    return {event["hash"] for event in requests.get(f"{base}/v1/matches/{match_id}/events", timeout=10)
            .json()["events"]}
