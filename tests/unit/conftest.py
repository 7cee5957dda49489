"""Fixtures of the API's unit tests: a client over the in-memory service, and a match created through it."""
import pytest

from tests.support.http import THREE, make_client


@pytest.fixture
def client():
    return make_client()


@pytest.fixture
def created(client):
    return client.post("/v1/matches", json=THREE).get_json()
