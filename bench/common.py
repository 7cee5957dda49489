"""What the benchmarks share: an embedded Redis and a gunicorn started for the run."""
import json
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid
from contextlib import contextmanager
from pathlib import Path

import psutil
import requests
from simple_websocket import Client

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from bootstrap.embedded_redis import EmbeddedRedis, free_port  # noqa: E402
from bootstrap.run import GUNICORN_CONF  # noqa: E402


@contextmanager
def embedded_redis():
    server = EmbeddedRedis(Path(tempfile.mkdtemp(prefix="cardroom-bench-")), persist=False).start()
    try:
        yield server.url
    finally:
        server.stop()


# A bench drives everything from 127.0.0.1: the per-address rate limits would measure themselves.
NO_RATE_LIMITS = {"LIMIT_CREATE": "", "LIMIT_JOIN": "", "LIMIT_MOVES": "", "LIMIT_ACCOUNTS": "", "LIMIT_CHALLENGES": "",
                  "LIMIT_READS": ""}


@contextmanager
def gunicorn(app: str, redis_url: str, workers: int, options: tuple[str, ...] = (), settings: dict | None = None):
    """`options`: more gunicorn command-line options, e.g. ("--worker-class", "gevent"); `settings`: more
    environment for bootstrap/config.py, or a PYTHONPATH of another source tree to serve (bench/trees.py)."""
    port = free_port()
    # every client of a bench connects from 127.0.0.1: the cap on one address's connections would refuse them
    env = {**os.environ, "MAX_CONNECTIONS_PER_ADDRESS": "0", "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
           **(settings or {}), "REDIS_URL": redis_url}
    # the project's gunicorn settings (gevent workers, keep-alive), so a bench measures what `make run` serves
    process = subprocess.Popen([sys.executable, "-m", "gunicorn", "-c", str(GUNICORN_CONF),
                                "--workers", str(workers), "--bind", f"127.0.0.1:{port}", "--log-level", "warning",
                                *options, app], env=env)
    base = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + 60
    while True:
        try:
            requests.get(f"{base}/health", timeout=2)
            break
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise RuntimeError("gunicorn did not start")
            time.sleep(0.2)
    try:
        yield base
    finally:
        process.terminate()
        process.wait(timeout=30)


def play_two_seat_matches(base, stop, counter, clock=None, by_account=False, socket=False):
    """Plays two-seat Mantis matches over HTTP as fast as answers come (a new match when one ends), each move
    appended to `counter`; `clock`: the matches' turn clock (docs/clocks.md), none by default; `by_account`:
    the seats belong to two new bot accounts whose keys move them, instead of anonymous seat tokens;
    `socket`: the moves go over the play socket (docs/play-socket.md), the rest over HTTP."""
    session = requests.Session()
    accounts = [session.post(f"{base}/v1/accounts", json={"name": f"b{uuid.uuid4().hex[:12]}", "kind": "bot"}).json()
                for _ in range(2 if by_account else 0)]
    seats = [{"account": a["name"]} for a in accounts] or [{"name": "a"}, {"name": "b"}]
    owner = {"Authorization": f"Bearer {accounts[0]['api_key']}"} if accounts else {}
    for other in accounts[1:]:  # the first account's key seats the others, who accept at once
        session.patch(f"{base}/v1/accounts/me", json={"challenges": "auto"},
                      headers={"Authorization": f"Bearer {other['api_key']}"})
    with moves_over(session, base, socket) as move:
        while not stop.is_set():
            created = session.post(f"{base}/v1/matches", headers=owner, json={
                "game": "mantis", "seats": seats, **({"clock": clock} if clock else {})}).json()
            credentials = [a["api_key"] for a in accounts] or [seat["token"] for seat in created["seats"]]
            version, turn = created["version"], created["to_act"]
            while turn and not stop.is_set():
                moved = move(created["id"], credentials[turn[0]],
                             {"move": {"action": "score"}, "expected_version": version})
                counter.append(1)
                version, turn = moved["version"], moved["to_act"]


@contextmanager
def moves_over(session, base, socket: bool):
    """move(match_id, credential, body) -> the Moved answer (anything but 201 raises): POST .../moves over
    HTTP, or each a message on one play socket."""
    if not socket:
        def post(match_id, credential, body):
            answer = session.post(f"{base}/v1/matches/{match_id}/moves",
                                  headers={"Authorization": f"Bearer {credential}"}, json=body)
            answer.raise_for_status()
            return answer.json()
        yield post
        return
    play_socket = Client.connect(base.replace("http://", "ws://") + "/v1/play")

    def send(match_id, credential, body):
        play_socket.send(json.dumps({"match_id": match_id, "token": credential, **body}))
        answer = json.loads(play_socket.receive(timeout=30))
        if answer["status"] != 201:
            raise RuntimeError(f"the play socket answered {answer}")
        return answer["body"]
    try:
        yield send
    finally:
        play_socket.close()


def measure(client, base, clients: int, seconds: float) -> float:
    """Per second, what `clients` threads of `client(base, stop, counter)` appended to the counter in `seconds`."""
    return measure_cpu(client, base, clients, seconds, {})[0]


def measure_cpu(client, base, clients: int, seconds: float,
                watched: dict[str, list[psutil.Process]]) -> tuple[float, dict[str, float]]:
    """What `measure` gives, and the CPU microseconds each counted item cost each group of `watched` processes
    (e.g. {"client": [this process], "server": its gunicorn workers and Redis}) over the same seconds."""
    stop, counter = threading.Event(), []
    threads = [threading.Thread(target=client, args=(base, stop, counter)) for _ in range(clients)]
    for thread in threads:
        thread.start()
    before = {group: processes_cpu(processes) for group, processes in watched.items()}
    counted = len(counter)
    time.sleep(seconds)
    counted = len(counter) - counted
    used = {group: processes_cpu(processes) - before[group] for group, processes in watched.items()}
    stop.set()
    for thread in threads:
        thread.join()
    return counted / seconds, {group: 1e6 * cpu / max(counted, 1) for group, cpu in used.items()}


def processes_cpu(processes: list[psutil.Process]) -> float:
    return sum(sum(process.cpu_times()[:2]) for process in processes)


def serving(root: psutil.Process, names: tuple[str, ...]) -> list[psutil.Process]:
    """The processes under `root` that serve (a gunicorn's workers, Redis), by their command lines."""
    return [process for process in root.children(recursive=True)
            if any(name in " ".join(process.cmdline()) for name in names)]


def median(values):
    ordered = sorted(values)
    return ordered[len(ordered) // 2]


def percentile(values, share):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(share * len(ordered)))]


def play_random(service, game: str, players: int, seed: str, stop_at: int | None = None, options=None) -> dict:
    """Creates a match of human seats and plays random legal moves through the service until it is
    finished (or reaches version `stop_at`); returns the match as a spectator sees it."""
    import random
    pick = random.Random(seed)
    created = service.create(game, options or {}, [{"name": f"p{i}"} for i in range(players)], seed=seed)
    tokens = [seat["token"] for seat in created["seats"]]
    current = created
    while current["status"] == "active" and (stop_at is None or current["version"] < stop_at):
        seat = pick.choice(current["to_act"])
        legal = service.legal_moves(created["id"], tokens[seat])
        service.move(created["id"], tokens[seat], pick.choice(legal["moves"]), legal["version"])
        current = service.get(created["id"], None)
    return current


def long_match(service, events: int, finished: bool):
    """A real match of at least `events` events (finished, if asked), from random play. Returns the match
    and how to play it again: (match, (game, players, seed, options))."""
    candidates = [("flipout", 2, {"stall_rounds": 60}), ("blockers", 4, {}), ("flipout", 3, {"stall_rounds": 60})]
    for attempt in range(20):
        game, players, options = candidates[attempt % len(candidates)]
        recipe = (game, players, f"long-{attempt}", options)
        played = play_random(service, game, players, recipe[2], None if finished else events, options)
        if played["version"] >= events and (played["status"] == "finished" or not finished):
            return played, recipe
    raise RuntimeError(f"no random match reached {events} events")
