"""Rate limits: per API key, per client address, failed key attempts per address, and failed
dashboard sign-ins per address and per username (dewee.limits), counted in the store every
web process shares (dewee.rate_counters)."""

import threading
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from django.contrib.auth import get_user_model
from django.core.cache import caches
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from dewee import rate_counters
from dewee.rate_counters import TABLE, Counters, SQLiteFileCounters
from memory.models import Memory
from tenancy.models import AuditEvent
from tests.factories import make_key, make_workspace
from tests.servers import start_server, stop_server, wait_until_serving

ATTACKER = "203.0.113.7"
ELSEWHERE = "198.51.100.20"


def api_get(path: str, key: str | None, address: str, **headers: str):
    if key is not None:
        headers["Authorization"] = f"Bearer {key}"
    return Client(REMOTE_ADDR=address).get(path, headers=headers)


def store(key: str, address: str, content: str = "the 429 writes nothing"):
    return Client(REMOTE_ADDR=address).post(
        "/v1/memories",
        {"agent_id": "bot", "content": content},
        content_type="application/json",
        headers={"Authorization": f"Bearer {key}"},
    )


def assert_rate_limited(response) -> None:
    assert response.status_code == 429
    assert response.json()["error"]["code"] == "rate_limited"
    assert int(response["Retry-After"]) >= 1
    assert "try again in" in response.json()["error"]["message"]


def test_the_61st_wrong_key_from_one_address_is_429_and_valid_keys_still_work(db):
    key = make_key(make_workspace("acme"))
    events = AuditEvent.objects.count()
    wrong = [
        None,
        "dw_" + "x" * 40,
        "not-even-a-key",
    ]
    for attempt in range(60):
        response = api_get("/v1/agents", wrong[attempt % 3], ATTACKER)
        assert response.status_code == 401, attempt
    refused = api_get("/v1/agents", "dw_" + "y" * 40, ATTACKER)
    assert_rate_limited(refused)
    assert "without a valid API key" in refused.json()["error"]["message"]
    assert_rate_limited(api_get("/v1/agents", None, ATTACKER))
    assert not Memory.objects.exists()
    assert AuditEvent.objects.count() == events
    # Someone else's guesses do not lock out a valid key from the same address (a shared
    # proxy or NAT): the limit refuses failing keys only.
    assert api_get("/v1/agents", key, ATTACKER).status_code == 200
    assert store(key, ATTACKER).status_code == 201
    assert_rate_limited(api_get("/v1/agents", "dw_" + "z" * 40, ATTACKER))
    assert api_get("/v1/agents", key, ELSEWHERE).status_code == 200
    assert store(key, ELSEWHERE).status_code == 201


def test_behind_the_proxy_one_clients_guesses_do_not_lock_out_anothers_key(db, settings):
    settings.DEWEE_PROXY_COUNT = 1
    key = make_key(make_workspace("acme"))
    proxy, office = "10.0.0.2", "198.51.100.77"  # an office's clients share one address

    def through_proxy(token: str):
        return api_get("/v1/agents", token, proxy, **{"X-Forwarded-For": office})

    for attempt in range(60):
        assert through_proxy("dw_" + "x" * 40).status_code == 401, attempt
    assert_rate_limited(through_proxy("dw_" + "y" * 40))
    assert through_proxy(key).status_code == 200


def test_x_forwarded_for_is_ignored_unless_the_operator_says_there_is_a_proxy(db, settings):
    settings.DEWEE_RATE_LIMIT_AUTH_FAILURES = "3/m"
    for n in range(3):
        forged = {"X-Forwarded-For": f"10.0.0.{n}"}
        assert api_get("/v1/agents", "wrong", ATTACKER, **forged).status_code == 401
    assert_rate_limited(api_get("/v1/agents", "wrong", ATTACKER, **{"X-Forwarded-For": "10.9.9.9"}))

    # Behind one proxy, the address it saw is the last entry; what the client wrote before
    # it does not make it someone else.
    settings.DEWEE_PROXY_COUNT = 1
    proxy, client = "127.0.0.1", "203.0.113.99"
    for n in range(3):
        forged = {"X-Forwarded-For": f"10.0.0.{n}, {client}"}
        assert api_get("/v1/agents", "wrong", proxy, **forged).status_code == 401
    assert_rate_limited(api_get("/v1/agents", "wrong", proxy, **{"X-Forwarded-For": client}))
    key = make_key(make_workspace("acme"))
    assert api_get("/v1/agents", key, proxy, **{"X-Forwarded-For": ELSEWHERE}).status_code == 200


def test_a_key_over_its_rate_gets_429_while_another_key_does_not(db, settings):
    settings.DEWEE_RATE_LIMIT_KEY = "5/m"
    busy, calm = make_key(make_workspace("acme")), make_key(make_workspace("globex"))
    events = AuditEvent.objects.count()
    for _ in range(5):
        assert api_get("/v1/agents", busy, ATTACKER).status_code == 200
    refused = store(busy, ATTACKER)
    assert_rate_limited(refused)
    assert "with this API key" in refused.json()["error"]["message"]
    assert not Memory.objects.exists()
    assert AuditEvent.objects.count() == events
    # Another address does not help the key; another key from the same address is fine.
    assert_rate_limited(api_get("/v1/agents", busy, ELSEWHERE))
    assert api_get("/v1/agents", calm, ATTACKER).status_code == 200
    assert store(calm, ATTACKER).status_code == 201


def test_an_address_over_its_rate_gets_429_and_health_checks_are_never_limited(db, settings):
    settings.DEWEE_RATE_LIMIT_ADDRESS = "4/m"
    key = make_key(make_workspace("acme"))
    for _ in range(4):
        assert api_get("/v1/agents", key, ATTACKER).status_code == 200
    refused = api_get("/v1/agents", key, ATTACKER)
    assert_rate_limited(refused)
    assert "from this address" in refused.json()["error"]["message"]
    assert api_get("/v1/agents", key, ELSEWHERE).status_code == 200
    for _ in range(6):
        assert Client(REMOTE_ADDR=ATTACKER).get("/healthz").status_code == 200


def test_a_limit_set_to_0_is_off(db, settings):
    settings.DEWEE_RATE_LIMIT_KEY = None  # what DEWEE_RATE_LIMIT_KEY=0 reads as
    settings.DEWEE_RATE_LIMIT_ADDRESS = None
    key = make_key(make_workspace("acme"))
    for _ in range(30):
        assert api_get("/v1/agents", key, ATTACKER).status_code == 200


# What the limiter costs ---------------------------------------------------------------------


@contextmanager
def limiter_statements(monkeypatch) -> Iterator[list[str]]:
    """The statements the block runs on the rate limits' counters: on PostgreSQL in the
    main database (the connection the counters use), on SQLite in their own file."""
    monkeypatch.setattr(rate_counters, "PURGE_EVERY", 10**9)  # no purge in the middle
    statements: list[str] = []
    store = caches["rate_limits"]
    if isinstance(store, SQLiteFileCounters):
        counters = store._connection()
        counters.set_trace_callback(statements.append)
        try:
            yield statements
        finally:
            counters.set_trace_callback(None)
        return
    with CaptureQueriesContext(connection) as captured:
        yield statements
    statements.extend(q["sql"] for q in captured.captured_queries if TABLE in q["sql"])


def test_an_api_request_runs_one_limiter_statement_per_rule(db, monkeypatch):
    key = make_key(make_workspace("acme"))
    for _ in range(2):  # the window's counters new, then there
        with limiter_statements(monkeypatch) as statements:
            assert api_get("/v1/agents", key, ATTACKER).status_code == 200
        assert len(statements) == 2, statements  # the address's rate, the key's


def test_a_failing_key_runs_one_limiter_statement_per_rule(db, monkeypatch, settings):
    settings.DEWEE_RATE_LIMIT_AUTH_FAILURES = "2/m"
    for status in (401, 401, 429, 429):
        with limiter_statements(monkeypatch) as statements:
            assert api_get("/v1/agents", "dw_wrong", ATTACKER).status_code == status
        # The address's rate, then its failed attempts: checked and counted at once.
        assert len(statements) == 2, statements


def test_an_address_over_its_rate_runs_one_limiter_statement(db, monkeypatch, settings):
    settings.DEWEE_RATE_LIMIT_ADDRESS = "1/m"
    key = make_key(make_workspace("acme"))
    assert api_get("/v1/agents", key, ATTACKER).status_code == 200
    with limiter_statements(monkeypatch) as statements:
        assert_rate_limited(api_get("/v1/agents", key, ATTACKER))
    assert len(statements) == 1, statements


# Sign-in ------------------------------------------------------------------------------------


@pytest.fixture
def operator(db):
    return get_user_model().objects.create_user(
        "ops", password="correct horse battery", is_staff=True
    )


def sign_in(client: Client, username: str, password: str):
    return client.post("/accounts/login/", {"username": username, "password": password})


def test_the_right_password_after_60_wrong_ones_is_refused_and_the_page_says_so(operator):
    browser = Client(REMOTE_ADDR=ATTACKER)
    statuses = [sign_in(browser, "ops", f"guess {n}").status_code for n in range(60)]
    assert statuses[0] == 200  # the form again, with its error
    assert statuses[-1] == 429
    refused = sign_in(browser, "ops", "correct horse battery")
    assert refused.status_code == 429
    assert int(refused["Retry-After"]) >= 1
    page = refused.content.decode()
    assert "Too many failed sign-ins" in page
    assert "even with the right password" in page
    assert "_auth_user_id" not in browser.session
    assert browser.get("/dashboard/").status_code == 302


def test_failed_sign_ins_lock_the_username_from_every_address(operator, settings):
    settings.DEWEE_SIGNIN_FAILURES_USERNAME = "10/15m"
    for n in range(10):
        answer = sign_in(Client(REMOTE_ADDR=f"192.0.2.{n}"), "OPS", "wrong")
        assert answer.status_code == 200
    assert sign_in(Client(REMOTE_ADDR=ELSEWHERE), "ops", "correct horse battery").status_code == 429
    # Someone else signs in as usual, from anywhere.
    get_user_model().objects.create_user("alice", password="another good password")
    client = Client(REMOTE_ADDR=ELSEWHERE)
    assert sign_in(client, "alice", "another good password").status_code == 302
    assert client.session["_auth_user_id"]


def test_failed_sign_ins_lock_the_address_for_every_username(operator, settings):
    settings.DEWEE_SIGNIN_FAILURES_ADDRESS = "5/15m"
    for n in range(5):
        assert sign_in(Client(REMOTE_ADDR=ATTACKER), f"user{n}", "wrong").status_code == 200
    assert sign_in(Client(REMOTE_ADDR=ATTACKER), "ops", "correct horse battery").status_code == 429
    assert sign_in(Client(REMOTE_ADDR=ELSEWHERE), "ops", "correct horse battery").status_code == 302


def test_successful_sign_ins_do_not_count(operator, settings):
    settings.DEWEE_SIGNIN_FAILURES_USERNAME = "2/15m"
    for _ in range(5):
        client = Client(REMOTE_ADDR=ATTACKER)
        assert sign_in(client, "ops", "correct horse battery").status_code == 302


def test_a_failed_sign_in_reads_each_rule_once_and_counts_it_once(operator, monkeypatch, settings):
    settings.DEWEE_SIGNIN_FAILURES_USERNAME = "1/15m"
    with limiter_statements(monkeypatch) as statements:
        assert sign_in(Client(REMOTE_ADDR=ATTACKER), "ops", "wrong").status_code == 200
    assert len(statements) == 4, statements  # address and username, before and after
    with limiter_statements(monkeypatch) as statements:
        assert sign_in(Client(REMOTE_ADDR=ATTACKER), "ops", "wrong").status_code == 429
    assert len(statements) == 2, statements  # refused: read, not counted


# The counters ---------------------------------------------------------------------------------


@pytest.mark.django_db(transaction=True)
def test_concurrent_increments_are_all_counted():
    store = caches["rate_limits"]
    assert store.add("concurrent", 0, 60)
    barrier = threading.Barrier(8)
    errors: list[BaseException] = []

    def count() -> None:
        try:
            barrier.wait()
            for _ in range(25):
                caches["rate_limits"].incr("concurrent")
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert store.get("concurrent") == 200


def test_an_expired_counter_starts_again(db):
    store = caches["rate_limits"]
    assert store.add("window", 5, 60)
    assert not store.add("window", 0, 60)
    assert store.incr("window") == 6
    store.set("old", 9, -1)  # already expired
    assert store.get("old") is None
    assert store.add("old", 0, 60)
    assert store.incr("old") == 1
    with pytest.raises(ValueError, match="not found"):
        store.incr("never-added")
    with pytest.raises(TypeError):
        store.set("text", "a value", 60)


def counters() -> Counters:
    store = caches["rate_limits"]
    assert isinstance(store, Counters)
    return store


def test_count_adds_one_starts_an_expired_counter_again_and_stops_below(db):
    store = counters()
    assert [store.count("hits", 60) for _ in range(3)] == [1, 2, 3]
    store.set("stale", 9, -1)  # already expired
    assert store.count("stale", 60, below=2) == 1
    assert store.count("stale", 60, below=2) == 2
    assert store.count("stale", 60, below=2) is None  # used up: not counted
    assert store.get("stale") == 2
    assert store.count("stale", 60) == 3


@pytest.mark.django_db(transaction=True)
def test_concurrent_counts_are_all_counted_and_none_past_the_limit():
    barrier = threading.Barrier(8)
    answers: list[int | None] = []
    errors: list[BaseException] = []

    def count() -> None:
        try:
            barrier.wait()
            for _ in range(25):
                answers.append(counters().count("racing", 60, below=150))
        except BaseException as exc:  # reported below
            errors.append(exc)
        finally:
            connection.close()

    threads = [threading.Thread(target=count) for _ in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors
    assert sorted(answer for answer in answers if answer is not None) == list(range(1, 151))
    assert answers.count(None) == 50
    assert caches["rate_limits"].get("racing") == 150


@pytest.mark.django_db(transaction=True)
def test_a_real_server_counts_failed_keys_across_its_processes(tmp_path):
    """`manage.py serve` as in production: two web processes, new connections each time,
    one count (the embedded edition's counter file, or the PostgreSQL table)."""
    server = start_server(
        tmp_path,
        DEWEE_WEB_WORKERS="2",
        DEWEE_WEB_THREADS="2",
        DEWEE_DB_POOL_SIZE="2",
        DEWEE_RATE_LIMIT_AUTH_FAILURES="20/h",
    )
    try:
        wait_until_serving(server)
        wrong = [server.request("GET", "/v1/agents", key="dw_wrong").status for _ in range(20)]
        assert wrong == [401] * 20
        refused = server.request("GET", "/v1/agents", key="dw_wrong")
        assert refused.status == 429
        assert refused.json()["error"]["code"] == "rate_limited"
        assert int(refused.headers["Retry-After"]) >= 1
        assert server.request("GET", "/healthz").status == 200
    finally:
        stop_server(server)
        print(server.tail())  # shown by pytest only when the test failed


def test_x_forwarded_for_without_a_proxy_count_is_logged_once(db, settings, caplog, monkeypatch):
    import dewee.limits

    monkeypatch.setattr(dewee.limits, "_proxy_warning_given", False)
    settings.DEWEE_PROXY_COUNT = 0
    with caplog.at_level("WARNING", logger="dewee.limits"):
        for _ in range(3):
            api_get("/v1/agents", "wrong", "10.0.0.2", **{"X-Forwarded-For": ELSEWHERE})
    warnings = [r for r in caplog.records if "DEWEE_PROXY_COUNT" in r.getMessage()]
    assert len(warnings) == 1
    assert warnings[0].levelname == "WARNING"
    # /readyz says so too, without failing: the server works, the operator should act.
    ready = Client().get("/readyz").json()
    assert ready["notices"] == [dewee.limits.PROXY_NOTICE]
    settings.DEWEE_PROXY_COUNT = 1
    assert "notices" not in Client().get("/readyz").json()
