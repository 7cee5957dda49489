"""Over HTTP against gunicorn (gevent workers): bodies without Content-Length, the URL and header limits, and
bad input reaching a real Redis-backed server all get a 4xx in the error shape and change nothing."""
import socket

import pytest
import requests

from api.limits import MAX_HEADER_BYTES, MAX_URL_BYTES

pytestmark = pytest.mark.e2e

MAX_BODY_BYTES = 65536  # the server's default (bootstrap/config.py)
TWO = '{"game": "mantis", "seats": [{"name": "ann"}, {"name": "bob"}]%s}'


def chunked(text: str, size=8192):
    """The body as a generator, which requests sends with Transfer-Encoding: chunked."""
    body = text.encode()
    return (body[start:start + size] for start in range(0, len(body), size))


def listed(server):
    return [m["id"] for m in requests.get(f"{server}/v1/matches?limit=100").json()["matches"]]


def assert_error(response, status, reason):
    body = response.json()
    assert (response.status_code, body["code"], body["reason"]) == (status, status, reason), body
    assert set(body) >= {"code", "status", "reason", "message"}


def test_a_chunked_body_is_read_and_one_over_the_limit_gets_413_and_creates_nothing(server):
    headers = {"Content-Type": "application/json"}
    created = requests.post(f"{server}/v1/matches", data=chunked(TWO % ""), headers=headers, timeout=10)
    assert created.status_code == 201 and created.request.headers["Transfer-Encoding"] == "chunked"
    before = listed(server)
    oversize = TWO % (', "seed": "' + "x" * 2 * MAX_BODY_BYTES + '"')
    assert_error(requests.post(f"{server}/v1/matches", data=chunked(oversize), headers=headers, timeout=10),
                 413, "body_too_large")
    assert listed(server) == before


def test_urls_and_headers_beyond_the_servers_limits_get_414_and_431_in_the_error_shape(server):
    assert_error(requests.get(f"{server}/v1/games?pad={'x' * MAX_URL_BYTES}", timeout=10), 414, "uri_too_long")
    # two fields, each below gunicorn's limit for one field, together beyond the server's
    halves = {"X-Pad-1": "x" * (MAX_HEADER_BYTES // 2), "X-Pad-2": "x" * (MAX_HEADER_BYTES // 2)}
    assert_error(requests.get(f"{server}/v1/games", headers=halves, timeout=10), 431, "headers_too_large")


def test_past_gunicorns_own_limits_the_answer_is_still_a_4xx(server):
    assert 400 <= requests.get(f"{server}/v1/games?pad={'x' * 9000}", timeout=10).status_code < 500
    assert 400 <= requests.get(f"{server}/v1/games", headers={"X-Pad": "x" * 9000}, timeout=10).status_code < 500


def test_bad_json_and_out_of_range_versions_get_a_4xx_and_change_nothing(server):
    created = requests.post(f"{server}/v1/matches", data=TWO % "", headers={"Content-Type": "application/json"})
    url, before = f"{server}/v1/matches/{created.json()['id']}", listed(server)
    surrogate = '{"game": "mantis", "seats": [{"name": "\\ud800"}, {"name": "bob"}]}'
    assert_error(requests.post(f"{server}/v1/matches", data=surrogate, headers={"Content-Type": "application/json"}),
                 400, "invalid_text")
    assert_error(requests.post(f"{server}/v1/matches", data=TWO % "", headers={"Content-Type": "text/plain"}),
                 415, "unsupported_media_type")
    assert_error(requests.get(f"{url}/events?after={2**64}"), 422, "invalid_request")
    assert_error(requests.get(f"{url}/state?version={2**64}"), 422, "invalid_request")
    assert listed(server) == before and requests.get(url).json()["version"] == created.json()["version"]


def test_a_method_not_allowed_says_which_are(server):
    response = requests.delete(f"{server}/v1/games")
    assert_error(response, 405, "method_not_allowed")
    assert set(response.headers["Allow"].split(", ")) == {"GET", "HEAD", "OPTIONS"}


def test_a_client_that_sends_its_whole_oversized_body_before_reading_gets_the_413_not_a_reset(server):
    """As Python's urllib does: `Connection: close`, then the whole body, then the answer is read. The server answers
    413 from the headers alone; had it closed the connection with the body unread, the kernel would reset it under the
    client still sending. The body is sent here once the 413 is in, so the server has answered (and, without the
    drain, closed) while megabytes of it are still to come, however large the machine's socket buffers."""
    host, port = server.removeprefix("http://").split(":")
    body = b"x" * 3_000_000
    with socket.create_connection((host, int(port)), timeout=10) as client:
        client.sendall(f"POST /v1/matches HTTP/1.1\r\nHost: {host}\r\nContent-Type: application/json\r\n"
                       f"Content-Length: {len(body)}\r\nConnection: close\r\n\r\n".encode())
        answer = b""
        while b"body_too_large" not in answer:
            chunk = client.recv(65536)
            assert chunk, answer
            answer += chunk
        client.sendall(body)
        client.shutdown(socket.SHUT_WR)
        while chunk := client.recv(65536):  # the server closes once it has the body: no reset
            answer += chunk
    assert answer.startswith(b"HTTP/1.1 413 ")
