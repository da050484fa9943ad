"""REST endpoints for agents, memories, recall, sessions and context: thin adapters over
memory.services, memory.queries, memory.recall and memory.context."""

from typing import Any

from django.http import HttpRequest
from ninja import Query, Router, Schema, Status
from pydantic import Field

from dewee.errors import DeweeError
from dewee.timeparse import parse_time
from memory import services
from memory.access import request_access
from memory.context import ContextRequest, build_context
from memory.feedback_reports import (
    agent_feedback_summary,
    feedback_health,
    feedback_to_dict,
    list_feedback,
)
from memory.models import Memory
from memory.queries import (
    agent_to_dict,
    get_memory,
    get_session,
    list_memories,
    memory_to_dict,
    session_to_dict,
)
from memory.recall import RecallFilters, RecallRequest, Weights, recall
from memory.schemas import (
    AgentIn,
    AgentOut,
    BatchIn,
    BatchOut,
    ConsolidateIn,
    ContextIn,
    ContextOut,
    DeduplicateIn,
    DeduplicateOut,
    FeedbackHealthOut,
    FeedbackIn,
    FeedbackPageOut,
    FeedbackResultOut,
    FeedbackSummaryOut,
    ForgetMemoriesIn,
    ForgetMemoriesOut,
    MemoryIn,
    MemoryOut,
    MemoryPageOut,
    MemoryPatchIn,
    MemoryPolicyIn,
    MemoryPolicyOut,
    RecallIn,
    RecallOut,
    SessionEndIn,
    SessionIn,
    SessionOut,
    StoredOut,
    StoreMemoryIn,
)

router = Router()


class MemoryListParams(Schema):
    session_id: int | None = None
    tags: list[str] = Field(default_factory=list)
    memory_type: str | None = None
    min_importance: float | None = None
    max_importance: float | None = None
    since: str | None = None
    until: str | None = None
    cursor: str | None = None
    limit: int = 50


def _input(item: MemoryIn) -> services.MemoryInput:
    return services.MemoryInput(
        content=item.content,
        memory_type=item.memory_type,
        importance=item.importance,
        tags=item.tags,
        metadata=item.metadata,
        session_id=item.session_id,
        ttl_seconds=item.ttl_seconds,
        expires_at=parse_time(item.expires_at, field="expires_at"),
        source_refs=item.source_refs,
        created_at=parse_time(item.created_at, field="created_at"),
    )


def _stored(memory: Memory) -> dict[str, Any]:
    return {
        **memory_to_dict(memory),
        "session_state": memory.session.state if memory.session else None,
    }


# --- agents ---


@router.post("/agents", response={201: AgentOut}, tags=["agents"], summary="Create an agent")
def create_agent(request: HttpRequest, payload: AgentIn) -> Status:
    access = request_access(request)
    assert access.workspace is not None
    agent = services.create_agent(
        workspace=access.workspace,
        agent_id=payload.agent_id,
        name=payload.name,
        metadata=payload.metadata,
    )
    return Status(201, agent_to_dict(agent))


@router.get("/agents", response=list[AgentOut], tags=["agents"], summary="Agents of this workspace")
def list_agents(request: HttpRequest) -> list[dict]:
    return [agent_to_dict(a) for a in request_access(request).agents()]


@router.get(
    "/agents/{path:agent_id}/memories",
    response=MemoryPageOut,
    tags=["memories"],
    summary="An agent's memories, newest first",
)
def agent_memories(
    request: HttpRequest, agent_id: str, params: Query[MemoryListParams]
) -> dict[str, Any]:
    agent = request_access(request).agent(agent_id)
    filters = RecallFilters(
        session_id=params.session_id,
        tags=params.tags,
        memory_type=params.memory_type,
        min_importance=params.min_importance,
        max_importance=params.max_importance,
        since=parse_time(params.since, field="since"),
        until=parse_time(params.until, field="until"),
    )
    page = list_memories(agent=agent, filters=filters, cursor=params.cursor, limit=params.limit)
    return {"items": [memory_to_dict(m) for m in page.items], "next_cursor": page.next_cursor}


@router.get(
    "/agents/{path:agent_id}/feedback/summary",
    response=FeedbackSummaryOut,
    tags=["feedback"],
    summary="An agent's feedback: counts, most voted and flagged memories",
)
def agent_feedback(request: HttpRequest, agent_id: str) -> dict[str, Any]:
    return agent_feedback_summary(agent=request_access(request).agent(agent_id))


@router.get(
    "/agents/{path:agent_id}/memory_policy",
    response=MemoryPolicyOut,
    tags=["agents"],
    summary="How an agent's memories age (server defaults filled in)",
)
def get_memory_policy(request: HttpRequest, agent_id: str) -> dict[str, Any]:
    return services.get_memory_policy(request_access(request).agent(agent_id)).as_dict()


@router.put(
    "/agents/{path:agent_id}/memory_policy",
    response=MemoryPolicyOut,
    tags=["agents"],
    summary="Replace an agent's memory policy; returns the effective policy",
)
def put_memory_policy(
    request: HttpRequest, agent_id: str, payload: MemoryPolicyIn
) -> dict[str, Any]:
    access = request_access(request)
    policy = {**payload.model_dump(exclude_unset=True), **(payload.model_extra or {})}
    return services.set_memory_policy(
        agent=access.agent(agent_id), policy=policy, actor=access.actor
    ).as_dict()


@router.get("/agents/{path:agent_id}", response=AgentOut, tags=["agents"], summary="One agent")
def get_agent(request: HttpRequest, agent_id: str) -> dict:
    return agent_to_dict(request_access(request).agent(agent_id))


# --- memories ---


@router.post("/memories", response={201: StoredOut}, tags=["memories"], summary="Store a memory")
def store_memory(request: HttpRequest, payload: StoreMemoryIn) -> Status:
    access = request_access(request)
    assert access.workspace is not None
    (memory,) = services.store_memories_as(
        workspace=access.workspace, agent_id=payload.agent_id, items=[_input(payload)]
    )
    return Status(201, _stored(memory))


@router.post(
    "/memories/batch",
    response={201: BatchOut},
    tags=["memories"],
    summary="Store up to 1,000 memories, all or nothing",
)
def store_batch(request: HttpRequest, payload: BatchIn) -> Status:
    access = request_access(request)
    assert access.workspace is not None
    inputs = []
    for index, item in enumerate(payload.items):
        try:
            inputs.append(_input(item))
        except DeweeError as exc:
            raise exc.for_item(index) from None
    memories = services.store_memories_as(
        workspace=access.workspace, agent_id=payload.agent_id, items=inputs
    )
    return Status(201, {"items": [_stored(m) for m in memories]})


@router.post(
    "/memories/forget",
    response=ForgetMemoriesOut,
    tags=["memories"],
    summary="Delete memories by ids, tags or importance",
)
def forget_memories(request: HttpRequest, payload: ForgetMemoriesIn) -> dict[str, int]:
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    return services.forget_memories(
        agent=agent,
        actor=access.actor,
        ids=payload.ids,
        tags=payload.tags,
        below_importance=payload.below_importance,
    )


@router.post(
    "/memories/consolidate",
    response={201: MemoryOut},
    tags=["memories"],
    summary="Merge memories into one new memory",
)
def consolidate_memories(request: HttpRequest, payload: ConsolidateIn) -> Status:
    access = request_access(request)
    merged = services.consolidate_memories(
        agent=access.agent(payload.agent_id),
        memory_ids=payload.memory_ids,
        actor=access.actor,
        memory_type=payload.memory_type,
        content=payload.content,
    )
    return Status(201, memory_to_dict(get_memory(access=access, memory_id=merged.pk)))


@router.post(
    "/memories/deduplicate",
    response=DeduplicateOut,
    tags=["memories"],
    summary="Merge an agent's exact duplicates",
)
def deduplicate_memories(request: HttpRequest, payload: DeduplicateIn) -> dict[str, Any]:
    access = request_access(request)
    report = services.deduplicate_memories(
        agent=access.agent(payload.agent_id),
        actor=access.actor,
        memory_type=payload.memory_type,
        dry_run=payload.dry_run,
    )
    return report.as_dict()


@router.get("/memories/{int:memory_id}", response=MemoryOut, tags=["memories"])
def read_memory(request: HttpRequest, memory_id: int) -> dict[str, Any]:
    return memory_to_dict(get_memory(access=request_access(request), memory_id=memory_id))


@router.patch("/memories/{int:memory_id}", response=MemoryOut, tags=["memories"])
def patch_memory(request: HttpRequest, memory_id: int, payload: MemoryPatchIn) -> dict[str, Any]:
    memory = get_memory(access=request_access(request), memory_id=memory_id)
    changes = payload.model_dump(exclude_unset=True)
    memory = services.update_memory(memory=memory, **changes)
    return memory_to_dict(get_memory(access=request_access(request), memory_id=memory.pk))


@router.delete("/memories/{int:memory_id}", response=ForgetMemoriesOut, tags=["memories"])
def remove_memory(request: HttpRequest, memory_id: int, reason: str = "") -> dict[str, int]:
    access = request_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    return services.delete_memory(memory=memory, actor=access.actor, reason=reason)


# --- feedback ---


@router.post(
    "/memories/{int:memory_id}/feedback",
    response={201: FeedbackResultOut},
    tags=["feedback"],
    summary="Upvote, downvote or flag a memory",
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
            "memory": {**memory_to_dict(memory), "flagged_at": memory.flagged_at},
            "feedback": feedback_to_dict(result.feedback),
        },
    )


@router.get(
    "/memories/{int:memory_id}/feedback",
    response=FeedbackPageOut,
    tags=["feedback"],
    summary="A memory's feedback, newest first",
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
)
def workspace_feedback_health(request: HttpRequest) -> dict[str, Any]:
    return feedback_health(agents=request_access(request).agents())


@router.post("/memory/recall", response=RecallOut, tags=["memories"], summary="Recall")
def recall_memories(request: HttpRequest, payload: RecallIn) -> dict[str, Any]:
    agent = request_access(request).agent(payload.agent_id)
    result = recall(
        agent=agent,
        request=RecallRequest(
            query=payload.query,
            top_k=payload.top_k,
            routing=payload.routing,
            fusion=payload.fusion,
            weights=Weights(**payload.weights.model_dump()),
            filters=RecallFilters(
                session_id=payload.session_id,
                tags=payload.tags,
                memory_type=payload.memory_type,
                min_importance=payload.min_importance,
                since=parse_time(payload.since, field="since"),
                until=parse_time(payload.until, field="until"),
            ),
            explain=payload.explain,
            rerank=payload.rerank,
        ),
    )
    return {
        "query_class": result.query_class,
        "routing": result.routing,
        "items": [
            {
                **memory_to_dict(hit.memory),
                "score": hit.score,
                "explanation": hit.explanation if payload.explain else None,
            }
            for hit in result.hits
        ],
    }


# --- sessions and context ---


@router.post("/sessions", response={201: SessionOut}, tags=["sessions"])
def start_session(request: HttpRequest, payload: SessionIn) -> Status:
    agent = request_access(request).agent(payload.agent_id)
    session = services.start_session(
        agent=agent,
        user=payload.user,
        metadata=payload.metadata,
        idle_timeout_secs=payload.idle_timeout_secs,
    )
    return Status(201, session_to_dict(session, memory_count=0))


@router.get("/sessions/{int:session_id}", response=SessionOut, tags=["sessions"])
def read_session(request: HttpRequest, session_id: int) -> dict[str, Any]:
    return session_to_dict(get_session(access=request_access(request), session_id=session_id))


@router.post("/sessions/{int:session_id}/end", response=SessionOut, tags=["sessions"])
def end_session(request: HttpRequest, session_id: int, payload: SessionEndIn) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    return session_to_dict(services.end_session(session=session, summary=payload.summary))


@router.post("/sessions/{int:session_id}/touch", response=SessionOut, tags=["sessions"])
def touch_session(request: HttpRequest, session_id: int) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    return session_to_dict(services.touch_session(session=session))


@router.get("/sessions/{int:session_id}/memories", response=MemoryPageOut, tags=["sessions"])
def session_memories(
    request: HttpRequest, session_id: int, cursor: str | None = None, limit: int = 50
) -> dict[str, Any]:
    session = get_session(access=request_access(request), session_id=session_id)
    services.record_session_activity(session_ids=[session.pk])
    page = list_memories(
        agent=session.agent,
        filters=RecallFilters(session_id=session.pk),
        cursor=cursor,
        limit=limit,
    )
    return {"items": [memory_to_dict(m) for m in page.items], "next_cursor": page.next_cursor}


@router.post("/context", response=ContextOut, tags=["context"], summary="Context for a turn")
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
