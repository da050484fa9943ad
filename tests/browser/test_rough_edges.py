"""The rough edges of a first walk, in a real browser: times in the viewer's zone, the As-of
input whole at 1280 px, the favicon, and an htmx action after the session expired."""

import re

import pytest
from playwright.sync_api import Page, expect

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

# The input's box against its field's, and against the width the same input takes when
# nothing constrains it (an input clips what does not fit rather than scroll it: its
# scrollWidth does not tell).
AS_OF_BOX = """() => {
  const input = document.querySelector("#id_as_of");
  const field = input.closest(".field").getBoundingClientRect();
  const box = input.getBoundingClientRect();
  const free = input.cloneNode();
  free.removeAttribute("id");
  free.style.cssText = "position: absolute; width: max-content; min-width: 0; max-width: none";
  document.body.append(free);
  const natural = free.getBoundingClientRect().width;
  free.remove();
  return {inside: box.left >= field.left - 0.5 && box.right <= field.right + 0.5,
          whole: box.width + 0.5 >= natural, width: box.width, natural: natural};
}"""


@pytest.mark.browser_context_args(timezone_id="Asia/Tokyo", viewport={"width": 1280, "height": 900})
def test_a_first_walk_has_no_rough_edges(sign_in, live_server, disputed):
    page: Page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/facts/")
    box = page.evaluate(AS_OF_BOX)
    assert box["inside"], box
    assert box["whole"], box

    # The browser told the server its zone: times are in it, the UTC time on hover.
    cookies = {cookie["name"]: cookie["value"] for cookie in page.context.cookies()}
    assert cookies["tz"] == "Asia/Tokyo"
    recorded = page.locator("#facts-table time").first
    expect(recorded).to_have_text(re.compile(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d JST$"))
    expect(recorded).to_have_attribute("title", re.compile(r" UTC$"))
    expect(recorded).to_have_attribute("datetime", re.compile(r"Z$"))

    icon = page.locator('head link[rel="icon"]').get_attribute("href")
    assert icon is not None
    assert page.request.get(f"{live_server.url}{icon}").ok
    legacy = page.request.get(f"{live_server.url}/favicon.ico")
    assert legacy.ok
    assert legacy.headers["content-type"].startswith("image/svg+xml")

    # The session expires while the review queue is open: Accept goes to the sign-in page,
    # whole, and back to the queue after signing in, instead of a sign-in form in the item.
    page.goto(f"{live_server.url}/dashboard/review/")
    page.context.clear_cookies(name="sessionid")
    item = page.locator(".review-item").first
    item.get_by_role("button", name=re.compile("^Accept")).click()
    page.wait_for_url(re.compile(r"/accounts/login/\?next=/dashboard/review/$"))
    expect(page.locator("form input[name=username]")).to_have_count(1)
    expect(page.locator(".review-item")).to_have_count(0)
