"""The application log keeps no value that a database error names: PostgreSQL's DETAIL
line of a unique violation holds the key's values (docs/PRIVACY.md, "Logs"); and no
person's id from a path."""

import json
import logging
import os
import subprocess
import sys

import pytest
from django.conf import settings
from django.db import IntegrityError, connection, transaction

from dewee.logs import masked_path
from tests.conftest import ApiClient
from tests.factories import make_key

postgres_only = pytest.mark.skipif(
    connection.vendor != "postgresql", reason="SQLite's errors name no values"
)


def _unique_violation(value: str) -> IntegrityError:
    with connection.cursor() as cursor:
        cursor.execute("CREATE TEMP TABLE IF NOT EXISTS person (name text UNIQUE)")
        cursor.execute("INSERT INTO person VALUES (%s)", [value])
        with pytest.raises(IntegrityError) as raised, transaction.atomic():
            cursor.execute("INSERT INTO person VALUES (%s)", [value])
    # What PostgreSQL says, and what must not be logged.
    assert value in str(raised.value)
    return raised.value


@postgres_only
@pytest.mark.django_db
def test_an_unexpected_database_error_is_logged_without_the_values_it_names(log_output):
    error = _unique_violation("ana.lopez@example.com")
    try:
        raise error
    except IntegrityError:
        logging.getLogger("dewee.api").exception("Unhandled error in POST /v1/memories")
    logging.getLogger("facts.learning").warning("facts not learned: %s", error)

    logged = log_output.getvalue()
    assert "Unhandled error in POST /v1/memories" in logged
    assert "duplicate key value violates unique constraint" in logged
    assert "Traceback" in logged
    assert "ana.lopez" not in logged


@pytest.mark.django_db
def test_a_refused_export_is_logged_with_the_persons_id_masked(log_output, workspace):
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    assert reader.get("/v1/people/ana.lopez@example.com/export").status_code == 403
    logged = log_output.getvalue()
    assert "/v1/people/***/export" in logged
    assert "ana.lopez" not in logged


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/app/members/999999/remove/", "/dashboard/facts/"])
def test_a_refused_dashboard_request_is_one_line_without_a_traceback(
    caplog, log_output, django_user_model, workspace, path
):
    """A viewer asking for what they may not do (403), or a page that is not there (404),
    is logged as one warning line, not a traceback."""
    from django.test import Client

    from tests.dashboard.conftest import member, signed_in

    client: Client = signed_in(member(django_user_model, workspace, "viewer", "vic"))
    with caplog.at_level(logging.INFO):
        response = client.post(path)
    assert response.status_code == 403
    refused = [r for r in caplog.records if r.name.startswith("django.")]
    assert len(refused) == 1
    assert refused[0].levelname == "WARNING"
    assert refused[0].exc_info is None
    assert "Traceback" not in caplog.text
    assert "Traceback" not in log_output.getvalue()


@pytest.mark.parametrize(
    ("path", "masked"),
    [
        ("/v1/people/ana.lopez/export", "/v1/people/***/export"),
        ("/v1/people//ana.lopez/export", "/v1/people//***/export"),
        ("/v1//people/ana.lopez/export", "/v1//people/***/export"),
        ("/v1/people/team/ana.lopez/export", "/v1/people/***/export"),
        ("/v1/people/ana lopez/export", "/v1/people/***/export"),
        ("/v1/people%2Fana.lopez/export", "/v1/people/***/export"),
        ("/v1/people/ana.lopez%40example.com/export/", "/v1/people/***/export/"),
        ("/V1/People/ana.lopez/export", "/V1/People/***/export"),
        ("/v1/people/ana.lopez", "/v1/people/***"),
        ("GET /v1/people//ana.lopez/export HTTP/1.1", "GET /v1/people//***/export HTTP/1.1"),
        ("GET /v1/people/team%2Fana.lopez/export HTTP/1.1", "GET /v1/people/***/export HTTP/1.1"),
        # No one's id in these.
        ("/v1/people/forget", "/v1/people/forget"),
        ("/dashboard/memory/people/export/", "/dashboard/memory/people/export/"),
        ("/v1/memories/12", "/v1/memories/12"),
    ],
)
def test_every_form_of_a_persons_path_is_masked(path, masked):
    assert masked_path(path) == masked
    assert "ana.lopez" not in masked_path(path)


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/v1/people//ana.lopez/export", "/v1//people/ana.lopez/export"])
def test_a_refused_export_by_an_odd_path_is_logged_masked_too(log_output, workspace, path):
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    assert reader.get(path).status_code in (403, 404)
    logged = log_output.getvalue()
    assert "/***" in logged
    assert "ana.lopez" not in logged


def test_json_logs_are_one_object_a_line_with_ids_masked(tmp_path):
    """DEWEE_LOG_FORMAT=json, as a process of the server starts with it."""
    script = (
        "import django, logging; django.setup(); "
        "log = logging.getLogger('dewee.test'); "
        "log.warning('not found: GET /v1/people/ana.lopez/export', extra={'status_code': 404}); "
        "exec('try:\\n 1/0\\nexcept ZeroDivisionError:\\n log.exception(\"boom\")')"
    )
    done = subprocess.run(
        [sys.executable, "-c", script],
        cwd=settings.BASE_DIR,
        env={**os.environ, "DEWEE_LOG_FORMAT": "json", "DJANGO_SETTINGS_MODULE": "dewee.settings"},
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    lines = [json.loads(line) for line in done.stderr.splitlines() if line.startswith("{")]
    warning, error = lines[-2:]
    assert warning["level"] == "warning"
    assert warning["logger"] == "dewee.test"
    assert warning["message"] == "not found: GET /v1/people/***/export"
    assert warning["status_code"] == 404
    assert "ana.lopez" not in done.stderr
    assert error["message"] == "boom"
    assert "ZeroDivisionError" in error["exception"]
