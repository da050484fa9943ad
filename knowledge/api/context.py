"""The context for a turn."""

from typing import Any

from django.http import HttpRequest
from ninja import Router

from dewee.api_auth import READ
from knowledge.context import ContextRequest, build_context
from knowledge.schemas import ContextIn, ContextOut
from memory.queries import get_session
from tenancy.access import request_access

router = Router()


@router.post(
    "/context",
    response=ContextOut,
    tags=["context"],
    summary="Context for a turn",
    auth=READ,
    operation_id="memory_api_sessions_context",
)
def context(request: HttpRequest, payload: ContextIn) -> dict[str, Any]:
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    session = None
    if payload.session_id is not None:
        session = get_session(access=access, session_id=payload.session_id, agent=agent)
    return build_context(
        agent=agent,
        request=ContextRequest(
            query=payload.query,
            user=payload.user,
            session=session,
            budget_tokens=payload.budget_tokens,
            top_k=payload.top_k,
        ),
    )
