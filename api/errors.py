"""One JSON shape for every error: {code, status, reason, message, request_id} (+ errors for field errors). The same
bodies answer HTTP requests and the play socket's messages (api/play_socket.py): `describe` maps an error to
its body once for both."""
import logging

import redis
from flask import jsonify
from werkzeug.exceptions import HTTPException
from werkzeug.routing import WebsocketMismatch

from domain.errors import RuleViolation
from observability.metrics import redis_error, refused
from service import log_context
from service.errors import ServiceError

HTTP_REASONS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 408: "request_timeout", 409: "conflict", 411: "length_required",
                413: "body_too_large", 414: "uri_too_long", 415: "unsupported_media_type", 422: "invalid_request",
                429: "rate_limited", 431: "headers_too_large", 500: "internal_error", 503: "unavailable"}
REFUSALS = {429, 503}  # counted by reason (cardroom_refusals): the answers an operator watches
STATUS_TEXT = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
               405: "Method Not Allowed", 408: "Request Timeout", 409: "Conflict", 411: "Length Required",
               413: "Payload Too Large", 414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Entity",
               429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
               503: "Service Unavailable"}
# Seconds a client should wait before retrying while Redis is unreachable: a supervised Redis is back
# about a second after it dies (docs/reliability.md).
REDIS_RETRY_AFTER = 1
SCHEMA_MISMATCH = "the request does not match the schema: see errors"
log = logging.getLogger("cardroom.api")


def error_body(code: int, reason: str, message: str, errors=None, **details) -> dict:
    """The one error shape; a 429 or a 503 is counted here, where every one is made (HTTP and play socket).
    `request_id`: the current request's (api/request_ids.py), or a new one outside any request."""
    body = {"code": code, "status": STATUS_TEXT.get(code, "Error"), "reason": reason, "message": message,
            "request_id": log_context.request_id() or log_context.new_request_id(), **details}
    if code in REFUSALS:
        refused(code, reason)
    if errors:
        body["errors"] = errors
    return body


def error_response(code: int, reason: str, message: str, errors=None, **details):
    return json_error(error_body(code, reason, message, errors, **details))


def json_error(body: dict, headers=()):
    response = jsonify(body)
    response.status_code = body["code"]
    response.headers.extend(headers)
    return response


def describe(error: Exception) -> tuple[dict, list[tuple[str, str]]]:
    """The error's body and the HTTP headers that go with it. Redis out of reach is a 503 naming no host or
    port; anything unforeseen is logged and a 500."""
    if isinstance(error, (redis.ConnectionError, redis.TimeoutError)):  # refused, reset, LOADING (a restart)
        redis_error("api")
        return (error_body(503, "redis_unreachable", "the event store (Redis) cannot be reached; retry shortly",
                           retry_after=REDIS_RETRY_AFTER), [("Retry-After", str(REDIS_RETRY_AFTER))])
    if isinstance(error, ServiceError):
        retry = [("Retry-After", str(error.details["retry_after"]))] if "retry_after" in error.details else []
        return error_body(error.status, error.reason, error.message, **error.details), retry
    if isinstance(error, RuleViolation):
        return error_body(422, error.reason, error.message), []
    if isinstance(error, WebsocketMismatch):
        return error_body(400, "websocket_mismatch", "GET /v1/play is a WebSocket (send 'Upgrade: websocket'); "
                                                     "every other path is plain HTTP"), []
    if isinstance(error, HTTPException):
        return _from_http_exception(error)
    log.exception("unhandled error")
    return error_body(500, "internal_error", "the server failed; the request may be retried"), []


def _from_http_exception(error: HTTPException) -> tuple[dict, list[tuple[str, str]]]:
    """werkzeug's and flask-smorest's errors (abort(status, reason=..., message=...)) in the one shape, with
    the exception's own headers but not its content type (e.g. Allow on 405)."""
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    message = data.get("message") or error.description or ""
    code = error.code or 500
    reason = data.get("reason") or HTTP_REASONS.get(code, "http_error")
    if messages:
        message = SCHEMA_MISMATCH
    headers = [(name, value) for name, value in error.get_headers() if name.lower() != "content-type"]
    return error_body(code, reason, message, messages), headers


def respond(error: Exception):
    """The HTTP answer to an error raised by a view or a hook."""
    return json_error(*describe(error))


def register(app):
    app.register_error_handler(Exception, respond)  # HTTPExceptions too: a handler for Exception catches them
