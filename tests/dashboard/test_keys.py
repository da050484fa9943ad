"""The dashboard's API keys page, with and without htmx: operators manage every workspace's
keys, a workspace's managers theirs, its viewers only look; the secret is shown once."""

import pytest

from tenancy.models import ApiKey, AuditAction, AuditEvent
from tenancy.services import create_api_key, hash_api_key
from tests.dashboard.conftest import app

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/keys/"
HTMX = {"HX-Request": "true"}


def new_key(**fields):
    return {"name": "support", "scopes": ["read", "write"], "agents": "", "expires": "", **fields}


def test_operators_see_each_workspaces_keys_by_the_picker(staff_client, workspace, other_workspace):
    create_api_key(workspace=workspace, name="acme-bot", actor="t", agent_ids=["bot-a"])
    create_api_key(workspace=other_workspace, name="globex-bot", actor="t", scopes=["admin"])
    page = staff_client.get(PAGE).content.decode()  # the first workspace by slug: acme
    assert "acme-bot" in page
    assert "globex-bot" not in page
    assert "bot-a" in page
    assert 'href="/dashboard/keys/"' in page  # in the navigation
    fragment = staff_client.get(PAGE, {"workspace": "globex"}, headers=HTMX)
    html = fragment.content.decode()
    assert "globex-bot" in html
    assert "acme-bot" not in html
    assert "<nav" not in html
    assert staff_client.get(PAGE, {"workspace": "nope"}).status_code == 404


def test_creating_a_key_shows_its_secret_once(staff_client, workspace):
    created = staff_client.post(
        f"{PAGE}create/",
        new_key(workspace="acme", scopes=["read"], agents="bot-a, bot-b", expires="30d"),
    )
    assert created.status_code == 200
    assert "no-store" in created["Cache-Control"]
    key = ApiKey.objects.get(name="support")
    secret = created.context["secret"]
    assert hash_api_key(secret) == key.key_hash
    assert secret in created.content.decode()
    assert (key.scope_names(), key.agent_ids, key.workspace.slug) == (
        ["read"],
        ["bot-a", "bot-b"],
        "acme",
    )
    assert key.expires_at is not None
    assert AuditEvent.objects.get(action=AuditAction.KEY_CREATE).actor == "operator:ops"
    assert secret not in staff_client.get(PAGE).content.decode()


def test_a_bad_key_is_refused_next_to_its_field_and_nothing_is_created(staff_client, workspace):
    refusals: list[tuple[dict[str, object], str]] = [
        ({"scopes": []}, "scopes"),
        ({"agents": "a/b"}, "agents"),
        ({"expires": "someday"}, "expires"),
        ({"expires": "2001-01-01"}, "expires"),
    ]
    for fields, field in refusals:
        page = staff_client.post(f"{PAGE}create/", new_key(workspace="acme", **fields))
        assert page.status_code == 200
        assert field in page.context["create_form"].errors, fields
    assert not ApiKey.objects.exists()


def test_revoking_asks_first_then_revokes_with_and_without_htmx(staff_client, workspace):
    key, _secret = create_api_key(workspace=workspace, name="old-bot", actor="t")
    url = f"{PAGE}{key.pk}/revoke/"
    asking = staff_client.get(url, headers=HTMX).content.decode()
    assert "Revoke <strong>old-bot</strong>?" in asking
    key.refresh_from_db()
    assert key.revoked_at is None
    done = staff_client.post(url, headers=HTMX)
    assert "revoked: it no longer works" in done.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is not None
    other, _secret = create_api_key(workspace=workspace, name="other-bot", actor="t")
    redirected = staff_client.post(f"{PAGE}{other.pk}/revoke/")
    assert redirected.status_code == 302
    assert redirected["Location"] == f"{PAGE}?workspace=acme"


def test_managers_manage_only_their_workspaces_keys(manager_client, workspace, other_workspace):
    theirs, _secret = create_api_key(workspace=other_workspace, name="globex-bot", actor="t")
    page = manager_client.get(app(PAGE))
    assert page.status_code == 200
    assert "globex-bot" not in page.content.decode()
    assert 'id="id_workspace"' not in page.content.decode()  # no picker
    created = manager_client.post(app(f"{PAGE}create/"), new_key(workspace="globex"))
    assert created.status_code == 200
    assert ApiKey.objects.get(name="support").workspace == workspace  # their own, always
    event = AuditEvent.objects.filter(action=AuditAction.KEY_CREATE).latest("id")
    assert event.actor == "operator:mia"
    assert manager_client.get(app(f"{PAGE}{theirs.pk}/revoke/")).status_code == 404
    assert manager_client.post(app(f"{PAGE}{theirs.pk}/revoke/")).status_code == 404
    theirs.refresh_from_db()
    assert theirs.revoked_at is None


def test_viewers_see_the_keys_but_cannot_create_or_revoke(viewer_client, workspace):
    key, _secret = create_api_key(workspace=workspace, name="acme-bot", actor="t")
    page = viewer_client.get(app(PAGE)).content.decode()
    assert "acme-bot" in page
    assert "Create a key" not in page
    assert "Revoke…" not in page
    assert viewer_client.post(app(f"{PAGE}create/"), new_key()).status_code == 403
    assert viewer_client.post(app(f"{PAGE}{key.pk}/revoke/")).status_code == 403
    key.refresh_from_db()
    assert key.revoked_at is None
    assert ApiKey.objects.count() == 1


def test_each_mount_is_for_its_people(staff_client, manager_client, workspace):
    assert manager_client.get(PAGE)["Location"] == app(PAGE)
    assert staff_client.get(app(PAGE))["Location"] == PAGE
