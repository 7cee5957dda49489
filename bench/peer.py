"""cardroom against its peer, boardgame.io 0.50.2, on random 3-seat Mantis matches.

Starts the peer's server (node, in-memory storage, socket.io) and a cardroom (embedded Redis + gunicorn with
the project's gunicorn settings, rate limits off: one address drives everything), then runs, alternating,
at each concurrency, the peer's client and cardroom's clients (bench/cardroom_client.js):
- play socket: each move a message on the play socket (GET /v1/play, a WebSocket, docs/play-socket.md) and
  each result its answer, as boardgame.io's client sends moves and gets states over one socket.io connection;
- move's answer: learns each result from the move's answer, one request a move, as boardgame.io pushes each
  state to its client; over Node's http module (keep-alive), and again over fetch();
- read then post: reads the match, then posts the move (two requests a move); over Node's http module, and
  the peer's own client (../shared/peers/cardroom_bench.js, fetch).
Prints moves/s, the ratio to boardgame.io, and per move the CPU of the client process and of the server's
processes (boardgame.io's node server; cardroom's gunicorn workers and Redis): the two share 2 cores here, so
a client's CPU is taken from its server. The CPU figures move far less with the machine's load than moves/s.

The peer's code is not part of the project: it is found at ../shared/peers from the repository (or
--peers / CARDROOM_PEERS) and installed with npm into a cache folder. No node, npm or peer: a message and
exit 0. The matches are all human seats, so no RQ worker is started (`make run` starts them for bots).
Usage: python bench/peer.py [--matches 60] [--concurrency 1 8 32] [--rounds 2] [--web-workers N]
"""
import argparse
import os
import re
import resource
import shutil
import subprocess
import sys
import time
from pathlib import Path

import psutil
import requests

from common import NO_RATE_LIMITS, embedded_redis, free_port, gunicorn, median, processes_cpu, serving

HERE = Path(__file__).resolve().parent
PLAYERS = 3
CACHE = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cardroom-bench" / "bgio"
CLIENT_CACHE = CACHE.parent / "client"  # cardroom_client.js's one package, `ws` (Node 20 has no WebSocket)
RATE = re.compile(r"([0-9.]+) moves/s")
MOVES = re.compile(r"([0-9]+) moves in")


def peers_folder(given: str | None) -> Path:
    """The given folder, else ../shared/peers next to the repository (or next to its worktrees' folder)."""
    if given or os.environ.get("CARDROOM_PEERS"):
        return Path(given or os.environ["CARDROOM_PEERS"]).resolve()
    nearby = [up / "shared" / "peers" for up in HERE.parents[1:3]]
    return next((folder for folder in nearby if folder.is_dir()), nearby[0])


def install_peer(peers: Path) -> Path:
    """A copy of the peer's bgio/ with its node_modules, in the cache (installed once)."""
    CACHE.mkdir(parents=True, exist_ok=True)
    for name in ("package.json", "server.js", "bench.js", "mantis.js"):
        shutil.copy2(peers / "bgio" / name, CACHE / name)
    if not (CACHE / "node_modules" / "boardgame.io").is_dir():
        print(f"installing boardgame.io into {CACHE} (npm install, once)", flush=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent"], cwd=CACHE, check=True)
    return CACHE


def install_socket_client() -> Path:
    """The node_modules holding `ws` for cardroom_client.js's play socket, in the cache (installed once)."""
    modules = CLIENT_CACHE / "node_modules"
    if not (modules / "ws").is_dir():
        CLIENT_CACHE.mkdir(parents=True, exist_ok=True)
        print(f"installing ws into {CLIENT_CACHE} (npm install, once)", flush=True)
        subprocess.run(["npm", "install", "--no-audit", "--no-fund", "--silent", "--prefix", str(CLIENT_CACHE),
                        "ws@8"], check=True)
    return modules


def wait_for(url: str, seconds: float = 30) -> None:
    deadline = time.monotonic() + seconds
    while True:
        try:
            requests.get(url, timeout=2)
            return
        except requests.RequestException:
            if time.monotonic() > deadline:
                raise RuntimeError(f"{url} did not answer")
            time.sleep(0.2)


def play(argv: list[str], cwd: Path, env: dict, servers: list[psutil.Process] = ()) -> tuple[float, float, float]:
    """Runs a client: its moves/s, and per move the client's CPU and the `servers`' CPU, in microseconds."""
    client_before, servers_before = children_cpu(), processes_cpu(servers)
    done = subprocess.run(argv, cwd=cwd, env={**os.environ, **env}, capture_output=True, text=True, timeout=300)
    found, moves = RATE.search(done.stdout), MOVES.search(done.stdout)
    if done.returncode or not found or not moves:
        raise RuntimeError(f"{' '.join(argv)} failed: {done.stdout}{done.stderr}")
    per_move = 1e6 / int(moves.group(1))
    return (float(found.group(1)), (children_cpu() - client_before) * per_move,
            (processes_cpu(servers) - servers_before) * per_move)


def children_cpu() -> float:
    """CPU seconds of this process's children that ended (the clients)."""
    used = resource.getrusage(resource.RUSAGE_CHILDREN)
    return used.ru_utime + used.ru_stime


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--peers", help="the peers folder (default: ../shared/peers from the repository)")
    parser.add_argument("--matches", type=int, default=60, help="matches per client run")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[1, 8, 32])
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--web-workers", type=int, default=os.cpu_count() or 1)
    args = parser.parse_args()
    peers = peers_folder(args.peers)
    if not shutil.which("node") or not shutil.which("npm"):
        print("peer.py: skipped, node and npm are needed to run boardgame.io (install Node.js 18+)")
        return
    if not (peers / "bgio" / "server.js").is_file() or not (peers / "cardroom_bench.js").is_file():
        print(f"peer.py: skipped, no peer harness at {peers} (give --peers or CARDROOM_PEERS)")
        return
    bgio = install_peer(peers)
    socket_client = {"NODE_PATH": str(install_socket_client())}
    bgio_port = free_port()
    server = subprocess.Popen(["node", "server.js"], cwd=bgio, env={**os.environ, "PORT": str(bgio_port)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        wait_for(f"http://127.0.0.1:{bgio_port + 1}/games")
        with embedded_redis() as redis_url, gunicorn("bootstrap.wsgi:app", redis_url, args.web_workers,
                                                      settings=NO_RATE_LIMITS) as base:
            cardroom = {"PORT": base.rsplit(":", 1)[1]}
            ours = ["node", str(HERE / "cardroom_client.js")]
            clients = {
                "boardgame.io": (["node", "bench.js"], bgio, {"PORT": str(bgio_port)}),
                "cardroom, play socket": (ours, HERE, {**cardroom, "TRANSPORT": "socket", **socket_client}),
                "cardroom, move's answer, http": (ours, HERE, {**cardroom, "MODE": "answers"}),
                "cardroom, move's answer, fetch": (ours, HERE, {**cardroom, "MODE": "answers", "TRANSPORT": "fetch"}),
                "cardroom, read then post, http": (ours, HERE, {**cardroom, "MODE": "read-then-post"}),
                "cardroom, read then post, peer's": (["node", str(peers / "cardroom_bench.js")], HERE, cardroom),
            }
            servers = {name: [psutil.Process(server.pid)] if name == "boardgame.io" else
                       serving(psutil.Process(), ("bootstrap.wsgi:app", "redis-server")) for name in clients}
            runs = {(name, c): [] for name in clients for c in args.concurrency}
            for _ in range(args.rounds):
                for concurrency in args.concurrency:
                    for name, (argv, cwd, env) in clients.items():
                        run = [*argv, str(args.matches), str(concurrency), str(PLAYERS)]
                        runs[name, concurrency].append(play(run, cwd, env, servers[name]))
    finally:
        server.terminate()
        server.wait(timeout=10)
    print(f"random {PLAYERS}-seat Mantis, {args.matches} matches a run, {args.rounds} rounds alternating, "
          f"cardroom on {args.web_workers} gunicorn workers; load average {os.getloadavg()[0]:.2f}")
    print(f"{'concurrent':>10} {'client':<33} {'moves/s':>8} {'x bgio':>7} {'client CPU':>11} {'server CPU':>11}")
    print(f"{'matches':>10} {'':<33} {'(median)':>8} {'':>7} {'µs a move':>11} {'µs a move':>11}")
    for concurrency in args.concurrency:
        peer = median([rate for rate, _, _ in runs["boardgame.io", concurrency]])
        for name in clients:
            rate, client_cpu, server_cpu = (median(column) for column in zip(*runs[name, concurrency]))
            print(f"{concurrency:>10} {name:<33} {rate:>8.0f} {rate / peer:>7.2f} {client_cpu:>11.0f} "
                  f"{server_cpu:>11.0f}")


if __name__ == "__main__":
    sys.exit(main())
