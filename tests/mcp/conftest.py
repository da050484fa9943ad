"""The MCP tests share the test database with the servers they start."""

from collections.abc import Iterator

import pytest

from tests.servers import wait_until_the_database_is_quiet


@pytest.fixture(autouse=True)
def quiet_database_after_each_test(transactional_db) -> Iterator[None]:
    """The flush after each test waits until no server connection is still in a query: on
    PostgreSQL the flush's table locks deadlock with a server still finishing a request."""
    yield
    wait_until_the_database_is_quiet()
