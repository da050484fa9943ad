"""REST endpoints for facts: thin adapters over facts.services and facts.queries."""

from django.http import HttpRequest, HttpResponse
from django.utils import timezone
from ninja import Query, Router, Schema
from pydantic import Field

from dewee.api_auth import ADMIN, READ, WRITE
from dewee.errors import ConfirmationRequired, InvalidInput
from dewee.pagination import clean_limit
from dewee.schemas import ErrorOut
from dewee.timeparse import parse_time
from facts import changes, queries, services
from facts.models import KEY_MAX_CHARS, VALUE_MAX_CHARS
from facts.schemas import (
    AssertOut,
    ChangePageOut,
    CheckOut,
    FactAssertIn,
    FactCheckIn,
    FactDetailOut,
    FactPageOut,
    ForgetIn,
    ForgetPreviewOut,
    ReceiptOut,
    ReopenIn,
    ResolveIn,
    RestoreIn,
    RestoreOut,
)
from memory.api.common import quota_warnings_out
from tenancy.access import request_access
from tenancy.models import Scope
from tenancy.queries import receipt_to_dict

router = Router(tags=["facts"])


class FactListParams(Schema):
    # No stored fact has a longer user, subject, predicate or value; a longer text search
    # also outgrows what SQLite's LIKE accepts.
    agent_id: str
    user: str | None = Field(None, max_length=KEY_MAX_CHARS)
    subject: str | None = Field(None, max_length=KEY_MAX_CHARS)
    predicate: str | None = Field(None, max_length=KEY_MAX_CHARS)
    status: str | None = Field(None, description="One status or a comma-separated list.")
    as_of: str | None = Field(
        None, description="ISO 8601: the facts recorded by then, each with its status then."
    )
    valid_at: str | None = Field(
        None,
        description="ISO 8601: only facts true in the world then: in their valid window, never "
        "rejected or deleted, and a replaced (history) value only until it stopped being "
        "believed, unless its valid_to says otherwise.",
    )
    in_force: bool = Field(
        False,
        description="Only the value of each slot in force now (or at valid_at): current in "
        "its valid window, or a value handed over to one that holds from a later date (a "
        "history fact, until its valid_to). A change dated in the future leaves the old value "
        "here until that date, and the new one from then; never both, never neither.",
    )
    q: str | None = Field(None, max_length=VALUE_MAX_CHARS, description="Text search in values.")
    cursor: str | None = None
    limit: int = queries.DEFAULT_PAGE_SIZE


class ChangeParams(Schema):
    since: str = Field(description="ISO 8601 with a zone: the start of the window (inclusive).")
    until: str | None = Field(
        None, description="ISO 8601 with a zone: the end of the window (exclusive); now if absent."
    )
    agent_id: str | None = Field(None, description="One agent; every agent of the key if absent.")
    user: str | None = Field(None, max_length=KEY_MAX_CHARS, description="One user's facts only.")
    kind: str | None = Field(
        None,
        description="One kind or a comma-separated list of added, disputed, resolved, "
        "superseded, deleted, restored; every kind if absent.",
    )
    cursor: str | None = None
    limit: int = queries.DEFAULT_PAGE_SIZE


@router.post(
    "/facts", response={200: AssertOut, 409: ErrorOut}, summary="Assert a fact", auth=WRITE
)
def assert_fact(request: HttpRequest, response: HttpResponse, payload: FactAssertIn) -> dict:
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    result = services.assert_fact(
        agent=agent,
        claim=payload.claim(),
        source=services.SourceInput(**payload.source.model_dump()),
        actor=access.actor,
    )
    quota_warnings_out(response, list(result.warnings))
    return result.as_dict()


@router.post(
    "/facts/check", response=CheckOut, summary="Check text against the facts held", auth=READ
)
def check_text(request: HttpRequest, payload: FactCheckIn) -> dict:
    access = request_access(request)
    if payload.apply:  # applying what the check finds writes facts
        access.require_scope(Scope.WRITE)
    agent = access.agent(payload.agent_id)
    source = services.SourceInput(**payload.source.model_dump()) if payload.source else None
    result = services.check_text(
        agent=agent,
        user=payload.user,
        text=payload.text,
        apply=payload.apply,
        source=source,
        actor=access.actor,
        now=parse_time(payload.now, field="now"),
    )
    return services.check_result_to_dict(result)


@router.get("/facts", response=FactPageOut, summary="List facts", auth=READ)
def list_facts(request: HttpRequest, params: Query[FactListParams]) -> dict:
    agent = request_access(request).agent(params.agent_id)
    filters = queries.FactFilters(
        user=params.user,
        subject=params.subject,
        predicate=params.predicate,
        statuses=queries.parse_statuses(params.status),
        as_of=parse_time(params.as_of, field="as_of"),
        valid_at=parse_time(params.valid_at, field="valid_at"),
        in_force=params.in_force,
        search=params.q,
    )
    if filters.in_force and filters.as_of is not None:
        raise InvalidInput("in_force", "is about the world now or at valid_at, not with as_of")
    page = queries.list_facts(
        agent=agent, filters=filters, cursor=params.cursor, limit=params.limit
    )
    # Served to the agent: one UPDATE for the page (reads by a person never count).
    services.record_fact_access([f.pk for f in page.items])
    return {
        "items": [queries.fact_to_dict(f) for f in page.items],
        "next_cursor": page.next_cursor,
    }


@router.get(
    "/facts/changes",
    response=ChangePageOut,
    summary="What changed in the facts between two times",
    description="The changes to the facts dated in [since, until): facts added, disputed, "
    "resolved (accepted or rejected), superseded (replaced by another value), ended, "
    "called off (a change to come), undone (a decision taken back), resumed (current again "
    "after an undo), reopened, deleted and restored. Newest first; `next_cursor` continues "
    "after the last item. Each change carries the fact as it is now. Every change keeps its "
    "own time (a fact deleted twice shows both deletions). Reading changes records no "
    "access.",
    auth=READ,
)
def list_changes(request: HttpRequest, params: Query[ChangeParams]) -> dict:
    access = request_access(request)
    limit = clean_limit(params.limit)
    agents = [access.agent(params.agent_id)] if params.agent_id else access.agents()
    filters = changes.change_filters(
        since=parse_time(params.since, field="since"),
        until=parse_time(params.until, field="until"),
        now=timezone.now(),
        user=params.user,
        kind=params.kind,
    )
    page = changes.list_changes(agents=agents, filters=filters, cursor=params.cursor, limit=limit)
    return {
        "items": [changes.change_to_dict(change) for change in page.items],
        "next_cursor": page.next_cursor,
    }


@router.get(
    "/facts/{int:fact_id}",
    response=FactDetailOut,
    summary="A fact with sources and history",
    auth=READ,
)
def get_fact(request: HttpRequest, fact_id: int) -> dict:
    fact = queries.get_fact(access=request_access(request), fact_id=fact_id)
    detail = queries.fact_detail(fact)
    services.record_fact_access([fact.pk])
    return detail


@router.post(
    "/facts/{int:fact_id}/resolve",
    response={200: FactDetailOut, 409: ErrorOut},
    summary="Accept or reject",
    auth=WRITE,
)
def resolve_fact(request: HttpRequest, fact_id: int, payload: ResolveIn) -> dict:
    access = request_access(request)
    fact = queries.get_fact(access=access, fact_id=fact_id)
    fact = services.resolve_fact(
        fact=fact, action=payload.action, reason=payload.reason, actor=access.actor
    )
    return queries.fact_detail(fact)


@router.post(
    "/facts/{int:fact_id}/reopen",
    response={200: FactDetailOut, 409: ErrorOut},
    summary="Reopen a rejected fact",
    description="The trust rules decide again: it waits as disputed beside the slot's "
    "current value, or becomes current when the slot is empty or its current value is less "
    "trusted. 409 `fact_not_rejected` for a fact that is not rejected, "
    "`value_already_current` when the current value is the same.",
    auth=WRITE,
)
def reopen_fact(request: HttpRequest, fact_id: int, payload: ReopenIn) -> dict:
    access = request_access(request)
    fact = queries.get_fact(access=access, fact_id=fact_id)
    fact = services.reopen_fact(fact=fact, reason=payload.reason, actor=access.actor)
    return queries.fact_detail(fact)


@router.post(
    "/facts/{int:fact_id}/undo",
    response={200: FactDetailOut, 409: ErrorOut},
    summary="Undo your own accept or reject",
    description="Within DEWEE_UNDO_SECONDS of the decision, by the same key or person that "
    "made it: an accepted fact waits again as disputed and the value it replaced is current "
    "again; a rejected one waits again. 409 `undo_refused` (with the reason) when the "
    "window passed, someone else decided, the slot changed since, or the fact's latest "
    "change is no accept or reject (re-confirmed, reopened, restored, deleted, ended).",
    auth=WRITE,
)
def undo_fact(request: HttpRequest, fact_id: int) -> dict:
    access = request_access(request)
    fact = queries.get_fact(access=access, fact_id=fact_id)
    fact = services.undo_resolution(fact=fact, actor=access.actor)
    return queries.fact_detail(fact)


@router.delete(
    "/facts/{int:fact_id}",
    response={200: FactDetailOut, 409: ErrorOut},
    summary="Soft-delete a fact",
    auth=WRITE,
)
def delete_fact(request: HttpRequest, fact_id: int, reason: str = "") -> dict:
    access = request_access(request)
    fact = queries.get_fact(access=access, fact_id=fact_id)
    fact = services.delete_fact(fact=fact, reason=reason, actor=access.actor)
    return queries.fact_detail(fact)


@router.post(
    "/facts/{int:fact_id}/restore",
    response={200: RestoreOut, 409: ErrorOut},
    summary="Restore a deleted fact",
    description="Brings a soft-deleted fact back, placed by the trust rules as if asserted "
    "now against its slot's current value: current, disputed (waiting for review) or "
    "history. 409 fact_not_deleted for a fact that is not deleted. A fact erased by forget "
    "no longer exists and cannot be restored: 404.",
    auth=WRITE,
)
def restore_fact(request: HttpRequest, fact_id: int, payload: RestoreIn) -> dict:
    access = request_access(request)
    fact = queries.get_fact(access=access, fact_id=fact_id)
    result = services.restore_fact(fact=fact, reason=payload.reason, actor=access.actor)
    return {
        "outcome": result.outcome,
        "fact": queries.fact_detail(result.fact),
        "other": queries.fact_to_dict(result.other) if result.other else None,
    }


@router.post(
    "/facts/forget",
    response={200: ReceiptOut | ForgetPreviewOut},
    summary="Erase every fact about a user or a subject, or one subject of one user",
    auth=ADMIN,
)
def forget_facts(request: HttpRequest, payload: ForgetIn) -> dict:
    access = request_access(request)
    agent = access.agent(payload.agent_id)
    scope = services.forget_scope(user=payload.user, subject=payload.subject)
    counts = services.count_forgettable(agent=agent, scope=scope)
    if payload.dry_run:
        return {"dry_run": True, "scope": scope.as_dict(), "counts": counts}
    if not payload.confirm:
        raise ConfirmationRequired(
            f'This erases {counts["facts"]} facts for good; send "confirm": true to proceed',
            details={"counts": counts},
        )
    receipt = services.forget_facts(agent=agent, scope=scope, actor=access.actor)
    return receipt_to_dict(receipt)
