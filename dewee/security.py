"""What `manage.py check --deploy` says about Dewee's own production switches, in the names an
operator sets (environment variables), not in Django's setting names. See docs/SECURITY.md."""

import os
from typing import Any

from django.conf import settings
from django.core import checks

LOOPBACK_HOSTS = {"127.0.0.1", "localhost", "[::1]"}


def check_secure_deployment(app_configs: Any = None, **kwargs: Any) -> list[checks.CheckMessage]:
    if not settings.DEWEE_SECURE:
        return [
            checks.Warning(
                "DEWEE_SECURE is not set: no redirect to HTTPS, no HSTS, and the session and "
                "CSRF cookies may travel over plain http.",
                hint="Serve Dewee over HTTPS through a reverse proxy that sets "
                "X-Forwarded-Proto, then set DEWEE_SECURE=true (docs/SECURITY.md).",
                id="dewee.W301",
            )
        ]
    found: list[checks.CheckMessage] = []
    if set(settings.ALLOWED_HOSTS) <= LOOPBACK_HOSTS:
        found.append(
            checks.Warning(
                "DEWEE_ALLOWED_HOSTS is not set: Dewee answers only to "
                f"{', '.join(settings.ALLOWED_HOSTS)}, and refuses (400) a request for any "
                "other host name.",
                hint="Set DEWEE_ALLOWED_HOSTS to the host names clients use, comma-separated "
                "(DEWEE_ALLOWED_HOSTS=memory.example.com).",
                id="dewee.W302",
            )
        )
    if not os.environ.get("DEWEE_SECRET_KEY"):
        found.append(
            checks.Warning(
                "DEWEE_SECRET_KEY is not set: the secret key was generated into "
                f"{settings.VAR_DIR / 'secret_key'}, on this host only.",
                hint="Give every process of the deployment the same key from your secret "
                "store in DEWEE_SECRET_KEY (50 or more random characters), so that sessions "
                "work on every web host and survive a rebuild of the data folder.",
                id="dewee.W303",
            )
        )
    return found
