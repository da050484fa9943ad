"""The workspace a page about one workspace shows (Members, API keys, Quotas): a member's
own; for staff, the one picked with the workspace picker (else the first by slug). The
picker itself is drawn by templates/dashboard/_workspace_picker.html."""

from django.http import HttpRequest

from tenancy.access import Access
from tenancy.exceptions import WorkspaceNotFound
from tenancy.forms import WorkspaceForm
from tenancy.models import Workspace


def picked_workspace(request: HttpRequest, access: Access) -> Workspace | None:
    """A member's own workspace; for staff, the one picked (``workspace`` in the form or the
    query), else the first; None when there is none. An unknown slug is WorkspaceNotFound."""
    if access.workspace is not None:
        return access.workspace
    slug = request.POST.get("workspace") or request.GET.get("workspace")
    if not slug:
        return Workspace.objects.order_by("slug").first()
    workspace = Workspace.objects.filter(slug=slug).first()
    if workspace is None:
        raise WorkspaceNotFound(f"No workspace {slug!r}")
    return workspace


def workspace_picker(access: Access, workspace: Workspace | None) -> WorkspaceForm | None:
    """The picker for staff, showing ``workspace``; None for a member (one workspace)."""
    if access.workspace is not None:
        return None
    slugs = list(Workspace.objects.order_by("slug").values_list("slug", flat=True))
    return WorkspaceForm({"workspace": workspace and workspace.slug}, slugs=slugs)
