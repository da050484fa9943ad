"""/metrics as an operator scrapes it: under the real server (gunicorn with two web processes
and the worker cluster), one scrape adds up every process's counts; who may scrape; routes
are URL patterns, never paths with ids in them."""

import json
import os
import re
import subprocess
import sys
import threading
from collections import defaultdict
from pathlib import Path

import pytest
from django.conf import settings
from django.test import Client
from prometheus_client.mmap_dict import MmapedDict
from prometheus_client.parser import text_string_to_metric_families

from tests.factories import make_key, make_workspace
from tests.servers import Server, start_server, stop_server, wait_for, wait_until_serving

TOKEN = "scrape-me-7f3a"


def samples(text: str) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    """Each sample of an exposition: (name, sorted labels) -> value."""
    found = {}
    for family in text_string_to_metric_families(text):
        for sample in family.samples:
            found[(sample.name, tuple(sorted(sample.labels.items())))] = sample.value
    return found


def value(text: str, name: str, **labels: str) -> float:
    return samples(text).get((name, tuple(sorted(labels.items()))), 0.0)


def counts_by_process(folder: Path, route: str) -> dict[str, float]:
    """What each web process's own file holds for ``route`` (the files the scrape adds up)."""
    per_pid: dict[str, float] = defaultdict(float)
    for path in folder.glob("counter_*.db"):
        pid = path.stem.split("_", 1)[1]
        for key, count, _timestamp, _pos in MmapedDict.read_all_values_from_file(str(path)):
            metric, _name, labels, _help = json.loads(key)
            if metric == "dewee_http_requests" and labels.get("route") == route:
                per_pid[pid] += count
    return dict(per_pid)


@pytest.mark.django_db(transaction=True)
@pytest.mark.solo
def test_one_scrape_under_gunicorn_adds_up_both_web_processes_and_the_worker(tmp_path):
    metrics_dir = tmp_path / "metrics"
    server: Server = start_server(
        tmp_path,
        DEWEE_WEB_WORKERS="2",
        DEWEE_WEB_THREADS="4",
        DEWEE_METRICS_DIR=str(metrics_dir),
        DEWEE_METRICS_TOKEN=TOKEN,
        DEWEE_GRAPH_ON_STORE="worker",
    )
    try:
        wait_until_serving(server)
        web_dirs = list(metrics_dir.glob("web-*"))
        assert len(web_dirs) == 1, list(metrics_dir.iterdir())
        # The health checks that waited for the server are counted too: start from them.
        before = counts_by_process(web_dirs[0], "healthz")

        # Requests at once from several clients, until both web processes have served some.
        sent = 0
        lock = threading.Lock()

        def hit(times: int) -> None:
            nonlocal sent
            for _ in range(times):
                assert server.request("GET", "/healthz").status == 200
                with lock:
                    sent += 1

        for _round in range(20):
            threads = [threading.Thread(target=hit, args=(10,)) for _ in range(8)]
            for thread in threads:
                thread.start()
            for thread in threads:
                thread.join()
            served = counts_by_process(web_dirs[0], "healthz")
            if sum(1 for pid, n in served.items() if n > before.get(pid, 0)) >= 2:
                break
        served = counts_by_process(web_dirs[0], "healthz")
        grew = [pid for pid, n in served.items() if n > before.get(pid, 0)]
        assert len(grew) >= 2, f"one web process served everything: {served}"

        # API traffic: a route with an id, a path no route serves, a stored memory (whose
        # graph job the worker runs), a fact and a dispute settled.
        server.key = make_key(make_workspace("metrics"))
        stored = server.request(
            "POST", "/v1/memories", {"agent_id": "watch", "content": "Ana moved to Lisbon"}
        )
        assert stored.status == 201, stored.body
        memory_id = stored.json()["id"]
        assert server.request("GET", f"/v1/memories/{memory_id}").status == 200
        assert server.request("GET", "/v1/memories/987654321").status == 404
        assert server.request("GET", "/v1/no-such-thing/123456").status == 404
        recall = {"agent_id": "watch", "query": "where does Ana live"}
        assert server.request("POST", "/v1/memory/recall", recall).status == 200
        fact = {
            "agent_id": "watch",
            "user": "u1",
            "subject": "user",
            "predicate": "employer",
            "value": "Acme",
            "source": {"kind": "channel_message", "reference": "m1"},
        }
        assert server.request("POST", "/v1/facts", fact).status in (200, 201)
        doubt = {**fact, "value": "Globex", "verification": "inferred"}
        disputed = server.request("POST", "/v1/facts", doubt)
        assert disputed.json()["outcome"] == "disputed", disputed.body
        fact_id = disputed.json()["fact"]["id"]
        settled = server.request("POST", f"/v1/facts/{fact_id}/resolve", {"action": "reject"})
        assert settled.status == 200, settled.body

        def scrape() -> str:
            answer = server.request("GET", "/metrics", key=TOKEN)
            assert answer.status == 200, answer.body
            assert answer.headers["Content-Type"].startswith("text/plain; version=")
            return answer.body.decode()

        # The worker's job shows in the web's scrape once the cluster has run it.
        wait_for(
            lambda: any(
                name == "dewee_job_duration_seconds_count" and n >= 1
                for (name, _labels), n in samples(scrape()).items()
            ),
            60,
            "the worker's graph job in the scrape",
        )
        text = scrape()
        served = counts_by_process(web_dirs[0], "healthz")
        # The sum is exact: every health check of either process, once.
        assert value(
            text, "dewee_http_requests_total", route="healthz", method="GET", status="200"
        ) == sum(served.values())
        assert sum(served.values()) - sum(before.values()) == sent
        # Routes are patterns: no id of a memory, none of a path nothing serves.
        routes = {labels for (name, labels) in samples(text) if name == "dewee_http_requests_total"}
        route_names = {dict(labels)["route"] for labels in routes}
        assert "v1/memories/<int:memory_id>" in route_names
        assert "unmatched" in route_names
        assert not any(re.search(r"\d{3,}", route) for route in route_names), route_names
        assert (
            value(
                text,
                "dewee_http_requests_total",
                route="v1/memories/<int:memory_id>",
                method="GET",
                status="404",
            )
            == 1
        )
        assert value(text, "dewee_operation_duration_seconds_count", operation="store") == 1
        assert value(text, "dewee_operation_duration_seconds_count", operation="recall") == 1
        assert value(text, "dewee_fact_disputes_opened_total") == 1
        assert value(text, "dewee_fact_disputes_settled_total", action="reject") == 1
        assert value(text, "dewee_facts_written_total", outcome="created") == 1
        assert value(text, "dewee_facts_written_total", outcome="disputed") == 1
        assert ("dewee_queue_depth", (("state", "waiting"),)) in samples(text)

        # The token is enforced.
        assert server.request("GET", "/metrics").status == 401
        assert server.request("GET", "/metrics", key="wrong-token").status == 401
        # An API key is not a metrics token.
        assert server.request("GET", "/metrics", key=server.key).status == 401
    finally:
        stop_server(server)
        print(server.tail())


@pytest.mark.django_db
def test_without_a_token_only_a_direct_loopback_client_may_scrape(settings):
    settings.DEWEE_METRICS_TOKEN = ""
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 200
    assert Client(REMOTE_ADDR="::1").get("/metrics").status_code == 200
    # Another host, or anyone through a proxy on this host: nothing here.
    assert Client(REMOTE_ADDR="203.0.113.9").get("/metrics").status_code == 404
    proxied = Client(REMOTE_ADDR="127.0.0.1", HTTP_X_FORWARDED_FOR="203.0.113.9")
    assert proxied.get("/metrics").status_code == 404


@pytest.mark.django_db
def test_with_a_token_every_client_needs_it(settings):
    settings.DEWEE_METRICS_TOKEN = TOKEN
    local = Client(REMOTE_ADDR="127.0.0.1")
    refused = local.get("/metrics")
    assert refused.status_code == 401
    assert refused["WWW-Authenticate"].startswith("Bearer")
    assert local.get("/metrics", HTTP_AUTHORIZATION="Bearer nope").status_code == 401
    remote = Client(REMOTE_ADDR="203.0.113.9", HTTP_AUTHORIZATION=f"Bearer {TOKEN}")
    answer = remote.get("/metrics")
    assert answer.status_code == 200
    assert b"dewee_http_requests_total" in answer.content


@pytest.mark.django_db
def test_metrics_can_be_turned_off(settings):
    settings.DEWEE_METRICS_ENABLED = False
    assert Client(REMOTE_ADDR="127.0.0.1").get("/metrics").status_code == 404


@pytest.mark.django_db
def test_a_scrape_writes_nothing_to_the_database(django_assert_num_queries, settings):
    settings.DEWEE_METRICS_TOKEN = ""
    client = Client(REMOTE_ADDR="127.0.0.1")
    client.get("/metrics")
    # The queue's depth is read (one query); nothing else is asked, nothing written.
    with django_assert_num_queries(1) as captured:
        assert client.get("/metrics").status_code == 200
    assert all(q["sql"].lstrip().upper().startswith("SELECT") for q in captured.captured_queries)


def test_the_web_server_starts_its_counts_afresh_and_drops_a_dead_process_live_gauges(tmp_path):
    """gunicorn's config, as its master loads it: the instance's folder emptied of an earlier
    run's files; a web process that exits loses its live gauges and keeps its counts."""
    folder = tmp_path / "metrics" / "web-127.0.0.1-8123"
    folder.mkdir(parents=True)
    (folder / "counter_999.db").write_bytes(b"from an earlier run")
    script = (
        "import os, types\n"
        "import dewee.gunicorn_conf as conf\n"
        "folder = os.environ['PROMETHEUS_MULTIPROC_DIR']\n"
        "print(sorted(os.listdir(folder)))\n"
        "for name in ('counter_4242.db', 'gauge_livesum_4242.db', 'gauge_livesum_4343.db'):\n"
        "    open(os.path.join(folder, name), 'wb').close()\n"
        "conf.child_exit(None, types.SimpleNamespace(pid=4242))\n"
        "print(sorted(os.listdir(folder)))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "PROMETHEUS_MULTIPROC_DIR"}
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={**env, "DEWEE_METRICS_DIR": str(tmp_path / "metrics"), "DEWEE_BIND": "127.0.0.1:8123"},
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    )
    at_start, after_exit = done.stdout.splitlines()[-2:]
    assert at_start == "[]"
    assert after_exit == "['counter_4242.db', 'gauge_livesum_4343.db']"
