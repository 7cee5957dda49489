"""GET /metrics: the service's figures in Prometheus's text format (docs/operations.md), and the HTTP figures
of every request: its route's template (never the raw path: one series per route, not per match), method,
status and latency.

Who may read them: with a METRICS_TOKEN, whoever sends it as a bearer token; without one, clients on the
loopback interface only (a Prometheus on the same host, or behind a proxy that adds the token)."""
import hmac
import ipaddress
import time

from flask import Flask, Response, request

from observability.exposition import CONTENT_TYPE, Exposition
from observability.metrics import request_answered
from service.errors import Forbidden, Unauthorized

STARTED = "cardroom.started"  # in the WSGI environ: when the request's handling began
UNMATCHED = "unmatched"  # the route of a request no rule matched (404, 405): one series for every such path


def instrument(app: Flask) -> None:
    """Times every request from its first before-request hook; register it before any other hook."""
    app.before_request(_start)
    app.after_request(_answered)


def _start() -> None:
    request.environ[STARTED] = time.perf_counter()


def _answered(response: Response) -> Response:
    started = request.environ.get(STARTED)
    if started is not None:
        route = request.url_rule.rule if request.url_rule is not None else UNMATCHED
        request_answered(route, request.method, response.status_code, time.perf_counter() - started)
    return response


def add_metrics(app: Flask, exposition: Exposition, token: str | None) -> None:
    """GET /metrics answering `exposition`'s figures to the callers `token` allows (see the module's doc)."""
    def metrics():
        _check_reader(token)
        return Response(exposition.scrape(), content_type=CONTENT_TYPE)

    app.add_url_rule("/metrics", "metrics", metrics, methods=["GET"])


def _check_reader(token: str | None) -> None:
    if token:
        scheme, _, sent = request.headers.get("Authorization", "").partition(" ")
        if scheme.lower() != "bearer" or not hmac.compare_digest(sent.strip().encode(), token.encode()):
            raise Unauthorized("metrics_token_required", "send the metrics token as 'Authorization: Bearer <token>'")
    elif not _loopback(request.remote_addr):
        raise Forbidden("metrics_loopback_only", "without METRICS_TOKEN set, only clients on this host may read "
                                                 "/metrics")


def _loopback(address: str | None) -> bool:
    try:
        return ipaddress.ip_address(address or "").is_loopback
    except ValueError:
        return False
