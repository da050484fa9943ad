"""Feedback on memories: vote or flag, history, workspace health."""

from typing import Any

from django.http import HttpRequest
from ninja import Router, Status

from dewee.api_auth import READ, WRITE
from memory import services
from memory.feedback_reports import (
    feedback_health,
    feedback_to_dict,
    list_feedback,
)
from memory.queries import (
    get_memory,
    memory_to_dict,
)
from memory.schemas import (
    FeedbackHealthOut,
    FeedbackIn,
    FeedbackPageOut,
    FeedbackResultOut,
)
from tenancy.access import request_access

router = Router()


@router.post(
    "/memories/{int:memory_id}/feedback",
    response={201: FeedbackResultOut},
    tags=["feedback"],
    summary="Upvote, downvote or flag a memory",
    auth=WRITE,
)
def give_feedback(request: HttpRequest, memory_id: int, payload: FeedbackIn) -> Status:
    access = request_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    result = services.record_feedback(
        memory=memory, kind=payload.kind, actor=access.actor, note=payload.note
    )
    memory = result.memory
    return Status(
        201,
        {
            "memory": memory_to_dict(memory),
            "feedback": feedback_to_dict(result.feedback),
        },
    )


@router.get(
    "/memories/{int:memory_id}/feedback",
    response=FeedbackPageOut,
    tags=["feedback"],
    summary="A memory's feedback, newest first",
    auth=READ,
)
def memory_feedback(
    request: HttpRequest, memory_id: int, cursor: str | None = None, limit: int = 50
) -> dict[str, Any]:
    memory = get_memory(access=request_access(request), memory_id=memory_id)
    page = list_feedback(memory=memory, cursor=cursor, limit=limit)
    return {"items": [feedback_to_dict(f) for f in page.items], "next_cursor": page.next_cursor}


@router.get(
    "/feedback/health",
    response=FeedbackHealthOut,
    tags=["feedback"],
    summary="Feedback in this workspace lately, and whether it needs attention",
    auth=READ,
)
def workspace_feedback_health(request: HttpRequest) -> dict[str, Any]:
    return feedback_health(agents=request_access(request).agents())
