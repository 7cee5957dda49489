"""An API client for tests: the Flask test client over the in-memory service."""
from api.app import create_app
from tests.support.service import make_service


def make_client(bots=None, **service_options):
    service = make_service(bots, **service_options)
    app = create_app(service, lambda: True, max_body_bytes=4096)
    return app.test_client()


def bearer(token):
    return {"Authorization": f"Bearer {token}"}


def assert_error(response, status, reason=None):
    body = response.get_json()
    assert response.status_code == status, body
    assert set(body) >= {"code", "status", "reason", "message"} and body["code"] == status
    if reason:
        assert body["reason"] == reason, body
    return body
