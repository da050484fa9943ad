"""Managing who belongs to a workspace: the services, the dashboard's Members page (with and
without htmx) and the admin, which goes through the same services."""

import pytest

from dewee.errors import InvalidInput
from tenancy.exceptions import MemberExists, UserNotFound
from tenancy.models import AuditEvent, MemberRole, WorkspaceMember
from tenancy.queries import find_user
from tenancy.services import add_member, change_member_role, remove_member
from tests.dashboard.conftest import member, signed_in

pytestmark = pytest.mark.django_db

PAGE = "/dashboard/members/"
HTMX = {"HX-Request": "true"}


@pytest.fixture
def dana(django_user_model):
    return django_user_model.objects.create_user(
        username="dana", email="Dana@Example.com", password="pw"
    )


def roles(workspace) -> dict[str, str]:
    members = WorkspaceMember.objects.filter(workspace=workspace).select_related("user")
    return {m.user.username: m.role for m in members}


# --- services ---


def test_add_change_and_remove_a_member(workspace, other_workspace, dana):
    joined = add_member(workspace=workspace, user=dana, role="viewer", actor="ops")
    add_member(workspace=other_workspace, user=dana, role="manager", actor="ops")
    assert roles(workspace) == {"dana": "viewer"}
    change_member_role(member=joined, role="manager", actor="ops")
    assert roles(workspace) == {"dana": "manager"}
    remove_member(member=joined, actor="ops")
    assert roles(workspace) == {}
    assert roles(other_workspace) == {"dana": "manager"}  # the other membership stays
    dana.refresh_from_db()  # and so does the account
    events = AuditEvent.objects.filter(workspace=workspace).order_by("id")
    assert [(e.action, e.actor, e.details["role"]) for e in events] == [
        ("member.add", "ops", "viewer"),
        ("member.role", "ops", "manager"),
        ("member.remove", "ops", "manager"),
    ]


def test_a_person_is_in_a_workspace_once_with_a_known_role(workspace, dana):
    joined = add_member(workspace=workspace, user=dana, role="viewer", actor="ops")
    with pytest.raises(MemberExists):
        add_member(workspace=workspace, user=dana, role="manager", actor="ops")
    with pytest.raises(InvalidInput) as bad:
        change_member_role(member=joined, role="owner", actor="ops")
    assert bad.value.details == {"field": "role"}
    with pytest.raises(InvalidInput):
        add_member(workspace=workspace, user=dana, role="admin", actor="ops")
    assert roles(workspace) == {"dana": "viewer"}


def test_find_user_by_username_or_email_in_any_case(django_user_model, dana):
    assert find_user("dana") == dana
    assert find_user("  dana@example.COM ") == dana
    with pytest.raises(UserNotFound):
        find_user("nobody")
    django_user_model.objects.create_user(username="dana2", email="dana@example.com")
    with pytest.raises(UserNotFound, match="Several accounts"):
        find_user("dana@example.com")


# --- the Members page ---


def test_staff_sees_the_members_of_the_chosen_workspace(
    staff_client, workspace, other_workspace, manager, viewer, django_user_model
):
    member(django_user_model, other_workspace, MemberRole.MANAGER, "gus")
    page = staff_client.get(PAGE)  # the first workspace by slug: acme
    assert [m.user.username for m in page.context["members"]] == ["mia", "vic"]
    assert "gus" not in page.text
    other = staff_client.get(PAGE, {"workspace": "globex"}, headers=HTMX)
    assert "<html" not in other.text
    assert [m.user.username for m in other.context["members"]] == ["gus"]
    assert "HX-Request" in other["Vary"]
    assert staff_client.get(PAGE, {"workspace": "nope"}).status_code == 404


def test_add_by_email_without_javascript_redirects_with_a_notice(staff_client, workspace, dana):
    response = staff_client.post(
        f"{PAGE}add/", {"workspace": "acme", "login": "dana@example.com", "role": "manager"}
    )
    assert response["Location"] == f"{PAGE}?workspace=acme"
    assert roles(workspace) == {"dana": "manager"}
    assert "dana added to acme as manager." in staff_client.get(response["Location"]).text


def test_add_errors_are_shown_next_to_the_field(staff_client, workspace, manager):
    unknown = staff_client.post(
        f"{PAGE}add/",
        {"workspace": "acme", "login": "ghost@example.com", "role": "viewer"},
        headers=HTMX,
    )
    assert unknown.status_code == 200
    assert "<html" not in unknown.text
    assert unknown.context["add_form"].errors == {
        "login": [
            "No account with the email 'ghost@example.com': give a username for a new "
            "account, and the email below"
        ]
    }
    assert 'class="field has-error"' in unknown.text
    again = staff_client.post(
        f"{PAGE}add/", {"workspace": "acme", "login": "mia", "role": "viewer"}
    )
    assert again.context["add_form"].errors == {"login": ["mia is already a member of acme"]}
    assert "<html" in again.text  # without JavaScript: the whole page, with the error
    assert roles(workspace) == {"mia": "manager"}


def test_change_a_role_with_htmx_returns_the_members_section(staff_client, workspace, viewer):
    joined = WorkspaceMember.objects.get(user=viewer)
    response = staff_client.post(f"{PAGE}{joined.pk}/role/", {"role": "manager"}, headers=HTMX)
    assert "<html" not in response.text
    assert "vic is now a manager of acme." in response.text
    assert roles(workspace) == {"vic": "manager"}
    assert staff_client.post(f"{PAGE}{joined.pk}/role/", {"role": "boss"}).status_code == 400
    assert staff_client.post(f"{PAGE}999999/role/", {"role": "viewer"}).status_code == 404


def test_remove_asks_first_then_removes(staff_client, workspace, viewer):
    joined = WorkspaceMember.objects.get(user=viewer)
    url = f"{PAGE}{joined.pk}/remove/"
    ask = staff_client.get(url)
    assert "<html" in ask.text
    assert "Remove <strong>vic</strong> from acme?" in ask.text
    assert f'action="{url}"' in ask.text
    assert roles(workspace) == {"vic": "viewer"}
    assert "Remove <strong>vic</strong>" in staff_client.get(url, headers=HTMX).text
    done = staff_client.post(url, headers=HTMX)
    assert "vic removed from acme." in done.text
    assert roles(workspace) == {}
    assert staff_client.post(url).status_code == 404


def test_actions_need_post_and_the_csrf_token(staff, workspace, viewer):
    joined = WorkspaceMember.objects.get(user=viewer)
    client = signed_in(staff)
    assert client.get(f"{PAGE}{joined.pk}/role/").status_code == 405
    client.handler.enforce_csrf_checks = True
    assert client.post(f"{PAGE}{joined.pk}/remove/").status_code == 403
    assert roles(workspace) == {"vic": "viewer"}


def test_members_are_sent_to_their_own_members_page_and_viewers_refused(
    manager_client, viewer_client, viewer, workspace
):
    joined = WorkspaceMember.objects.get(user=viewer)
    assert manager_client.get(PAGE)["Location"] == "/app/members/"
    assert manager_client.post(f"{PAGE}{joined.pk}/remove/").status_code == 403
    assert viewer_client.post(f"{PAGE}{joined.pk}/role/", {"role": "manager"}).status_code == 403
    assert viewer_client.get("/app/members/").status_code == 403
    assert (
        viewer_client.post(f"/app/members/{joined.pk}/role/", {"role": "manager"}).status_code
        == 403
    )
    assert roles(workspace) == {"mia": "manager", "vic": "viewer"}
    assert 'href="/dashboard/members/"' not in manager_client.get("/app/facts/").text
    assert 'href="/app/members/"' in manager_client.get("/app/facts/").text
    assert 'href="/app/members/"' not in viewer_client.get("/app/facts/").text


def test_members_page_queries_do_not_grow(
    staff_client, workspace, django_user_model, django_assert_num_queries
):
    for i in range(5):
        member(django_user_model, workspace, MemberRole.VIEWER, f"p{i}")
    # session, user, first workspace, workspace slugs, members with users, review badge,
    # the saved views of the page
    with django_assert_num_queries(7):
        assert staff_client.get(PAGE).status_code == 200


# --- the admin goes through the same services ---


def test_admin_adds_changes_and_removes_through_the_services(client, workspace, dana, db):
    from django.contrib.auth import get_user_model

    get_user_model().objects.create_superuser(username="root", password="pw")
    client.login(username="root", password="pw")
    base = "/admin/tenancy/workspacemember/"
    added = client.post(
        f"{base}add/", {"user": dana.pk, "workspace": workspace.pk, "role": "viewer"}
    )
    assert added.status_code == 302
    joined = WorkspaceMember.objects.get(user=dana)
    client.post(f"{base}{joined.pk}/change/", {"role": "manager"})
    assert roles(workspace) == {"dana": "manager"}
    duplicate = client.post(
        f"{base}add/", {"user": dana.pk, "workspace": workspace.pk, "role": "viewer"}
    )
    assert duplicate.status_code == 200  # the form shows the error
    client.post(f"{base}{joined.pk}/delete/", {"post": "yes"})
    assert roles(workspace) == {}
