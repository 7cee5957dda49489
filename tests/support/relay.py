"""A TCP relay between the service and its Redis that can partition them the way a network blip does: while
blackholed it relays nothing but closes nothing (no RST, no FIN: each side's socket stays open and its peer
silent), and once healed it relays only the connections opened from then on. Those opened before stay silent
for good, as connections do whose packets a router dropped until their peers' state was gone."""
import socket
import threading

CHUNK = 65536


class _Pair:
    """A client's connection and the relay's to the target, relayed while `live`."""

    def __init__(self, client: socket.socket, upstream: socket.socket, live: bool):
        self.sockets = (client, upstream)
        self.live = live


class Relay:
    def __init__(self, target_host: str, target_port: int):
        self._target = (target_host, target_port)
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port = self._listener.getsockname()[1]
        self._lock = threading.Lock()
        self._pairs: list[_Pair] = []
        self._blackholed = False
        self._closed = False
        threading.Thread(target=self._accept, daemon=True, name="relay-accept").start()

    def blackhole(self) -> None:
        """From now on nothing is relayed, on any connection, old or new; every socket stays open."""
        with self._lock:
            self._blackholed = True
            for pair in self._pairs:
                pair.live = False

    def heal(self) -> None:
        """Connections opened from now on are relayed; those opened before stay silent."""
        with self._lock:
            self._blackholed = False

    def close(self) -> None:
        with self._lock:
            self._closed = True
            pairs, self._pairs = self._pairs, []
        self._listener.close()
        for pair in pairs:
            for end in pair.sockets:
                end.close()

    def _accept(self) -> None:
        while True:
            try:
                client, _ = self._listener.accept()
            except OSError:  # closed
                return
            try:
                upstream = socket.create_connection(self._target)
            except OSError:  # the target refused: so does the relay, by closing
                client.close()
                continue
            with self._lock:
                if self._closed:
                    client.close()
                    upstream.close()
                    return
                pair = _Pair(client, upstream, live=not self._blackholed)
                self._pairs.append(pair)
            for source, sink in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pump, args=(pair, source, sink), daemon=True, name="relay").start()

    def _pump(self, pair: _Pair, source: socket.socket, sink: socket.socket) -> None:
        """Relays `source` to `sink` while the pair is live; what arrives after is read and dropped, as a
        blackholed path drops packets, and the socket is left open."""
        while True:
            try:
                data = source.recv(CHUNK)
            except OSError:
                return
            if not data:  # an end closed while the path was up: pass the close on
                if pair.live:
                    sink.close()
                return
            if pair.live:
                try:
                    sink.sendall(data)
                except OSError:
                    return

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"
