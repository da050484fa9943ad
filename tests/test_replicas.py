"""Read replicas (dewee.replicas): a real streaming replica of the test cluster, started by
these tests, behind a real server. Reads that may be stale go to it, a client reads its own
writes, a replica too far behind or stopped leaves rotation without a single error and
comes back when it is well.

The replica's replay is paused to tell where a read was served: a row written after the
pause is on the primary only."""

import importlib.util
import json
import shutil
import sys
import tempfile
import threading
import time
from pathlib import Path

import pytest
from django.conf import settings
from django.core.checks import Error
from django.db import connection

from dewee.serving import ConnectionPlan, replica_setting_errors
from tests.factories import make_key, make_workspace
from tests.servers import Server, start_server, stop_server, wait_for, wait_until_serving

ROOT = Path(__file__).resolve().parent.parent
POSTGRES_ONLY = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="replicas are PostgreSQL servers"
)
TOKEN = "replica-metrics-token"


def _replicas_module():
    spec = importlib.util.spec_from_file_location(
        "postgres_replica", ROOT / "scripts" / "postgres_replica.py"
    )
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def replica(django_db_setup, django_db_blocker):
    """A streaming replica of the cluster that holds the test database (in a folder the
    server's user can reach, as root: pytest's own are private to root)."""
    if connection.vendor != "postgresql":
        pytest.skip("replicas are PostgreSQL servers")
    from tests.servers import database_url

    module = _replicas_module()
    with django_db_blocker.unblock():
        primary = database_url()
    folder = Path(tempfile.mkdtemp(prefix="dewee-replica-"))
    folder.chmod(0o755)
    made = module.start_replica(primary, folder / "data")
    yield made
    made.destroy()
    shutil.rmtree(folder, ignore_errors=True)


def _replica_sql(replica, sql: str):
    import psycopg

    with psycopg.connect(
        dbname=connection.settings_dict["NAME"],
        host=str(replica.socket_dir),
        port=replica.port,
        user="postgres",
        autocommit=True,
    ) as conn:
        return conn.execute(sql).fetchone()


def _serve(tmp_path, replica, **env: str) -> Server:
    server = start_server(
        tmp_path,
        web_only=True,
        DEWEE_WEB_WORKERS="1",
        DEWEE_METRICS_TOKEN=TOKEN,
        DEWEE_DB_REPLICA_URLS=replica.url(connection.settings_dict["NAME"]),
        **env,
    )
    wait_until_serving(server)
    return server


def _served(server: Server) -> dict[str, float]:
    answer = server.request("GET", "/metrics", headers={"Authorization": f"Bearer {TOKEN}"})
    assert answer.status == 200
    counts: dict[str, float] = {}
    for line in answer.body.decode().splitlines():
        if line.startswith("dewee_db_reads_served_total{"):
            database = line.split('database="', 1)[1].split('"', 1)[0]
            counts[database] = float(line.rsplit(" ", 1)[1])
    return counts


def _contents(server: Server, key: str) -> set[str]:
    answer = server.request("GET", "/v1/memories?agent_id=reader&limit=100", key=key)
    assert answer.status == 200, answer.body
    return {item["content"] for item in answer.json()["items"]}


def _replica_state(server: Server) -> dict:
    # Without a worker the server is not ready (no heartbeat); the replicas are reported.
    return server.request("GET", "/readyz").json()["replicas"]["replica1"]


@POSTGRES_ONLY
@pytest.mark.django_db(transaction=True)
@pytest.mark.solo
def test_reads_go_to_the_replica_and_a_client_reads_its_own_writes(tmp_path, replica):
    workspace = make_workspace("replicas")
    writer, reader = make_key(workspace, name="writer"), make_key(workspace, name="reader")
    # A long bound: the paused replica stays in rotation for the whole test.
    server = _serve(
        tmp_path,
        replica,
        DEWEE_DB_REPLICA_MAX_LAG_SECS="60",
        DEWEE_DB_READ_OWN_WRITES_SECS="120",
    )
    try:
        first = server.request(
            "POST",
            "/v1/memories",
            {"agent_id": "reader", "content": "before the pause"},
            key=writer,
        )
        assert first.status == 201, server.tail()
        wait_for(lambda: "before the pause" in _contents(server, reader), 10, "replication")
        assert _replica_state(server)["in_rotation"] is True, server.tail()

        _replica_sql(replica, "SELECT pg_wal_replay_pause()")
        try:
            second = server.request(
                "POST",
                "/v1/memories",
                {"agent_id": "reader", "content": "after the pause"},
                key=writer,
            )
            assert second.status == 201, second.body
            # The key that wrote reads the primary: its own write, at once, every time.
            for _ in range(5):
                assert "after the pause" in _contents(server, writer)
            recall = server.request(
                "POST",
                "/v1/memory/recall",
                {"agent_id": "reader", "query": "after the pause", "top_k": 5},
                key=writer,
            )
            assert "after the pause" in json.dumps(recall.json())
            # A write the server refuses wrote nothing: the key still reads the replica.
            refused = server.request(
                "POST", "/v1/memories", {"agent_id": "reader", "content": 7}, key=reader
            )
            assert refused.status == 400
            # Another key that never wrote reads the replica, which has not replayed it.
            before = _served(server).get("replica", 0)
            for _ in range(5):
                assert _contents(server, reader) == {"before the pause"}
            assert _served(server).get("replica", 0) >= before + 5
        finally:
            _replica_sql(replica, "SELECT pg_wal_replay_resume()")
        wait_for(lambda: "after the pause" in _contents(server, reader), 10, "replay")
    finally:
        stop_server(server)


@POSTGRES_ONLY
@pytest.mark.django_db(transaction=True)
@pytest.mark.solo
def test_a_replica_too_far_behind_leaves_rotation_and_comes_back(tmp_path, replica):
    workspace = make_workspace("lagging")
    writer, reader = make_key(workspace, name="writer"), make_key(workspace, name="reader")
    server = _serve(
        tmp_path,
        replica,
        DEWEE_DB_REPLICA_MAX_LAG_SECS="1",
        DEWEE_DB_REPLICA_CHECK_SECS="0.5",
        DEWEE_DB_READ_OWN_WRITES_SECS="3",
    )
    try:
        wait_for(lambda: _replica_state(server)["in_rotation"], 10, "the replica in rotation")
        _replica_sql(replica, "SELECT pg_wal_replay_pause()")
        try:
            stored = server.request(
                "POST",
                "/v1/memories",
                {"agent_id": "reader", "content": "while it lags"},
                key=writer,
            )
            assert stored.status == 201
            wait_for(lambda: not _replica_state(server)["in_rotation"], 10, "the lag seen")
            state = _replica_state(server)
            assert state["lag_secs"] > 1
            assert "lag" in state["reason"]
            # Out of rotation: a key that never wrote reads the primary, and sees the row.
            assert "while it lags" in _contents(server, reader)
        finally:
            _replica_sql(replica, "SELECT pg_wal_replay_resume()")
        wait_for(lambda: _replica_state(server)["in_rotation"], 10, "the replica back")
    finally:
        stop_server(server)


@POSTGRES_ONLY
@pytest.mark.django_db(transaction=True)
@pytest.mark.solo
def test_a_replica_that_stops_costs_no_error(tmp_path, replica):
    workspace = make_workspace("outage")
    writer, reader = make_key(workspace, name="writer"), make_key(workspace, name="reader")
    server = _serve(tmp_path, replica)
    statuses: list[int] = []
    stop = threading.Event()

    def read_all_along() -> None:
        while not stop.is_set():
            answer = server.request("GET", "/v1/memories?agent_id=reader&limit=5", key=reader)
            statuses.append(answer.status)

    try:
        stored = server.request(
            "POST", "/v1/memories", {"agent_id": "reader", "content": "kept"}, key=writer
        )
        assert stored.status == 201
        wait_for(lambda: _replica_state(server)["in_rotation"], 10, "the replica in rotation")
        threads = [threading.Thread(target=read_all_along) for _ in range(4)]
        for thread in threads:
            thread.start()
        time.sleep(1)
        replica.stop("immediate")  # as if its host died
        wait_for(lambda: not _replica_state(server)["in_rotation"], 10, "the replica out")
        started = time.monotonic()
        assert _contents(server, reader) == {"kept"}
        time.sleep(1)
        replica.start()
        wait_for(lambda: _replica_state(server)["in_rotation"], 20, "the replica back")
        back_after = time.monotonic() - started
        time.sleep(1)
        stop.set()
        for thread in threads:
            thread.join()
        assert len(statuses) > 10
        assert set(statuses) == {200}, sorted(set(statuses))
        assert back_after < 20
    finally:
        stop.set()
        stop_server(server)


def test_replicas_need_postgres_and_a_read_your_writes_window_past_the_lag():
    postgres = settings.POSTGRES_ENGINE
    mixed = {"django.db.backends.sqlite3", postgres}
    found = replica_setting_errors(engines=mixed, own_writes_secs=2, max_lag_secs=2, check_secs=1)
    assert {error.id for error in found if isinstance(error, Error)} == {
        "dewee.E204",
        "dewee.E205",
    }
    found = replica_setting_errors(
        engines={postgres}, own_writes_secs=3, max_lag_secs=2, check_secs=0
    )
    assert {error.id for error in found} == {"dewee.E206"}
    assert (
        replica_setting_errors(engines={postgres}, own_writes_secs=5, max_lag_secs=2, check_secs=1)
        == []
    )


def test_the_connection_budget_counts_each_replica():
    plan = ConnectionPlan(web_workers=2, pool_size=8, workers=2, budget=40, replicas=2)
    # On the primary: each web process's pool and its check connection, and the worker.
    assert plan.total == 2 * (8 + 1) + 2 + 4
    # On each replica: the web processes' pools and checks (the worker reads the primary).
    assert plan.per_replica == 2 * (8 + 1)
    assert "each of 2 replicas: 18" in plan.describe()
    assert ConnectionPlan(web_workers=2, pool_size=8, workers=2, budget=40).total == 22


@pytest.mark.django_db
def test_readyz_notices_jobs_signed_with_another_hosts_key():
    """Hosts with different secret keys share one queue and cannot read each other's jobs:
    /readyz tells the operator (a notice: the host itself works)."""
    from django.test import Client
    from django_q import core_signing
    from django_q.conf import Conf
    from django_q.models import OrmQ
    from django_q.signing import PickleSerializer, SignedPackage

    from dewee.health import QUEUE_KEY_NOTICE

    OrmQ.objects.create(
        key=Conf.CLUSTER_NAME, payload=SignedPackage.dumps({"id": "ours"}), lock=None
    )
    # Other notices (a proxy's) may be there: this one is not.
    assert QUEUE_KEY_NOTICE not in Client().get("/readyz").json().get("notices", [])
    foreign = core_signing.dumps(
        {"id": "theirs"}, key="another host's key", salt=Conf.PREFIX, serializer=PickleSerializer
    )
    OrmQ.objects.create(key=Conf.CLUSTER_NAME, payload=foreign, lock=None)
    assert QUEUE_KEY_NOTICE in Client().get("/readyz").json()["notices"]
