"""Memories: store, batch, read, change, delete, forget, merge, deduplicate, recall."""

from dataclasses import replace
from typing import Any

from django.http import HttpRequest, HttpResponse
from ninja import Query, Router, Status
from pydantic import Field

from dewee.api_auth import ADMIN, READ, WRITE
from dewee.errors import ConfirmationRequired, DeweeError
from dewee.schemas import ErrorOut
from dewee.timeparse import parse_time
from memory import services
from memory.api.agents import MemoryListParams
from memory.api.common import (
    list_filters,
    memory_page,
    quota_warnings_out,
    recall_filters,
    refuse_unknown_params,
)
from memory.learned import learned_from
from memory.models import Memory
from memory.queries import (
    get_memory,
    list_memories,
    memory_to_dict,
)
from memory.quotas import QuotaWarning
from memory.recall import RecallRequest, Weights, audience_of, recall
from memory.recall.filters import session_user
from memory.schemas import (
    BatchIn,
    BatchOut,
    ConsolidateIn,
    DeduplicateIn,
    DeduplicateOut,
    ForgetMemoriesIn,
    ForgetMemoriesOut,
    MemoryIn,
    MemoryOut,
    MemoryPageOut,
    MemoryPatchIn,
    PatchedOut,
    RecallIn,
    RecallOut,
    StoredOut,
    StoreMemoryIn,
)
from memory.signals import Learning
from tenancy.access import request_access
from tenancy.models import Scope

router = Router()


def _input(item: MemoryIn) -> services.MemoryInput:
    return services.MemoryInput(
        content=item.content,
        memory_type=item.memory_type,
        importance=item.importance,
        tags=item.tags,
        metadata=item.metadata,
        session_id=item.session_id,
        user=item.user,
        speaker=item.speaker,
        ttl_seconds=item.ttl_seconds,
        expires_at=parse_time(item.expires_at, field="expires_at"),
        source_refs=item.source_refs,
        created_at=parse_time(item.created_at, field="created_at"),
    )


def _stored(memory: Memory, learning: Learning | None = None) -> dict[str, Any]:
    stored = {
        **memory_to_dict(memory),
        "session_state": memory.session.state if memory.session else None,
    }
    if learning is Learning.SYNC:
        # Learned in this request: the facts that now cite this memory as a source.
        stored["facts_learned"] = learned_from(memory)
    return stored


def _learning(requested: str | None) -> Learning | None:
    return Learning(requested) if requested is not None else None


@router.post(
    "/memories",
    response={201: StoredOut, 409: ErrorOut},
    tags=["memories"],
    summary="Store a memory",
    auth=WRITE,
)
def store_memory(request: HttpRequest, response: HttpResponse, payload: StoreMemoryIn) -> Status:
    workspace = request_access(request).workspace_for_agent(payload.agent_id)
    learning = _learning(payload.extract_facts)
    warnings: list[QuotaWarning] = []
    (memory,) = services.store_memories_as(
        workspace=workspace,
        agent_id=payload.agent_id,
        items=[_input(payload)],
        learning=learning,
        quota_warnings=warnings,
    )
    return Status(
        201, {**_stored(memory, learning), "warnings": quota_warnings_out(response, warnings)}
    )


class MemoriesParams(MemoryListParams):
    agent_id: str
    memory_type: str | None = Field(None, alias="type")


@router.get(
    "/memories",
    response=MemoryPageOut,
    tags=["memories"],
    summary="An agent's memories, newest first, by user, session, type...",
    auth=READ,
)
def memories(request: HttpRequest, params: Query[MemoriesParams]) -> dict[str, Any]:
    """The agent's memories newest first, a page at a time (``next_cursor``): of one user
    (``user``: that user's own), of none (``shared=true``), or all of them; and by session,
    ``type``, tags, importance and time. A parameter this list does not know is a 400."""
    refuse_unknown_params(request, MemoriesParams)
    agent = request_access(request).agent(params.agent_id)
    return memory_page(
        list_memories(
            agent=agent, filters=list_filters(params), cursor=params.cursor, limit=params.limit
        )
    )


@router.post(
    "/memories/batch",
    response={201: BatchOut, 409: ErrorOut},
    tags=["memories"],
    summary="Store up to 1,000 memories, all or nothing",
    auth=WRITE,
)
def store_batch(request: HttpRequest, response: HttpResponse, payload: BatchIn) -> Status:
    workspace = request_access(request).workspace_for_agent(payload.agent_id)
    inputs = []
    for index, item in enumerate(payload.items):
        try:
            inputs.append(_input(item))
        except DeweeError as exc:
            raise exc.for_item(index) from None
    learning = _learning(payload.extract_facts)
    warnings: list[QuotaWarning] = []
    memories = services.store_memories_as(
        workspace=workspace,
        agent_id=payload.agent_id,
        items=inputs,
        learning=learning,
        quota_warnings=warnings,
    )
    items = [_stored(m, learning) for m in memories]
    return Status(201, {"items": items, "warnings": quota_warnings_out(response, warnings)})


@router.post(
    "/memories/forget",
    response=ForgetMemoriesOut,
    tags=["memories"],
    summary="Delete memories by ids, tags or importance",
    auth=ADMIN,
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
    auth=ADMIN,
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
    response={200: DeduplicateOut, 422: ErrorOut},
    tags=["memories"],
    summary="Merge an agent's exact duplicates (preview without confirm)",
    auth=ADMIN,
)
def deduplicate_memories(request: HttpRequest, payload: DeduplicateIn) -> dict[str, Any]:
    """A merge cannot be undone: it needs ``"confirm": true``. Without it the answer is a
    preview, and ``"dry_run": false`` without it (a client that merged before confirm
    existed) is refused rather than quietly turned into a preview."""
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    if payload.dry_run or not payload.confirm:
        preview = services.deduplicate_memories(
            agent=agent, actor=access.actor, memory_type=payload.memory_type, dry_run=True
        )
        if payload.dry_run is False:
            raise ConfirmationRequired(
                f"This merges {preview.merged} duplicates into {len(preview.groups)} memories "
                'for good; send "confirm": true to proceed',
                details=preview.as_dict(),
            )
        return preview.as_dict()
    report = services.deduplicate_memories(
        agent=agent, actor=access.actor, memory_type=payload.memory_type
    )
    return report.as_dict()


@router.get("/memories/{int:memory_id}", response=MemoryOut, tags=["memories"], auth=READ)
def read_memory(request: HttpRequest, memory_id: int) -> dict[str, Any]:
    return memory_to_dict(get_memory(access=request_access(request), memory_id=memory_id))


@router.patch("/memories/{int:memory_id}", response=PatchedOut, tags=["memories"], auth=WRITE)
def patch_memory(
    request: HttpRequest, response: HttpResponse, memory_id: int, payload: MemoryPatchIn
) -> dict[str, Any]:
    access = request_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    changes = payload.model_dump(exclude_unset=True)
    warnings: list[QuotaWarning] = []
    memory = services.update_memory(
        memory=memory, quota_warnings=warnings, actor=access.actor, **changes
    )
    stored = get_memory(access=access, memory_id=memory.pk)
    return {**memory_to_dict(stored), "warnings": quota_warnings_out(response, warnings)}


@router.delete(
    "/memories/{int:memory_id}", response=ForgetMemoriesOut, tags=["memories"], auth=WRITE
)
def remove_memory(request: HttpRequest, memory_id: int, reason: str = "") -> dict[str, int]:
    access = request_access(request)
    memory = get_memory(access=access, memory_id=memory_id)
    return services.delete_memory(memory=memory, actor=access.actor, reason=reason)


@router.post("/memory/recall", response=RecallOut, tags=["memories"], summary="Recall", auth=READ)
def recall_memories(request: HttpRequest, payload: RecallIn) -> dict[str, Any]:
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    all_users = payload.scope == "all_users"
    if all_users:
        access.require_scope(Scope.ADMIN)
    audience = audience_of(
        user=payload.user,
        all_users=all_users,
        session_user=session_user(agent, payload.session_id),
    )
    result = recall(
        agent=agent,
        request=RecallRequest(
            query=payload.query,
            top_k=payload.top_k,
            routing=payload.routing,
            fusion=payload.fusion,
            weights=Weights(**payload.weights.model_dump()),
            filters=replace(recall_filters(payload), audience=audience),
            explain=payload.explain,
            rerank=payload.rerank,
        ),
        record_access=True,
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
