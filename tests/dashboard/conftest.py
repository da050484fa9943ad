import pytest
from django.test import Client

from tenancy.models import MemberRole, Workspace, WorkspaceMember


def app(url: str) -> str:
    """The same page in the members' mount: workspace members are sent from /dashboard/ to
    /app/, so their tests ask /app/ directly."""
    return url.replace("/dashboard/", "/app/", 1)


def signed_in(user) -> Client:
    client = Client()
    client.force_login(user)
    return client


def member(django_user_model, workspace: Workspace, role: str, username: str):
    user = django_user_model.objects.create_user(username=username, password="pw")
    WorkspaceMember.objects.create(user=user, workspace=workspace, role=role)
    return user


@pytest.fixture
def staff(django_user_model):
    return django_user_model.objects.create_user(username="ops", password="pw", is_staff=True)


@pytest.fixture
def manager(django_user_model, workspace):
    return member(django_user_model, workspace, MemberRole.MANAGER, "mia")


@pytest.fixture
def viewer(django_user_model, workspace):
    return member(django_user_model, workspace, MemberRole.VIEWER, "vic")


@pytest.fixture
def staff_client(staff) -> Client:
    return signed_in(staff)


@pytest.fixture
def manager_client(manager) -> Client:
    return signed_in(manager)


@pytest.fixture
def viewer_client(viewer) -> Client:
    return signed_in(viewer)
