"""Sessions."""

from typing import Any, Literal

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router, Schema, Status
from pydantic import Field

from dewee.api_auth import READ, WRITE
from dewee.errors import ConfirmationRequired
from dewee.schemas import ErrorOut
from memory import services
from memory.api.common import memory_page, quota_warnings_out, refuse_unknown_params
from memory.queries import (
    get_session,
    list_memories,
    list_sessions,
    session_to_dict,
)
from memory.quotas import QuotaWarning
from memory.recall import ALL_USERS, RecallFilters
from memory.schemas import (
    MemoryPageOut,
    SessionDeletedOut,
    SessionEndIn,
    SessionIn,
    SessionOut,
    SessionPageOut,
)
from tenancy.access import request_access
from tenancy.validation import clean_user

router = Router()


class SessionListParams(Schema):
    agent_id: str
    user: str | None = Field(None, description="Only this user's sessions (exact id).")
    status: Literal["active", "ended"] | None = None
    cursor: str | None = None
    limit: int = 50


@router.get("/sessions", response=SessionPageOut, tags=["sessions"], auth=READ)
def sessions(request: HttpRequest, params: Query[SessionListParams]) -> dict[str, Any]:
    """The agent's sessions newest first, a page at a time (``next_cursor``), of one user
    and in one state when asked. A parameter this list does not know is a 400."""
    refuse_unknown_params(request, SessionListParams)
    agent = request_access(request).agent(params.agent_id)
    owner = clean_user(params.user) if params.user is not None else None
    page = list_sessions(
        agent=agent, owner=owner, state=params.status, cursor=params.cursor, limit=params.limit
    )
    return {"items": page.items, "next_cursor": page.next_cursor}


@router.post("/sessions", response={201: SessionOut}, tags=["sessions"], auth=WRITE)
def start_session(request: HttpRequest, response: HttpResponse, payload: SessionIn) -> Status:
    """Start a session; a new agent id creates the agent, as a first stored memory does."""
    workspace = request_access(request).workspace_for_agent(payload.agent_id)
    warnings: list[QuotaWarning] = []
    session = services.start_session_as(
        workspace=workspace,
        agent_id=payload.agent_id,
        user=payload.user,
        metadata=payload.metadata,
        idle_timeout_secs=payload.idle_timeout_secs,
        quota_warnings=warnings,
    )
    quota_warnings_out(response, warnings)
    return Status(201, session_to_dict(session, memory_count=0))


@router.get("/sessions/{int:session_id}", response=SessionOut, tags=["sessions"], auth=READ)
def read_session(request: HttpRequest, session_id: int) -> dict[str, Any]:
    return session_to_dict(get_session(access=request_access(request), session_id=session_id))


@router.delete(
    "/sessions/{int:session_id}", response=SessionDeletedOut, tags=["sessions"], auth=WRITE
)
def delete_session(
    request: HttpRequest, session_id: int, confirm: bool = False, reason: str = ""
) -> dict[str, int]:
    """Delete the session, its summary and metadata, and its memories (as DELETE
    /v1/memories/{id} deletes one: the facts learned only from them go too). It takes
    ``?confirm=true``: without it, nothing is deleted and the error's details count what
    would be."""
    access = request_access(request)
    session = get_session(access=access, session_id=session_id)
    if not confirm:
        memories = len(services.session_erasure_ids(session))
        raise ConfirmationRequired(
            f"This deletes session {session.pk} and its {memories} memories for good; "
            "add ?confirm=true to proceed",
            details={"counts": {"sessions": 1, "memories": memories}},
        )
    return services.delete_session(session=session, actor=access.actor, reason=reason)


@router.post(
    "/sessions/{int:session_id}/end",
    response={200: SessionOut, 409: ErrorOut},
    tags=["sessions"],
    auth=WRITE,
)
def end_session(request: HttpRequest, session_id: int, payload: SessionEndIn) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    return session_to_dict(services.end_session(session=session, summary=payload.summary))


@router.post("/sessions/{int:session_id}/touch", response=SessionOut, tags=["sessions"], auth=WRITE)
def touch_session(request: HttpRequest, session_id: int) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    return session_to_dict(services.touch_session(session=session))


@router.get(
    "/sessions/{int:session_id}/memories", response=MemoryPageOut, tags=["sessions"], auth=READ
)
def session_memories(
    request: HttpRequest, session_id: int, cursor: str | None = None, limit: int = 50
) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    page = list_memories(
        agent=session.agent,
        filters=RecallFilters(session_id=session.pk, audience=ALL_USERS),
        cursor=cursor,
        limit=limit,
    )
    # After the page: a request refused for its limit or cursor is not activity.
    services.record_session_activity(session_ids=[session.pk])
    return memory_page(page)
