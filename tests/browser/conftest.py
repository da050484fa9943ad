"""Browser tests: a real Chromium, driven by Playwright, against the live server."""

import re

import pytest
from playwright.sync_api import Page

from facts.models import Fact
from tenancy.models import MemberRole, WorkspaceMember
from tests.factories import state

PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.browser


@pytest.fixture
def sign_in(live_server, page: Page, django_user_model):
    """Sign a new person in through the real login form; returns the page, on the mount
    they land on."""

    def signed_in(username: str, *, staff: bool = False, workspace=None, role=None) -> Page:
        user = django_user_model.objects.create_user(
            username=username, password=PASSWORD, is_staff=staff
        )
        if workspace is not None:
            WorkspaceMember.objects.create(user=user, workspace=workspace, role=role)
        page.goto(f"{live_server.url}/accounts/login/")
        page.get_by_label("Username").fill(username)
        page.get_by_label("Password").fill(PASSWORD)
        page.get_by_role("button", name="Sign in").click()
        # Staff land on /dashboard/, workspace members on /app/.
        page.wait_for_url(re.compile(r"/(dashboard|app)/"))
        return page

    return signed_in


@pytest.fixture
def disputed(agent) -> Fact:
    """Acme is current; Globex, less trusted, waits as a dispute."""
    state(agent, "Acme")
    return state(agent, "Globex", verification="inferred", confidence=0.6).fact


__all__ = ["PASSWORD", "MemberRole"]
