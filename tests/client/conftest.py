"""The Python client (clients/python) and its adapters against a live server: `manage.py serve`
(gunicorn and the worker) on the test database of the edition the suite runs on."""

from collections.abc import Iterator

import pytest

from dewee_client import Dewee
from tests.factories import make_key, make_workspace
from tests.servers import (
    Server,
    start_server,
    stop_server,
    wait_until_serving,
    wait_until_the_database_is_quiet,
)


@pytest.fixture(scope="session")
def dewee_server(django_db_setup, tmp_path_factory) -> Iterator[Server]:
    """One server for the client's tests: each test makes its own workspace and key, and the
    database is emptied after each (transactional tests), so they share it safely."""
    # Jobs (a store's graph, facts learned from it) run in the request that queues them, so
    # no worker is still writing when a test's data is flushed; and no worker at all: one
    # living through the session ran the jobs other tests queued on the same database (a
    # test of the queue's cap saw its jobs started and gone) and the schedules' jobs.
    server = start_server(tmp_path_factory.mktemp("client-server"), web_only=True, DEWEE_Q_SYNC="1")
    try:
        wait_until_serving(server)
        yield server
    finally:
        stop_server(server)
        print(server.tail())  # shown by pytest only when a test failed


@pytest.fixture
def live(dewee_server, transactional_db) -> Iterator[Server]:
    """The server, with a key of a new workspace that may do everything."""
    workspace = make_workspace()
    dewee_server.key = make_key(workspace)
    dewee_server.workspace_id = workspace.pk
    yield dewee_server
    wait_until_the_database_is_quiet()


@pytest.fixture
def dewee(live) -> Iterator[Dewee]:
    with Dewee(live.url, live.key, agent_id="helpdesk", max_retry_wait=5) as client:
        yield client
