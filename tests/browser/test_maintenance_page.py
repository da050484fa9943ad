"""The Maintenance page in a real browser: Run now hands the job to the worker, and the job's
row follows the run by itself, without a reload."""

import pytest
from django_q.models import OrmQ
from django_q.signing import SignedPackage
from playwright.sync_api import expect

from memory.tasks import run_job

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_run_now_then_the_run_shows_up_without_a_reload(sign_in, live_server, agent):
    page = sign_in("ops", staff=True)
    page.goto(f"{live_server.url}/dashboard/memory/maintenance/")
    row = page.locator("#job-expiry")
    expect(row).to_contain_text("never")
    row.get_by_role("button", name="Run expiry now").click()
    expect(page.get_by_role("status")).to_contain_text("queued")
    page.evaluate("window.notReloaded = true")

    # What the worker does with the queued task.
    (task,) = [SignedPackage.loads(t.payload) for t in OrmQ.objects.all()]
    run_job(*task["args"], **task["kwargs"])

    # Its row follows the run every second: the result shows well before the whole table's
    # own 10-second refresh.
    expect(page.locator("#job-expiry")).to_contain_text("succeeded", timeout=4_000)
    expect(page.locator("#job-expiry")).to_contain_text("manual")
    assert page.evaluate("window.notReloaded") is True
