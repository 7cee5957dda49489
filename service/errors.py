"""Failures of a use case, each with the HTTP-independent status a client should see."""


class ServiceError(Exception):
    status = 400

    def __init__(self, reason: str, message: str, **details):
        super().__init__(message)
        self.reason = reason
        self.message = message
        self.details = details


class NotFound(ServiceError):
    status = 404


class Unauthorized(ServiceError):
    status = 401


class Forbidden(ServiceError):
    status = 403


class Conflict(ServiceError):
    status = 409


class Unprocessable(ServiceError):
    status = 422


class RateLimited(ServiceError):
    status = 429


class Unavailable(ServiceError):
    status = 503


class NotReady(Exception):
    """A readiness check that fails (GET /health/ready), saying what is missing."""
