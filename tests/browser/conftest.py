"""Browser tests: a real Chromium, driven by Playwright, against the live server."""

import re

import pytest
from playwright.sync_api import Page

from facts.models import Fact
from tenancy.models import MemberRole, WorkspaceMember
from tests.factories import state

PASSWORD = "correct horse battery staple"

pytestmark = pytest.mark.browser


# Chromium reports a refused resource on the console; the page's own event is reported there
# too, so that nothing the Content-Security-Policy blocks goes unseen.
REPORT_VIOLATIONS = """
document.addEventListener("securitypolicyviolation", (event) => {
  const what = event.blockedURI || "inline";
  console.error(`CSP violation: ${event.violatedDirective} blocked ${what}`);
});
"""


@pytest.fixture(autouse=True)
def csp_violations(page: Page):
    """Every browser test fails on anything the Content-Security-Policy refused."""
    refused: list[str] = []
    page.add_init_script(REPORT_VIOLATIONS)
    page.on(
        "console",
        lambda message: (
            refused.append(message.text)
            if "Content Security Policy" in message.text or "CSP violation" in message.text
            else None
        ),
    )
    yield refused
    assert refused == [], "the page broke its Content-Security-Policy"


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
