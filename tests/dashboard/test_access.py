"""access_for_user: one Access per kind of person, tested once per role."""

import pytest

from memory.access import access_for_user
from memory.exceptions import WorkspaceNotFound
from memory.models import MemberRole, WorkspaceMember
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
