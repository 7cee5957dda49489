"""One JSON shape for every error: {code, status, reason, message} (+ errors for field errors)."""
from flask import jsonify
from werkzeug.exceptions import HTTPException

from domain.errors import RuleViolation
from service.errors import ServiceError

HTTP_REASONS = {400: "bad_request", 401: "unauthorized", 403: "forbidden", 404: "not_found",
                405: "method_not_allowed", 409: "conflict", 413: "body_too_large",
                415: "unsupported_media_type", 422: "invalid_request", 500: "internal_error",
                503: "unavailable"}
STATUS_TEXT = {400: "Bad Request", 401: "Unauthorized", 403: "Forbidden", 404: "Not Found",
               405: "Method Not Allowed", 409: "Conflict", 413: "Payload Too Large",
               415: "Unsupported Media Type", 422: "Unprocessable Entity", 500: "Internal Server Error",
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
    data = getattr(error, "data", None) or {}
    messages = data.get("messages")
    message = data.get("message") or error.description or ""
    reason = HTTP_REASONS.get(error.code, "http_error")
    if messages == {"json": ["Invalid JSON body."]}:
        return error_response(400, "invalid_json", "the body is not valid JSON")
    if messages:
        message = "the request does not match the schema: see errors"
    return error_response(error.code or 500, reason, message, messages)


def register(app):
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
