"""The MCP tools' handlers: each the body of its REST operation, without the HTTP, for the
caller's one agent. What each tool offers a model, and its scope, are in tools.py."""

from dataclasses import replace
from typing import Any

from django.utils import timezone
from pydantic import Field, StrictStr

from dewee.mcp_server.auth import Caller
from dewee.schemas import StrictDbId, StrictSchema
from dewee.timeparse import parse_time
from facts import queries as fact_queries
from facts import services as fact_services
from facts.api import FactListParams
from facts.models import Fact
from facts.schemas import FactAssertIn, FactCheckIn
from knowledge.context import ContextRequest, build_context
from knowledge.schemas import ContextIn
from memory import services as memory_services
from memory.api.common import recall_filters

# The REST operation's own input and output adapters: one copy of how a stored memory is
# read from a body and shown back.
from memory.api.memories import _input as memory_input
from memory.api.memories import _stored as stored_memory
from memory.models import Memory
from memory.queries import get_memory, get_session, memory_to_dict, session_to_dict
from memory.quotas import QuotaWarning
from memory.recall import RecallRequest, Weights, audience_of, recall
from memory.recall.filters import session_user
from memory.schemas import RecallIn, SessionEndIn, SessionIn, StoreMemoryIn
from memory.signals import Learning
from tenancy.models import Scope


def _warnings(warnings: list[QuotaWarning]) -> list[dict[str, Any]]:
    return [w.as_dict() for w in warnings]


def remember(caller: Caller, payload: StoreMemoryIn) -> dict[str, Any]:
    workspace = caller.access.workspace_for_agent(payload.agent_id)
    learning = Learning(payload.extract_facts) if payload.extract_facts is not None else None
    warnings: list[QuotaWarning] = []
    (memory,) = memory_services.store_memories_as(
        workspace=workspace,
        agent_id=payload.agent_id,
        items=[memory_input(payload)],
        learning=learning,
        quota_warnings=warnings,
    )
    return {**stored_memory(memory, learning), "warnings": _warnings(warnings)}


def _hit(memory: Memory, score: float) -> dict[str, Any]:
    shown = memory_to_dict(memory)
    keep = ("id", "content", "memory_type", "importance", "tags", "user", "session_id")
    return {**{k: shown[k] for k in keep}, "created_at": shown["created_at"], "score": score}


def recall_memories(caller: Caller, payload: RecallIn) -> dict[str, Any]:
    agent = caller.agent()
    audience = audience_of(
        user=payload.user, all_users=False, session_user=session_user(agent, payload.session_id)
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
            explain=False,
            rerank=payload.rerank,
        ),
        record_access=True,
    )
    return {
        "query_class": result.query_class,
        "items": [_hit(hit.memory, hit.score) for hit in result.hits],
    }


def context(caller: Caller, payload: ContextIn) -> dict[str, Any]:
    agent = caller.agent()
    session = None
    if payload.session_id is not None:
        session = get_session(access=caller.access, session_id=payload.session_id, agent=agent)
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


def facts_check(caller: Caller, payload: FactCheckIn) -> dict[str, Any]:
    if payload.apply:  # as REST: applying what the check finds writes facts
        caller.access.require_scope(Scope.WRITE)
    agent = caller.agent()
    source = fact_services.SourceInput(**payload.source.model_dump()) if payload.source else None
    result = fact_services.check_text(
        agent=agent,
        user=payload.user,
        text=payload.text,
        apply=payload.apply,
        source=source,
        actor=caller.access.actor,
        now=parse_time(payload.now, field="now"),
    )
    return fact_services.check_result_to_dict(result)


def facts_list(caller: Caller, params: FactListParams) -> dict[str, Any]:
    agent = caller.agent()
    filters = fact_queries.FactFilters(
        user=params.user,
        subject=params.subject,
        predicate=params.predicate,
        statuses=fact_queries.parse_statuses(params.status),
        in_force=params.in_force,
        search=params.q,
    )
    page = fact_queries.list_facts(
        agent=agent, filters=filters, cursor=params.cursor, limit=params.limit
    )
    # Served to the agent, as GET /v1/facts: one UPDATE for the page.
    Fact.objects.filter(pk__in=[f.pk for f in page.items]).mark_accessed(timezone.now())
    return {
        "items": [fact_queries.fact_to_dict(f) for f in page.items],
        "next_cursor": page.next_cursor,
    }


def fact_assert(caller: Caller, payload: FactAssertIn) -> dict[str, Any]:
    agent = caller.agent()
    result = fact_services.assert_fact(
        agent=agent,
        claim=payload.claim(),
        source=fact_services.SourceInput(**payload.source.model_dump()),
        actor=caller.access.actor,
    )
    return result.as_dict()


def session_start(caller: Caller, payload: SessionIn) -> dict[str, Any]:
    workspace = caller.access.workspace_for_agent(payload.agent_id)
    session = memory_services.start_session_as(
        workspace=workspace,
        agent_id=payload.agent_id,
        user=payload.user,
        metadata=payload.metadata,
        idle_timeout_secs=payload.idle_timeout_secs,
    )
    return session_to_dict(session, memory_count=0)


class SessionEndArgs(SessionEndIn):
    session_id: StrictDbId


def session_end(caller: Caller, payload: SessionEndArgs) -> dict[str, Any]:
    session = get_session(access=caller.access, session_id=payload.session_id, agent=caller.agent())
    return session_to_dict(memory_services.end_session(session=session, summary=payload.summary))


class ForgetMemoryArgs(StrictSchema):
    memory_id: StrictDbId
    reason: StrictStr = Field("", description="Kept in the audit trail.")


def forget_memory(caller: Caller, payload: ForgetMemoryArgs) -> dict[str, Any]:
    memory = get_memory(access=caller.access, memory_id=payload.memory_id, agent=caller.agent())
    return memory_services.delete_memory(
        memory=memory, actor=caller.access.actor, reason=payload.reason
    )
