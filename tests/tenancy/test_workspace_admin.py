"""Workspaces added in the Django admin are made by create_workspace, with its slug rule;
a workspace's slug is not changed there afterwards (no service changes one)."""

import pytest

from tenancy import admin as tenancy_admin
from tenancy.models import Workspace
from tests.factories import make_workspace

pytestmark = pytest.mark.django_db
WORKSPACES = "/admin/tenancy/workspace/"


@pytest.mark.parametrize("slug", ["Acme", "-acme", "acme prod", "a" * 65])
def test_a_new_workspace_with_a_bad_slug_is_refused_on_the_form(admin_client, slug):
    refused = admin_client.post(f"{WORKSPACES}add/", {"slug": slug, "name": "Acme"})
    assert refused.status_code == 200
    form = refused.context["adminform"].form
    assert "slug" in form.errors
    assert not Workspace.objects.filter(name="Acme").exists()


def test_the_slug_rule_is_the_services_own(admin_client):
    refused = admin_client.post(f"{WORKSPACES}add/", {"slug": "Acme", "name": ""})
    (message,) = refused.context["adminform"].form.errors["slug"]
    assert message == "must be 1-64 lower-case letters, digits, '-' or '_' (e.g. acme-prod)"


def test_a_workspace_added_in_the_admin_is_created_by_the_service(admin_client, monkeypatch):
    calls = []
    create_workspace = tenancy_admin.create_workspace

    def spy(**kwargs):
        calls.append(kwargs)
        return create_workspace(**kwargs)

    monkeypatch.setattr(tenancy_admin, "create_workspace", spy)
    added = admin_client.post(f"{WORKSPACES}add/", {"slug": "acme-prod", "name": ""})
    assert added.status_code == 302
    assert calls == [{"slug": "acme-prod", "name": ""}]
    workspace = Workspace.objects.get(slug="acme-prod")
    # As the service makes it: a workspace without a name is called by its slug.
    assert workspace.name == "acme-prod"


def test_a_taken_slug_is_refused_on_the_form(admin_client):
    make_workspace("acme")
    refused = admin_client.post(f"{WORKSPACES}add/", {"slug": "acme", "name": "Again"})
    assert refused.status_code == 200
    assert "slug" in refused.context["adminform"].form.errors
    assert Workspace.objects.filter(slug="acme").count() == 1


def test_a_workspaces_slug_is_shown_not_edited_and_its_name_can_change(admin_client):
    workspace = make_workspace("acme")
    change = f"{WORKSPACES}{workspace.pk}/change/"
    page = admin_client.get(change).content.decode()
    assert 'name="slug"' not in page
    assert "acme" in page
    saved = admin_client.post(change, {"slug": "Not A Slug", "name": "Acme Inc"})
    assert saved.status_code == 302
    workspace.refresh_from_db()
    assert (workspace.slug, workspace.name) == ("acme", "Acme Inc")
