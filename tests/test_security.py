"""The hardened deployment (docs/SECURITY.md): the Content-Security-Policy, the API docs from
our own static files, the DEWEE_SECURE switch and its deploy checks, and a private database."""

import json
import os
import re
import stat
import subprocess
import sys
from pathlib import Path

import pytest
from django.core.management import call_command
from django.test import Client

from tests.servers import BASE_DIR

# The environment of `make run` or of a production host: none of the test run's settings.
PLAIN_ENV = {
    k: v
    for k, v in os.environ.items()
    if not k.startswith(("DEWEE_", "DATABASE_URL", "PYTEST", "DJANGO_"))
}


def _policy(response) -> dict[str, str]:
    header = response["Content-Security-Policy"]
    return dict(part.strip().split(" ", 1) for part in header.split(";"))


@pytest.mark.django_db
@pytest.mark.parametrize("path", ["/accounts/login/", "/v1/docs", "/v1/no-such-route"])
def test_every_response_carries_the_strict_content_security_policy(path):
    policy = _policy(Client().get(path))
    assert policy["default-src"] == "'self'"
    assert policy["script-src"] == "'self'"
    assert policy["object-src"] == "'none'"
    assert policy["base-uri"] == "'none'"
    assert policy["frame-ancestors"] == "'none'"
    assert policy["form-action"] == "'self'"
    assert policy["img-src"] == "'self' data:"
    # Styles: our own files, and the inline styles of Django's admin that carry this
    # response's nonce; never 'unsafe-inline'.
    assert re.fullmatch(r"'self'( 'nonce-[\w-]+')?", policy.get("style-src", "'self'"))


@pytest.mark.django_db
def test_pages_tell_htmx_to_insert_no_style_and_to_evaluate_no_script():
    page = Client().get("/accounts/login/").content.decode()
    [config] = re.findall(r"<meta name=\"htmx-config\" content='([^']*)'>", page)
    assert json.loads(config) == {
        "includeIndicatorStyles": False,
        "allowEval": False,
        "allowScriptTags": False,
    }
    assert "<style" not in page
    assert re.findall(r"<script(?![^>]*\bsrc=)", page) == []


@pytest.mark.django_db
def test_the_api_docs_load_swagger_ui_from_our_own_static_files():
    page = Client().get("/v1/docs").content.decode()
    assets = re.findall(r'(?:src|href)="([^"]+)"', page)
    assert "/static/ninja/swagger-ui-bundle.js" in assets
    assert "/static/ninja/swagger-ui.css" in assets
    assert [url for url in assets if not url.startswith("/static/ninja/")] == []
    assert "cdn" not in page.lower()


@pytest.mark.django_db
def test_whitenoise_serves_the_api_docs_swagger_ui_after_collectstatic(settings, tmp_path):
    """As in production: the manifest storage, collectstatic, then WhiteNoise serves the
    files the docs page names (only the docs' own app is collected, to keep this fast)."""
    settings.STATIC_ROOT = tmp_path / "static"
    settings.STORAGES = {
        **settings.STORAGES,
        "staticfiles": {"BACKEND": "whitenoise.storage.CompressedManifestStaticFilesStorage"},
    }
    others = ["admin", "django_htmx", "dewee"]
    call_command("collectstatic", interactive=False, verbosity=0, ignore_patterns=others)

    client = Client()  # a new handler: WhiteNoise reads STATIC_ROOT when it starts
    page = client.get("/v1/docs").content.decode()
    [bundle] = re.findall(r'src="(/static/ninja/swagger-ui-bundle\.[0-9a-f]{12}\.js)"', page)
    served = client.get(bundle)
    assert served.status_code == 200
    assert "immutable" in served["Cache-Control"]  # WhiteNoise's answer for a hashed name
    assert b"SwaggerUIBundle" in served.getvalue()


def test_the_embedded_database_and_its_folder_are_private_from_the_first_start(tmp_path):
    """What `make run` does first, on a host that has never run Dewee."""
    var = tmp_path / "fresh" / "var"
    run = subprocess.run(
        [sys.executable, "manage.py", "migrate", "-v0"],
        cwd=BASE_DIR,
        env={**PLAIN_ENV, "DEWEE_VAR_DIR": str(var)},
        capture_output=True,
        text=True,
        umask=0o022,
        timeout=120,
    )
    assert run.returncode == 0, run.stderr

    def mode(path: Path) -> int:
        return stat.S_IMODE(path.stat().st_mode)

    assert mode(var) == 0o700
    assert mode(var / "dewee.sqlite3") == 0o600
    assert mode(var / "secret_key") == 0o600
    assert {p.name: mode(p) for p in var.iterdir() if mode(p) & 0o077} == {}
