"""Sign-in in a real browser: after too many wrong passwords the page says plainly that
sign-in is paused, and the right password does not get in."""

import pytest
from playwright.sync_api import Page, expect

from tests.browser.conftest import PASSWORD

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_right_password_after_too_many_wrong_ones_is_refused_with_a_plain_message(
    live_server, page: Page, django_user_model, settings
):
    settings.DEWEE_SIGNIN_FAILURES_USERNAME = "3/15m"
    django_user_model.objects.create_user(username="ops", password=PASSWORD, is_staff=True)
    page.goto(f"{live_server.url}/accounts/login/")

    def attempt(password: str) -> None:
        page.get_by_label("Username").fill("ops")
        page.get_by_label("Password").fill(password)
        page.get_by_role("button", name="Sign in").click()

    for n in range(3):
        attempt(f"wrong {n}")
        expect(page.get_by_role("alert")).to_contain_text("enter a correct username")
    attempt(PASSWORD)
    alert = page.get_by_role("alert")
    expect(alert).to_contain_text("Too many failed sign-ins")
    expect(alert).to_contain_text("even with the right password")
    expect(page.get_by_label("Username")).to_have_value("ops")
    page.goto(f"{live_server.url}/dashboard/")
    expect(page).to_have_url(f"{live_server.url}/accounts/login/?next=/dashboard/")
