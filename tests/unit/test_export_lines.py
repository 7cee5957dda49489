"""cli.bot.Client.lines, which `cardroom dump` reads the streams of exports with: given an NDJSON answer sent in
chunks that cut lines anywhere, gzipped by the server or not, when it is read, then its lines come whole."""
import gzip
import threading

import pytest
from werkzeug.serving import make_server

from cli.bot import Client

LINES = [b'{"match_id": "%d", "pad": "%s"}' % (n, b"x" * (n * 37 % 200)) for n in range(300)]


def chunks(body: bytes, size: int = 97):
    return [body[i:i + size] for i in range(0, len(body), size)]


@pytest.fixture(params=[True, False], ids=["gzipped", "plain"])
def server(request):
    """A server answering the lines in 97-byte chunks, gzipped when the client accepts it and the param says so."""
    zipped = request.param

    def app(environ, start_response):
        body = b"\n".join(LINES) + b"\n"
        if zipped and "gzip" in environ.get("HTTP_ACCEPT_ENCODING", ""):
            start_response("200 OK", [("Content-Type", "application/x-ndjson"), ("Content-Encoding", "gzip")])
            return chunks(gzip.compress(body))
        start_response("200 OK", [("Content-Type", "application/x-ndjson")])
        return chunks(body)

    served = make_server("127.0.0.1", 0, app, threaded=True)
    threading.Thread(target=served.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{served.server_port}"
    served.shutdown()


def test_the_lines_of_an_ndjson_answer_come_whole_however_it_was_chunked_or_encoded(server):
    assert list(Client(server).lines("/v1/matches/export")) == LINES
