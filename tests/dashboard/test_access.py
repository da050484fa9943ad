"""access_for_user: one Access per kind of person, tested once per role."""

import pytest

from tenancy.access import access_for_user
from tenancy.exceptions import WorkspaceNotFound
from tenancy.models import MemberRole, WorkspaceMember
from tests.dashboard.conftest import member

pytestmark = pytest.mark.django_db


def test_staff_sees_every_workspace_and_may_act(staff, agent, other_agent):
    access = access_for_user(staff)
    assert (access.workspace, access.can_act, access.actor) == (None, True, "operator:ops")
    assert set(access.agents()) == {agent, other_agent}


def test_staff_may_narrow_to_one_workspace(staff, agent, other_agent, other_workspace):
    assert list(access_for_user(staff, other_workspace).agents()) == [other_agent]


def test_manager_sees_only_their_workspace_and_may_act(manager, workspace, agent, other_agent):
    access = access_for_user(manager)
    assert (access.workspace, access.can_act) == (workspace, True)
    assert list(access.agents()) == [agent]


def test_viewer_sees_their_workspace_but_may_not_act(viewer, workspace, agent):
    access = access_for_user(viewer)
    assert (access.workspace, access.can_act) == (workspace, False)
    assert list(access.agents()) == [agent]


def test_member_cannot_pick_a_workspace_they_do_not_belong_to(manager, other_workspace):
    with pytest.raises(WorkspaceNotFound):
        access_for_user(manager, other_workspace)


def test_member_of_two_workspaces_picks_one(django_user_model, workspace, other_workspace):
    user = member(django_user_model, workspace, MemberRole.VIEWER, "two")
    WorkspaceMember.objects.create(user=user, workspace=other_workspace, role=MemberRole.MANAGER)
    assert access_for_user(user).workspace == workspace
    picked = access_for_user(user, other_workspace)
    assert (picked.workspace, picked.can_act) == (other_workspace, True)


def test_anyone_else_finds_nothing(django_user_model, workspace):
    stranger = django_user_model.objects.create_user(username="stranger", password="pw")
    with pytest.raises(WorkspaceNotFound):
        access_for_user(stranger)
    inactive = member(django_user_model, workspace, MemberRole.MANAGER, "gone")
    inactive.is_active = False
    with pytest.raises(WorkspaceNotFound):
        access_for_user(inactive)


# Which mount each kind of person uses: one test per role, through the real sign-in form.


def sign_in(client, username: str):
    """Signs in through the login form and follows every redirect; returns the last page."""
    return client.post("/accounts/login/", {"username": username, "password": "pw"}, follow=True)


def test_staff_lands_on_the_dashboard_and_is_sent_there_from_the_app(client, staff, agent):
    page = sign_in(client, "ops")
    assert page.redirect_chain[-1][0] == "/dashboard/inbox/"
    assert 'href="/dashboard/members/"' in page.text
    response = client.get("/app/memory/sessions/", {"agent": "support-bot"})
    assert response["Location"] == "/dashboard/memory/sessions/?agent=support-bot"
    assert client.post("/app/facts/forget/").status_code == 403
    assert client.get("/dashboard/members/").status_code == 200


def test_manager_lands_on_the_app_and_is_sent_there_from_the_dashboard(client, manager, agent):
    page = sign_in(client, "mia")
    assert page.redirect_chain[-1][0] == "/app/inbox/"
    assert "Nothing needs you now." in page.text
    assert "/dashboard/" not in page.text
    assert client.get("/dashboard/facts/7/")["Location"] == "/app/facts/7/"
    assert client.get("/dashboard/memory/", {"q": "tea"})["Location"] == "/app/memory/?q=tea"
    # The Members page's twin is their workspace's Members page.
    assert client.get("/dashboard/members/")["Location"] == "/app/members/"
    assert client.post("/dashboard/members/add/", {"workspace": "acme"}).status_code == 403
    assert not WorkspaceMember.objects.exclude(user=manager).exists()


def test_viewer_lands_on_the_app_read_only(client, viewer, agent):
    page = sign_in(client, "vic")
    assert page.redirect_chain[-1][0] == "/app/facts/"
    assert "read only" in page.text
    assert client.get("/dashboard/review/")["Location"] == "/app/review/"
    assert client.post("/app/facts/forget/", {"agent": "support-bot"}).status_code == 403


def test_someone_of_no_workspace_is_told_whom_to_ask(client, django_user_model, staff, agent):
    staff.email = "ops@example.com"
    staff.save(update_fields=["email"])
    django_user_model.objects.create_user(username="newbie", password="pw")
    page = sign_in(client, "newbie")
    assert page.status_code == 403
    assert page.redirect_chain[-1][0] == "/app/"
    assert "You have no workspace yet" in page.text
    assert "mailto:ops@example.com" in page.text
    assert "newbie" in page.text
    assert "support-bot" not in page.text
    assert client.get("/dashboard/facts/")["Location"] == "/app/facts/"
    for url in ("/app/memory/", "/app/memory/sessions/", "/app/review/"):
        assert "You have no workspace yet" in client.get(url).text
    assert client.post("/app/facts/forget/", {"agent": "support-bot"}).status_code == 403
