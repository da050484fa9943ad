"""A person (a user id within the key's workspace): erase everything about them, or export
it. Both are for the workspace's administrators."""

from typing import Any

from django.http import HttpRequest, StreamingHttpResponse
from ninja import Router

from dewee.api_auth import ADMIN
from knowledge.people import find_person
from knowledge.people_export import export_person
from knowledge.schemas import PersonForgetIn, PersonPreviewOut, PersonReceiptOut
from knowledge.services import erase_person
from tenancy.access import Access, request_access
from tenancy.exceptions import WorkspaceNotFound
from tenancy.models import Workspace
from tenancy.queries import receipt_to_dict

router = Router()


def _workspace(access: Access) -> Workspace:
    # An API key always belongs to one workspace; a person is always sought within one.
    if access.workspace is None:
        raise WorkspaceNotFound("A person is erased or exported within one workspace")
    access.require_every_agent("erase or export a person")
    return access.workspace


@router.post(
    "/people/forget",
    auth=ADMIN,
    response={200: PersonReceiptOut | PersonPreviewOut},
    tags=["people"],
    summary="Erase everything about one person in this workspace (preview without confirm)",
    operation_id="memory_api_people_forget_person",
)
def forget_person(request: HttpRequest, payload: PersonForgetIn) -> dict[str, Any]:
    access = request_access(request)
    workspace = _workspace(access)
    if not payload.confirm:
        data = find_person(workspace=workspace, user=payload.user)
        return {
            "dry_run": True,
            "user": data.user,
            "counts": data.totals(),
            "by_agent": data.by_agent(),
        }
    erased = erase_person(workspace=workspace, user=payload.user, actor=access.actor)
    return {**receipt_to_dict(erased.receipt), "by_agent": erased.data.by_agent()}


@router.get(
    # ``path``: a user id may hold '/' ("team/ana"), sent as is or as %2F.
    "/people/{path:user}/export",
    auth=ADMIN,
    tags=["people"],
    summary="Everything held about one person in this workspace, as one streamed JSON document",
    response={200: dict[str, Any]},
    operation_id="memory_api_people_export_person_data",
)
def export_person_data(request: HttpRequest, user: str) -> StreamingHttpResponse:
    workspace = _workspace(request_access(request))
    response = StreamingHttpResponse(
        export_person(workspace=workspace, user=user), content_type="application/json"
    )
    response["Content-Disposition"] = 'attachment; filename="person-export.json"'
    return response
