"""Inviting people in one step, their one-time sign-in link, the workspace switcher of a
member of several workspaces, and role changes that take effect on the next request."""

import json
from datetime import timedelta

import pytest
from django.contrib.auth import get_user_model
from django.test import Client

from dewee.cli import main
from dewee.errors import InvalidInput
from tenancy.exceptions import MemberExists
from tenancy.invites import make_invite
from tenancy.models import AuditEvent, MemberRole, WorkspaceMember
from tenancy.services import change_member_role, invite_member
from tests.dashboard.conftest import member, signed_in

pytestmark = pytest.mark.django_db

NEW_PASSWORD = "a long and new passphrase 7"


def roles(workspace) -> dict[str, str]:
    members = WorkspaceMember.objects.filter(workspace=workspace).select_related("user")
    return {m.user.username: m.role for m in members}


def link_path(uid: str, token: str) -> str:
    return f"/accounts/invite/{uid}/{token}/"


def set_password(client: Client, path: str):
    client.get(path)
    return client.post(
        "/accounts/invite/password/",
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
    )


# --- the service ---


def test_inviting_a_new_person_creates_an_account_without_a_password(workspace):
    invitation = invite_member(
        workspace=workspace, username="nina", email="nina@example.com", role="manager", actor="ops"
    )
    user = get_user_model().objects.get(username="nina")
    assert (invitation.created, user.email, user.has_usable_password()) == (
        True,
        "nina@example.com",
        False,
    )
    assert invitation.link is not None
    assert roles(workspace) == {"nina": "manager"}
    event = AuditEvent.objects.get(action="member.add")
    assert (event.actor, event.details["user"], event.details["invited"]) == ("ops", "nina", True)
    assert event.details["created"] is True


def test_inviting_an_existing_account_adds_it_without_a_link(workspace, other_workspace, manager):
    invitation = invite_member(
        workspace=other_workspace, username="mia", role="viewer", actor="ops"
    )
    assert (invitation.created, invitation.link) == (False, None)
    assert roles(other_workspace) == {"mia": "viewer"}
    with pytest.raises(MemberExists):
        invite_member(workspace=workspace, username="mia", role="viewer", actor="ops")


@pytest.mark.parametrize(
    ("username", "email", "role", "field"),
    [
        ("has space", "", "viewer", "username"),
        ("", "", "viewer", "username"),
        ("ok", "not-an-email", "viewer", "email"),
        ("ok", "", "owner", "role"),
    ],
)
def test_bad_invitations_write_nothing(workspace, username, email, role, field):
    with pytest.raises(InvalidInput) as bad:
        invite_member(workspace=workspace, username=username, email=email, role=role, actor="x")
    assert bad.value.details == {"field": field}
    assert not get_user_model().objects.exists()
    assert not AuditEvent.objects.exists()


# --- the link ---


def test_the_link_signs_in_once_and_lands_in_the_workspace(client, workspace, agent):
    invitation = invite_member(workspace=workspace, username="nina", role="viewer", actor="ops")
    assert invitation.link is not None
    path = link_path(*invitation.link)
    opened = client.get(path)
    assert opened["Location"] == "/accounts/invite/password/"
    form = client.get(opened["Location"])
    assert "Welcome, nina" in form.text
    done = client.post(
        "/accounts/invite/password/",
        {"new_password1": NEW_PASSWORD, "new_password2": NEW_PASSWORD},
        follow=True,
    )
    assert done.redirect_chain[-1][0] == "/app/facts/"
    assert "nina · acme · read only" in " ".join(done.text.split())
    assert get_user_model().objects.get(username="nina").check_password(NEW_PASSWORD)
    # Used: the link is spent, in this browser or any other.
    again = Client()
    spent = again.get(path)
    assert spent.status_code == 400
    assert "no longer works" in spent.text
    assert again.get("/accounts/invite/password/").status_code == 400


def test_mismatched_passwords_are_told_and_the_link_stays_good(client, workspace):
    invitation = invite_member(workspace=workspace, username="nina", role="viewer", actor="ops")
    assert invitation.link is not None
    client.get(link_path(*invitation.link))
    wrong = client.post(
        "/accounts/invite/password/", {"new_password1": NEW_PASSWORD, "new_password2": "nope"}
    )
    assert wrong.status_code == 200
    assert wrong.context["form"].errors
    assert set_password(Client(), link_path(*invitation.link)).status_code == 302


def test_the_link_lapses_after_the_invitation_hours(client, workspace, settings, monkeypatch):
    invitation = invite_member(workspace=workspace, username="nina", role="viewer", actor="ops")
    assert invitation.link is not None
    settings.DEWEE_INVITE_HOURS = 1
    import tenancy.invites as invites

    later = invites._InviteTokens()._now() + timedelta(hours=1, minutes=1)
    monkeypatch.setattr(invites._InviteTokens, "_now", lambda self: later)
    assert client.get(link_path(*invitation.link)).status_code == 400
    settings.DEWEE_INVITE_HOURS = 2
    assert client.get(link_path(*invitation.link)).status_code == 302


def test_forged_and_malformed_links_are_refused(client, workspace, manager):
    uid, token = make_invite(manager)
    assert client.get(link_path(uid, token[:-2] + "xx")).status_code == 400
    assert client.get(link_path("zz", token)).status_code == 400
    assert client.get(link_path(uid, "nonsense")).status_code == 400
    assert client.get("/accounts/invite/password/").status_code == 400


# --- the Members page ---


def test_staff_invite_shows_the_link_once(staff_client, workspace):
    page = staff_client.post(
        "/dashboard/members/add/",
        {"workspace": "acme", "login": "nina", "email": "", "role": "manager"},
    )
    assert page.status_code == 200
    assert "nina added to acme as manager." in page.text
    assert "http://testserver/accounts/invite/" in page.context["invite_link"]
    assert "no-store" in page["Cache-Control"]
    assert "/accounts/invite/" not in staff_client.get("/dashboard/members/").text
    assert roles(workspace) == {"nina": "manager"}


def test_managers_invite_to_their_own_workspace_only(
    manager_client, workspace, other_workspace, django_user_model
):
    gus = member(django_user_model, other_workspace, MemberRole.MANAGER, "gus")
    answer = manager_client.post(
        "/app/members/add/", {"workspace": "globex", "login": "nina", "role": "viewer"}
    )
    assert answer.status_code == 200
    assert roles(workspace) == {"mia": "manager", "nina": "viewer"}
    assert roles(other_workspace) == {"gus": "manager"}
    theirs = WorkspaceMember.objects.get(user=gus)
    assert manager_client.post(f"/app/members/{theirs.pk}/remove/").status_code == 404
    assert (
        manager_client.post(f"/app/members/{theirs.pk}/role/", {"role": "viewer"}).status_code
        == 404
    )
    assert roles(other_workspace) == {"gus": "manager"}
    page = manager_client.get("/app/members/", {"workspace": "globex"})
    assert [m.user.username for m in page.context["members"]] == ["mia", "nina"]


def test_bad_invitation_errors_are_next_to_their_field(staff_client, workspace, manager):
    bad = staff_client.post(
        "/dashboard/members/add/",
        {"workspace": "acme", "login": "has space", "email": "x@example.com", "role": "viewer"},
    )
    assert "letters, digits" in bad.context["add_form"].errors["login"][0]
    twice = staff_client.post(
        "/dashboard/members/add/", {"workspace": "acme", "login": "mia", "role": "viewer"}
    )
    assert twice.context["add_form"].errors == {"login": ["mia is already a member of acme"]}
    assert roles(workspace) == {"mia": "manager"}
    assert get_user_model().objects.count() == 2


# --- the workspace switcher ---


def test_a_member_of_two_workspaces_switches_between_them(
    workspace, other_workspace, agent, other_agent, django_user_model
):
    both = member(django_user_model, workspace, MemberRole.VIEWER, "bo")
    WorkspaceMember.objects.create(user=both, workspace=other_workspace, role=MemberRole.MANAGER)
    client = signed_in(both)
    first = client.get("/app/facts/")
    assert first.context["access"].workspace == workspace
    assert 'action="/accounts/workspace/"' in first.text
    switched = client.post("/accounts/workspace/", {"workspace": "globex"})
    assert switched["Location"] == "/app/"
    page = client.get("/app/facts/")
    assert (page.context["access"].workspace, page.context["access"].can_act) == (
        other_workspace,
        True,
    )
    assert "globex-bot" in page.text
    # Not theirs, or not a workspace: not found, and the choice stays.
    assert client.post("/accounts/workspace/", {"workspace": "nope"}).status_code == 404
    assert client.get("/app/facts/").context["access"].workspace == other_workspace
    # Removed from the chosen one: back to the one left, safely.
    WorkspaceMember.objects.filter(user=both, workspace=other_workspace).delete()
    assert client.get("/app/facts/").context["access"].workspace == workspace


def test_a_member_cannot_switch_to_a_workspace_not_theirs(viewer_client, other_workspace):
    assert viewer_client.post("/accounts/workspace/", {"workspace": "globex"}).status_code == 404
    page = viewer_client.get("/app/facts/")
    assert page.context["access"].workspace.slug == "acme"
    assert 'action="/accounts/workspace/"' not in page.text  # one workspace: no switcher


# --- roles take effect at once ---


def test_a_demoted_manager_can_no_longer_act_on_the_next_request(manager_client, manager, agent):
    assert manager_client.get("/app/members/").status_code == 200
    change_member_role(member=WorkspaceMember.objects.get(user=manager), role="viewer", actor="ops")
    assert manager_client.get("/app/members/").status_code == 403
    assert manager_client.post("/app/facts/forget/", {"agent": "support-bot"}).status_code == 403
    assert manager_client.get("/app/audit/").status_code == 403


# --- the CLI ---


def test_the_cli_invites_through_the_same_service(capsys, client, workspace, manager):
    assert main(["members", "invite", "nina", "--workspace", "acme", "--role", "manager",
                 "--base-url", "https://dewee.example.com/", "--json"]) == 0  # fmt: skip
    shown = json.loads(capsys.readouterr().out)
    assert shown["created"] is True
    assert shown["link_valid_hours"] == 72
    link = shown["sign_in_link"]
    assert link.startswith("https://dewee.example.com/accounts/invite/")
    assert set_password(client, link.removeprefix("https://dewee.example.com")).status_code == 302
    assert roles(workspace) == {"mia": "manager", "nina": "manager"}
    assert main(["members", "invite", "mia", "--workspace", "acme"]) != 0
    assert "already a member" in capsys.readouterr().err
    assert main(["members", "invite", "mia", "--workspace", "globex-missing"]) != 0
    assert [actor.partition(":")[0] for actor in event_actors()] == ["cli"]


def event_actors() -> list[str]:
    return sorted({e.actor for e in AuditEvent.objects.filter(action="member.add")})


def _invite_through_the_page(client: Client, slug: str, login: str, email: str = ""):
    return client.post(
        "/app/members/add/", {"workspace": slug, "login": login, "email": email, "role": "manager"}
    )


@pytest.mark.parametrize("login", ["nina", "nina@example.com"])
def test_a_link_kept_by_another_workspace_never_signs_in_to_this_one(
    django_user_model, workspace, other_workspace, login
):
    """The takeover: the other workspace's manager invites nina and keeps her link; this
    workspace's manager later adds her (by username or email). The kept link must not sign
    in as nina once she is here, and this manager's own link is the only one."""
    theirs = signed_in(member(django_user_model, other_workspace, "manager", "gus"))
    ours = signed_in(member(django_user_model, workspace, "manager", "mia"))
    kept = _invite_through_the_page(theirs, other_workspace.slug, "nina", "nina@example.com")
    kept_link = kept.context["invite_link"].removeprefix("http://testserver")
    # A username no other workspace knows gives the same kind of page: a new link.
    fresh = _invite_through_the_page(ours, workspace.slug, "zoe")
    page = _invite_through_the_page(ours, workspace.slug, login)
    assert page.status_code == fresh.status_code == 200
    assert page.text.count("/accounts/invite/") == fresh.text.count("/accounts/invite/") == 1
    own_link = page.context["invite_link"].removeprefix("http://testserver")
    assert "nina added to acme as manager." in page.text
    # The kept link is void; nina is bound to this workspace alone until she signs in.
    attacker = Client()
    assert attacker.get(kept_link).status_code == 400
    assert attacker.get("/app/facts/").status_code == 302  # not signed in
    assert set_password(attacker, kept_link).status_code == 400
    assert get_user_model().objects.get(username="nina").has_usable_password() is False
    assert "nina" not in roles(other_workspace)
    assert roles(workspace)["nina"] == "manager"
    # Her own link (from this workspace's manager) signs her in, here alone.
    nina = Client()
    assert set_password(nina, own_link).status_code == 302
    assert nina.get("/app/facts/").status_code == 200
    assert list(
        WorkspaceMember.objects.filter(user__username="nina").values_list("workspace", flat=True)
    ) == [workspace.pk]


def test_a_pending_account_invited_again_elsewhere_leaves_the_first(workspace, other_workspace):
    first = invite_member(workspace=other_workspace, username="nina", role="viewer", actor="gus")
    second = invite_member(workspace=workspace, username="nina", role="manager", actor="mia")
    assert first.link is not None
    assert second.link is not None
    assert not second.created
    removed = AuditEvent.objects.get(action="member.remove")
    assert (removed.workspace_id, removed.details["reason"]) == (
        other_workspace.pk,
        "invited elsewhere",
    )
    # A pending staff account gets no link.
    get_user_model().objects.create_user(username="root2", is_staff=True)
    assert (
        invite_member(workspace=workspace, username="root2", role="viewer", actor="x").link is None
    )


def test_a_pending_member_is_shown_and_a_new_link_voids_the_lost_one(
    manager_client, workspace, manager
):
    invitation = invite_member(workspace=workspace, username="nina", role="viewer", actor="ops")
    assert invitation.link is not None
    lost = link_path(*invitation.link)
    nina = WorkspaceMember.objects.get(user__username="nina")
    page = manager_client.get("/app/members/")
    assert page.context["pending"] == {nina.pk}  # the manager has signed in: not pending
    assert "has not signed in yet" in page.text

    renewed = manager_client.post(f"/app/members/{nina.pk}/invite/")
    assert renewed.status_code == 200
    assert "no-store" in renewed["Cache-Control"]
    new = renewed.context["invite_link"].removeprefix("http://testserver")
    assert new != lost
    assert Client().get(lost).status_code == 400  # the lost link no longer works
    assert set_password(Client(), new).status_code == 302  # the new one does
    assert AuditEvent.objects.filter(action="member.invite", target_id=str(nina.user_id)).exists()
    # Signed in: no longer pending, and no link is given any more.
    assert manager_client.get("/app/members/").context["pending"] == set()
    refused = manager_client.post(f"/app/members/{nina.pk}/invite/")
    assert "nina has signed in already" in refused.text
    assert "invite_link" not in refused.context
