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
SECRET = "a-real-secret-key-given-by-the-environment-" + "x7Qp2Lm9Zr4Tb8Wc1Vn6Hd3Kf5Js0Ga"


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


def _run(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, *args],
        cwd=BASE_DIR,
        env={**PLAIN_ENV, **env},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_check_deploy_is_clean_with_the_secure_switch_and_names_what_is_missing(tmp_path):
    var = str(tmp_path / "var")
    runs = {
        name: subprocess.Popen(
            [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
            cwd=BASE_DIR,
            env={**PLAIN_ENV, "DEWEE_VAR_DIR": var, **env},
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        for name, env in {
            "complete": {
                "DEWEE_SECURE": "true",
                "DEWEE_SECRET_KEY": SECRET,
                "DEWEE_ALLOWED_HOSTS": "memory.example.com",
            },
            "neither": {"DEWEE_SECURE": "true"},
            "not secure": {"DEWEE_SECRET_KEY": SECRET, "DEWEE_ALLOWED_HOSTS": "m.example.com"},
        }.items()
    }
    out = {name: (run.wait(timeout=120), run.communicate()[0]) for name, run in runs.items()}

    assert out["complete"] == (0, "System check identified no issues (1 silenced).\n"), out
    code, text = out["neither"]
    assert code == 1
    assert re.findall(r"\((\w+\.[EW]\d+)\)", text) == ["dewee.W302", "dewee.W303"]
    assert "DEWEE_ALLOWED_HOSTS is not set" in text
    assert "DEWEE_SECRET_KEY is not set" in text
    code, text = out["not secure"]
    assert code == 1
    assert "dewee.W301" in text
    assert "DEWEE_SECURE is not set" in text


SECURE_CLIENT = """
import json, django
django.setup()
from django.test import Client
from django.test.utils import setup_test_environment
setup_test_environment()
client = Client()
plain = client.get("/accounts/login/")
https = client.get("/accounts/login/", headers={"X-Forwarded-Proto": "https"})
print(json.dumps({
    "plain": [plain.status_code, plain.get("Location")],
    "https": [https.status_code, https.get("Strict-Transport-Security")],
    "cookie_secure": bool(https.cookies["csrftoken"]["secure"]),
    "healthz": client.get("/healthz").status_code,
}))
"""


def test_the_secure_switch_redirects_to_https_sends_hsts_and_secure_cookies(tmp_path):
    run = _run(
        "-c",
        SECURE_CLIENT,
        DJANGO_SETTINGS_MODULE="dewee.settings",
        DEWEE_VAR_DIR=str(tmp_path / "var"),
        DEWEE_SECURE="true",
        DEWEE_STATICFILES_STORAGE="django.contrib.staticfiles.storage.StaticFilesStorage",
    )
    assert run.returncode == 0, run.stderr
    seen = json.loads(run.stdout)
    assert seen["plain"] == [301, "https://testserver/accounts/login/"]
    assert seen["https"] == [200, "max-age=31536000; includeSubDomains"]
    assert seen["cookie_secure"] is True
    # Probes reach the process directly, over http.
    assert seen["healthz"] == 200


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
