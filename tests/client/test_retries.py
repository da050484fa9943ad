"""Retries and timeouts: a 429 or 503 is tried again after the server's Retry-After, within the
client's bounds; a request that was sent and got no answer is sent again only if it is a read."""

import socket
import sqlite3
import threading
import time

import pytest
from django.db import connection

from dewee_client import AsyncDewee, Dewee, errors
from tests.client.conftest import wait_until_the_database_is_quiet
from tests.event_loop import in_own_thread
from tests.factories import make_key, make_workspace
from tests.servers import start_server, stop_server, wait_until_serving


@pytest.fixture(scope="module")
def limited_server(django_db_setup, tmp_path_factory):
    """A server whose keys may make 5 requests in 3 seconds, and whose SQLite database gives
    up a busy write after 1 second."""
    server = start_server(
        tmp_path_factory.mktemp("limited"),
        web_only=True,
        DEWEE_RATE_LIMIT_KEY="5/3s",
        DEWEE_SQLITE_BUSY_TIMEOUT_SECS="1",
        DEWEE_Q_SYNC="1",
    )
    try:
        wait_until_serving(server)
        yield server
    finally:
        stop_server(server)
        print(server.tail())


@pytest.fixture
def limited(limited_server, transactional_db):
    limited_server.key = make_key(make_workspace())
    yield limited_server
    wait_until_the_database_is_quiet()


def test_a_rate_limited_call_waits_out_retry_after_and_succeeds(limited):
    dewee = Dewee(limited.url, limited.key, agent_id="helpdesk")
    started = time.monotonic()
    stored = [dewee.store(f"note {n}").id for n in range(8)]
    assert len(set(stored)) == 8
    # Over 5 requests in a window: the client waited for the next one at least once.
    assert time.monotonic() - started >= 0.5
    assert len(list(dewee.memories())) == 8


def test_without_retries_or_past_the_longest_wait_the_429_is_raised_with_retry_after(limited):
    for dewee in (
        Dewee(limited.url, limited.key, agent_id="helpdesk", max_retries=0),
        Dewee(limited.url, limited.key, agent_id="helpdesk", max_retry_wait=0.01),
    ):
        refused = _call_until_refused(dewee)
        assert refused.status == 429
        assert refused.retry_after is not None
        assert 0 < refused.retry_after <= 3
        time.sleep(refused.retry_after)


def _call_until_refused(dewee: Dewee) -> errors.DeweeError:
    for _ in range(12):
        started = time.monotonic()
        try:
            dewee.agents()
        except errors.RateLimited as refused:
            assert time.monotonic() - started < 1  # raised at once, not after a wait
            return refused
    raise AssertionError("never refused")


def test_the_async_client_waits_out_a_429_too(limited):
    async def calls() -> list[int]:
        async with AsyncDewee(limited.url, limited.key, agent_id="helpdesk") as dewee:
            return [(await dewee.store(f"note {n}")).id for n in range(7)]

    import asyncio

    assert len(set(in_own_thread(asyncio.run, calls()))) == 7


def test_a_503_busy_database_is_tried_again_after_retry_after(limited):
    if connection.vendor != "sqlite":
        pytest.skip("SQLite's single writer lock makes the server answer 503 database_busy")
    holding = threading.Event()

    def hold_the_write_lock(seconds: float) -> None:
        holder = sqlite3.connect(connection.settings_dict["NAME"], isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        holding.set()
        time.sleep(seconds)
        holder.execute("ROLLBACK")
        holder.close()

    impatient = Dewee(limited.url, limited.key, agent_id="helpdesk", max_retries=0)
    holder = threading.Thread(target=hold_the_write_lock, args=(1.5,))
    holder.start()
    holding.wait()
    with pytest.raises(errors.DatabaseBusy) as busy:
        impatient.store("refused while the database is locked")
    assert (busy.value.status, busy.value.retry_after) == (503, 2)
    holder.join()

    patient = Dewee(limited.url, limited.key, agent_id="helpdesk")
    holder = threading.Thread(target=hold_the_write_lock, args=(1.5,))
    holder.start()
    holding.wait()
    started = time.monotonic()
    stored = patient.store("stored once the lock is gone")
    holder.join()
    assert time.monotonic() - started >= 2  # one busy answer, then Retry-After's 2 s
    assert [m.id for m in patient.memories()] == [stored.id]


class SilentServer:
    """Accepts connections and never answers; counts them."""

    def __init__(self) -> None:
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(8)
        self.sock.settimeout(0.2)
        self.accepted: list[socket.socket] = []
        self.running = True
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.sock.getsockname()[1]}"

    def _accept(self) -> None:
        while self.running:
            try:
                self.accepted.append(self.sock.accept()[0])
            except OSError:
                continue

    def close(self) -> None:
        self.running = False
        self.thread.join()
        for conn in self.accepted:
            conn.close()
        self.sock.close()


@pytest.fixture
def silent():
    server = SilentServer()
    yield server
    server.close()


def test_a_read_without_an_answer_is_sent_again_a_write_is_not(silent):
    dewee = Dewee(silent.url, "dw_x", agent_id="helpdesk", timeout=0.3, max_retries=2)
    with pytest.raises(errors.RequestTimeout):
        dewee.get_memory(1)
    assert len(silent.accepted) == 3  # the first try and two more

    with pytest.raises(errors.RequestTimeout):
        dewee.store("maybe stored: must not be stored twice")
    assert len(silent.accepted) == 4


def test_a_refused_connection_is_a_transport_error_after_the_retries():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    dewee = Dewee(f"http://127.0.0.1:{port}", "dw_x", agent_id="helpdesk", max_retries=1)
    with pytest.raises(errors.TransportError) as failed:
        dewee.store("nobody listening")
    assert not isinstance(failed.value, errors.RequestTimeout)
    assert "ConnectError" in str(failed.value)


def test_calls_have_a_timeout_unless_told_otherwise():
    dewee = Dewee("http://127.0.0.1:9", "dw_x")
    assert (dewee._http.timeout.connect, dewee._http.timeout.read) == (5.0, 30.0)
    assert Dewee("http://127.0.0.1:9", "dw_x", timeout=2)._http.timeout.read == 2
