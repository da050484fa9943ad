"""The Python client (clients/python) and its adapters against a live server: `manage.py serve`
(gunicorn and the worker) on the test database of the edition the suite runs on."""

from collections.abc import Iterator

import pytest

from dewee_client import Dewee
from tests.factories import make_key, make_workspace
from tests.servers import Server, start_server, stop_server, wait_until_serving


@pytest.fixture(scope="session")
def dewee_server(django_db_setup, tmp_path_factory) -> Iterator[Server]:
    """One server for the client's tests: each test makes its own workspace and key, and the
    database is emptied after each (transactional tests), so they share it safely."""
    server = start_server(tmp_path_factory.mktemp("client-server"))
    try:
        wait_until_serving(server)
        yield server
    finally:
        stop_server(server)
        print(server.tail())  # shown by pytest only when a test failed


@pytest.fixture
def live(dewee_server, transactional_db) -> Server:
    """The server, with a key of a new workspace that may do everything."""
    dewee_server.key = make_key(make_workspace())
    return dewee_server


@pytest.fixture
def dewee(live) -> Iterator[Dewee]:
    with Dewee(live.url, live.key, agent_id="helpdesk", max_retry_wait=5) as client:
        yield client
