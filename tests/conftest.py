import io
import json
import logging
import os
from urllib.parse import urlencode

import pytest
from django.conf import settings as django_settings
from django.core.cache import caches
from django.test import Client, override_settings

from dewee.rate_counters import SQLiteFileCounters
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import Agent, Workspace
from tests.factories import make_agent, make_key, make_workspace
from tests.servers import ON_SQLITE

# Playwright drives the browser from an event loop in the test thread; the test's own ORM
# calls are synchronous and safe there.
os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
CHROMIUM = os.environ.get("DEWEE_CHROMIUM", "/usr/bin/chromium")

# Modules of tests on text and code alone (extraction, language, patterns, the import rules):
# none starts a server or a command. Their tests that ask for no database run the same on
# both editions, so the PostgreSQL pass leaves them to the SQLite one (`make test` runs
# both); those that do ask for one run on both.
TEXT_ONLY_MODULES = (
    "tests/language/",
    "tests/facts/test_extraction",
    "tests/facts/test_as_people_write",
    "tests/facts/test_natural_changes.py",
    "tests/facts/test_rules.py",
    "tests/facts/test_clause_classifier.py",
    "tests/memory/test_entities.py",
    "tests/memory/test_graph_layout.py",
    "tests/memory/test_summaries.py",
    "tests/test_patterns_linear.py",
    "tests/test_import_cycles.py",
)
DATABASE_FIXTURES = {"db", "transactional_db", "django_db_reset_sequences", "live_server"}


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if ON_SQLITE:
        return
    left = []
    for item in items:
        module = item.nodeid.split("::", 1)[0]
        needs_database = item.get_closest_marker("django_db") or DATABASE_FIXTURES & set(
            getattr(item, "fixturenames", ())
        )
        if module.startswith(TEXT_ONLY_MODULES) and not needs_database:
            left.append(item)
    if left:
        config.hook.pytest_deselected(items=left)
        leaving = set(left)
        items[:] = [item for item in items if item not in leaving]


@pytest.fixture
def workspace(db) -> Workspace:
    return make_workspace("acme")


@pytest.fixture
def agent(workspace) -> Agent:
    return make_agent(workspace, "support-bot")


@pytest.fixture
def other_workspace(db) -> Workspace:
    return make_workspace("globex")


@pytest.fixture
def other_agent(other_workspace) -> Agent:
    return make_agent(other_workspace, "globex-bot")


class ApiClient:
    """A Django test client that speaks JSON with an API key."""

    def __init__(self, key: str | None) -> None:
        self.client = Client()
        self.headers = {"Authorization": f"Bearer {key}"} if key else {}

    def get(self, path: str, **params):
        return self.client.get(path, params, headers=self.headers)

    def post(self, path: str, body=None, *, raw: str | None = None):
        data = raw if raw is not None else json.dumps(body if body is not None else {})
        return self.client.post(
            path, data=data, content_type="application/json", headers=self.headers
        )

    def delete(self, path: str, **params):
        if params:
            path = f"{path}?{urlencode(params)}"
        return self.client.delete(path, headers=self.headers)


@pytest.fixture
def api(workspace) -> ApiClient:
    return ApiClient(make_key(workspace))


@pytest.fixture
def other_api(other_workspace) -> ApiClient:
    return ApiClient(make_key(other_workspace))


@pytest.fixture(autouse=True)
def _plain_static_storage(settings):
    """The manifest storage needs `collectstatic`; tests serve static files from the apps."""
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "django.contrib.staticfiles.storage.StaticFilesStorage"},
    }


@pytest.fixture(scope="session", autouse=True)
def _rate_limit_counters_of_this_run(tmp_path_factory):
    """On the embedded edition the rate limits count in a SQLite file: this test process's
    own, not var/'s. (On PostgreSQL they count in the test database.)"""
    store = django_settings.CACHES["rate_limits"]
    if store["BACKEND"] != "dewee.rate_counters.SQLiteFileCounters":
        yield
        return
    path = tmp_path_factory.mktemp("limits") / "rate-limits.sqlite3"
    with override_settings(
        CACHES={**django_settings.CACHES, "rate_limits": {**store, "LOCATION": str(path)}}
    ):
        yield


@pytest.fixture(scope="session", autouse=True)
def _fast_password_hashing():
    """Passwords hashed with one MD5 round instead of 1.5 million of PBKDF2: every signed-in
    test client and every browser sign-in hashes one, at a second or more each on a loaded
    machine. No test is about the hash's cost; the servers started in a process of their own
    keep the real hasher (no test signs in there with a user it created)."""
    with override_settings(PASSWORD_HASHERS=["django.contrib.auth.hashers.MD5PasswordHasher"]):
        yield


@pytest.fixture(autouse=True)
def _fresh_rate_limits():
    """Every test starts with no request counted (the database's counters are rolled back
    with the test's transaction; the file's are cleared)."""
    store = caches["rate_limits"]
    if isinstance(store, SQLiteFileCounters):
        store.clear()


@pytest.fixture(autouse=True)
def _graph_inline(settings):
    """A store builds its graph in its own transaction, so a test reads it at once. The
    default, the worker's job after the store, is tested on its own (test_graph_worker)."""
    settings.DEWEE_GRAPH_ON_STORE = "inline"


@pytest.fixture(scope="session")
def browser_type_launch_args(browser_type_launch_args):
    """Debian's Chromium (Playwright's own download is not available here), with everything
    that would reach out to the network switched off."""
    return {
        **browser_type_launch_args,
        "executable_path": CHROMIUM,
        "args": [
            "--headless",
            "--no-sandbox",
            "--disable-gpu",
            "--disable-quic",
            "--no-first-run",
            "--disable-background-networking",
            "--disable-component-update",
            "--disable-sync",
        ],
    }


@pytest.fixture
def log_output():
    """What the configured console handler writes."""
    [handler] = [
        h
        for h in logging.getLogger().handlers
        if isinstance(h, logging.StreamHandler) and h.get_name() == "console"
    ]
    output = io.StringIO()
    # Swapped without setStream, which flushes the stream it replaces: under pytest's
    # capture that may be a file already closed.
    previous, handler.stream = handler.stream, output
    yield output
    handler.stream = previous


@pytest.fixture
def remember(agent):
    """Store memories for ``agent`` (or another) through the real service."""

    def store(*contents, target=None, **fields):
        items = [MemoryInput(content=c, **fields) for c in contents]
        return store_memories(agent=target or agent, items=items)

    return store


@pytest.fixture
def session(agent):
    return start_session(agent=agent, user="u1")
