"""Writes of workspaces: the default one the CLI uses, and new ones with their slug rule."""

import re

from django.db import transaction

from dewee.errors import InvalidInput
from tenancy.exceptions import WorkspaceExists, WorkspaceNotFound
from tenancy.models import DEFAULT_WORKSPACE_SLUG, Workspace
from tenancy.validation import clean_text

_SLUG_RE = re.compile(r"^[a-z0-9][a-z0-9_-]{0,63}$")


def get_workspace(slug: str) -> Workspace:
    if slug == DEFAULT_WORKSPACE_SLUG:
        return default_workspace()
    try:
        return Workspace.objects.get(slug=slug)
    except Workspace.DoesNotExist:
        raise WorkspaceNotFound(f"No workspace {slug!r}") from None


def default_workspace() -> Workspace:
    """The workspace the CLI puts new agents in; recreated if someone removed it."""
    workspace, _created = Workspace.objects.get_or_create(
        slug=DEFAULT_WORKSPACE_SLUG, defaults={"name": "Default"}
    )
    return workspace


def clean_workspace_slug(slug: object) -> str:
    """A new workspace's slug: 1-64 lower-case letters, digits, '-' and '_', starting with a
    letter or digit. No service changes a slug once given: scripts and people name the
    workspace by it (``--workspace acme``, ``acme/helpdesk``, ``?workspace=acme``), quota
    audit events record it as their target, and renaming ``default`` would leave the CLI
    to create a new empty one."""
    if not isinstance(slug, str) or not _SLUG_RE.match(slug):
        raise InvalidInput(
            "workspace", "must be 1-64 lower-case letters, digits, '-' or '_' (e.g. acme-prod)"
        )
    return slug


@transaction.atomic
def create_workspace(*, slug: str, name: str = "") -> Workspace:
    """Slugs follow clean_workspace_slug and are unique; the name is the slug unless given."""
    slug = clean_workspace_slug(slug)
    name = clean_text(name, field="name", max_chars=200, required=False)
    if Workspace.objects.filter(slug=slug).exists():
        raise WorkspaceExists(f"Workspace {slug!r} already exists")
    return Workspace.objects.create(slug=slug, name=name or slug)
