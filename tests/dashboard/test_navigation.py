"""Forget's receipt page (post, redirect, get), the status tabs kept in step with the filter
form, the second mount under /app/ and where / sends people."""

import re

import pytest
from django.core.management import call_command

from facts.models import Fact
from tenancy.models import ErasureReceipt
from tenancy.receipts import user_digest
from tests.dashboard.conftest import app
from tests.factories import state

pytestmark = pytest.mark.django_db

FORGET = "/dashboard/facts/forget/"
HTMX = {"HX-Request": "true"}
ERASE_U1 = {"agent": "support-bot", "user": "u1", "confirmation": "u1"}


def test_forget_redirects_to_the_receipt_so_a_refresh_does_not_erase_again(manager_client, agent):
    state(agent, "Acme")
    response = manager_client.post(app(FORGET), ERASE_U1)
    receipt = ErasureReceipt.objects.get()
    assert (response.status_code, response["Location"]) == (
        302,
        f"/app/receipts/{receipt.id}/",
    )
    page = manager_client.get(response["Location"])
    assert page.status_code == 200
    assert str(receipt.id) in page.text
    assert "operator:mia" in page.text
    assert page.context["receipt"]["counts"]["facts"] == 1
    assert page.context["receipt"]["scope"] == {"user_hmac": user_digest("u1")}
    fragment = manager_client.get(response["Location"], headers=HTMX)
    assert "<html" not in fragment.text
    assert str(receipt.id) in fragment.text


def test_forget_with_htmx_asks_the_browser_to_go_to_the_receipt(manager_client, agent):
    state(agent, "Acme")
    response = manager_client.post(app(FORGET), ERASE_U1, headers=HTMX)
    receipt = ErasureReceipt.objects.get()
    assert response["HX-Redirect"] == f"/app/receipts/{receipt.id}/"


def test_another_workspaces_receipt_is_404(manager_client, staff_client, other_agent):
    state(other_agent, "Globex")
    staff_client.post(FORGET, {"agent": "globex-bot", "user": "u1", "confirmation": "u1"})
    url = f"/dashboard/receipts/{ErasureReceipt.objects.get().id}/"
    assert manager_client.get(app(url)).status_code == 404
    assert staff_client.get(url).status_code == 200
    missing = "/dashboard/receipts/00000000-0000-0000-0000-000000000000/"
    assert staff_client.get(missing).status_code == 404


def test_a_tab_redraws_the_status_field_but_typing_in_the_form_does_not(staff_client, agent):
    state(agent, "Acme")
    page = staff_client.get("/dashboard/facts/", {"predicate": "employer"}).text
    tab = re.search(r'<a href="([^"]*status=disputed[^"]*)"', page)
    assert tab is not None
    assert "predicate=employer" in tab.group(1)
    fragment = staff_client.get(
        "/dashboard/facts/", {"predicate": "employer", "status": "disputed"}, headers=HTMX
    ).text
    field = re.search(
        r'<div class="field" id="field-status" hx-swap-oob="true">.*?</div>', fragment, re.S
    )
    assert field is not None
    assert '<option value="disputed" selected>' in field.group(0)
    typed = staff_client.get(
        "/dashboard/facts/",
        {"status": "disputed"},
        headers={**HTMX, "HX-Trigger": "facts-filters"},
    ).text
    assert "hx-swap-oob" not in typed


def test_app_mount_serves_members_and_keeps_its_links_and_redirects(manager_client, agent):
    state(agent, "Acme")
    disputed = state(agent, "Globex", verification="inferred").fact
    assert manager_client.get("/app/")["Location"] == "/app/inbox/"
    page = manager_client.get("/app/facts/").text
    assert "Acme" in page
    assert 'href="/app/review/"' in page
    assert "/dashboard/" not in page
    queue = manager_client.get("/app/review/").text
    assert f'action="/app/review/{disputed.pk}/resolve/"' in queue
    response = manager_client.post(f"/app/review/{disputed.pk}/resolve/", {"action": "reject"})
    assert response["Location"] == f"/app/review/?undo={disputed.pk}"
    response = manager_client.post(f"/app/facts/{disputed.pk}/delete/", {"reason": "wrong"})
    assert response["Location"] == f"/app/facts/{disputed.pk}/"
    erased = manager_client.post("/app/facts/forget/", ERASE_U1)
    assert erased["Location"].startswith("/app/receipts/")
    assert not Fact.objects.exists()


def test_app_mount_is_scoped_like_the_dashboard(manager_client, other_agent):
    theirs = state(other_agent, "Globex").fact
    assert manager_client.get(f"/app/facts/{theirs.pk}/").status_code == 404


def test_root_sends_each_person_to_their_place(client, staff_client, manager_client):
    assert client.get("/")["Location"] == "/accounts/login/"
    assert staff_client.get("/")["Location"] == "/dashboard/"
    assert manager_client.get("/")["Location"] == "/app/"


def test_the_two_mounts_raise_no_url_warnings():
    call_command("check", "--fail-level", "WARNING")
