"""One JSON shape for every error: {code, status, reason, message} (+ errors for field errors)."""
import redis
from flask import jsonify
from werkzeug.exceptions import HTTPException

from domain.errors import RuleViolation
from service.errors import ServiceError

HTTP_REASONS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 409: "conflict", 411: "length_required", 413: "body_too_large",
                414: "uri_too_long", 415: "unsupported_media_type", 422: "invalid_request",
                429: "rate_limited", 431: "headers_too_large", 500: "internal_error", 503: "unavailable"}
STATUS_TEXT = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
               405: "Method Not Allowed", 409: "Conflict", 411: "Length Required", 413: "Payload Too Large",
               414: "URI Too Long", 415: "Unsupported Media Type", 422: "Unprocessable Entity",
               429: "Too Many Requests", 431: "Request Header Fields Too Large", 500: "Internal Server Error",
               503: "Service Unavailable"}


def error_response(code: int, reason: str, message: str, errors=None, **details):
    body = {"code": code, "status": STATUS_TEXT.get(code, "Error"), "reason": reason, "message": message,
            **details}
    if errors:
        body["errors"] = errors
    response = jsonify(body)
    response.status_code = code
    return response


def from_http_exception(error: HTTPException):
    """werkzeug's and flask-smorest's errors (abort(status, reason=..., message=...)) in the one shape,
    with the exception's own headers but its content type (e.g. Allow on 405)."""
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    message = data.get("message") or error.description or ""
    reason = data.get("reason") or HTTP_REASONS.get(error.code, "http_error")
    if messages:
        message = "the request does not match the schema: see errors"
    response = error_response(error.code or 500, reason, message, messages)
    for name, value in error.get_headers():
        if name.lower() != "content-type":
            response.headers[name] = value
    return response


# Seconds a client should wait before retrying while Redis is unreachable: a supervised Redis is back
# about a second after it dies (docs/reliability.md).
REDIS_RETRY_AFTER = 1


def redis_unreachable():
    """503 for a Redis that cannot be reached (from the event store, RQ enqueueing or /health); the
    message names no host or port."""
    response = error_response(503, "redis_unreachable", "the event store (Redis) cannot be reached; retry shortly")
    response.headers["Retry-After"] = str(REDIS_RETRY_AFTER)
    return response


def register(app):
    # redis.ConnectionError covers refused, reset and LOADING (a restarted Redis reading its AOF)
    app.register_error_handler(redis.ConnectionError, lambda error: redis_unreachable())
    app.register_error_handler(redis.TimeoutError, lambda error: redis_unreachable())

    @app.errorhandler(ServiceError)
    def service_error(error: ServiceError):
        return error_response(error.status, error.reason, error.message, **error.details)

    @app.errorhandler(RuleViolation)
    def rule_violation(error: RuleViolation):
        return error_response(422, error.reason, error.message)

    @app.errorhandler(Exception)
    def unexpected(error: Exception):
        if isinstance(error, HTTPException):
            return from_http_exception(error)
        app.logger.exception("unhandled error")
        return error_response(500, "internal_error", "the server failed; the request may be retried")
