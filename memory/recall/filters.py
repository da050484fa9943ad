"""Recall's filters: which of the agent's memories a recall (or the memory list) may return,
checked once and applied as one queryset."""

from dataclasses import dataclass, field
from datetime import datetime

from django.db.models import Q, QuerySet

from dewee.errors import InvalidInput
from memory.exceptions import SessionNotFound
from memory.models import Memory, MemoryQuerySet, MemoryTag, MemoryType, Session
from tenancy.models import Agent
from tenancy.validation import clean_tags, clean_unit_interval, clean_user


@dataclass(frozen=True)
class Audience:
    """Whose memories a recall may return: the memories of ``user`` and the agent's shared
    ones (no user). With ``user`` "", the shared ones only; with ``all_users``, every
    user's (an operator's search, an admin key that asks for it)."""

    user: str = ""
    all_users: bool = False

    def q(self, prefix: str = "") -> Q:
        """The condition on Memory rows (on a related model's rows with ``prefix``, such as
        "memory__"): no user (NULL or ""), or this user; every row for all users."""
        if self.all_users:
            return Q()
        field = f"{prefix}user_ref"
        shared = Q(**{f"{field}__isnull": True}) | Q(**{field: ""})
        return shared | Q(**{field: self.user}) if self.user else shared


SHARED_ONLY = Audience()
ALL_USERS = Audience(all_users=True)


def audience_of(
    *, user: object = None, all_users: bool = False, session_user: str = ""
) -> Audience:
    """The boundary a caller asks for: a user's (given and not empty), every user's, or,
    with neither, the shared memories only. Asking for both is refused: it is unclear which
    was meant. (Whether the caller may see every user is the interface's check.) A request
    within a session of a user (``session_user``) is that user's, unless it names another
    one, which is refused."""
    user = clean_user(user) if user is not None else ""
    if session_user and not all_users:
        if user and user != session_user:
            raise InvalidInput("user", "differs from the user of the session", code="user_mismatch")
        user = session_user
    if user and all_users:
        raise InvalidInput(
            "scope", "all_users cannot be combined with a user", code="conflicting_scope"
        )
    if all_users:
        return ALL_USERS
    return Audience(user=user) if user else SHARED_ONLY


@dataclass(frozen=True)
class RecallFilters:
    session_id: int | None = None
    tags: list[str] = field(default_factory=list)
    memory_type: str | None = None
    min_importance: float | None = None
    max_importance: float | None = None
    since: datetime | None = None
    until: datetime | None = None
    # The start of the user id the memories are about (Memory.user_ref), in any case: the
    # dashboard's forgiving list filter.
    user: str | None = None
    # The user boundary: whose memories may come back at all (not one of the filters that
    # ``any`` counts: vector search applies it from its own cache). Shared memories only
    # unless the caller names a user or asks for every user: a forgotten caller cannot
    # hand one user's memories to another.
    audience: Audience = SHARED_ONLY
    # The exact user whose own memories a list shows (an agent developer's list filter);
    # "" for memories of no user; None for no such filter.
    owner: str | None = None

    @property
    def any(self) -> bool:
        return any(
            value not in (None, [])
            for value in (
                self.session_id,
                self.tags,
                self.memory_type,
                self.min_importance,
                self.max_importance,
                self.since,
                self.until,
                self.user,
                self.owner,
            )
        )


def clean_filters(agent: Agent, filters: RecallFilters) -> None:
    """A known memory type, a valid importance range and tags, a time window that does not
    end before it starts, and a session of this agent."""
    if filters.memory_type is not None and filters.memory_type not in MemoryType.values:
        raise InvalidInput("memory_type", f"must be one of {', '.join(MemoryType.values)}")
    clean_importance_range(filters)
    clean_tags(filters.tags)
    if filters.since and filters.until and filters.until < filters.since:
        raise InvalidInput("until", "must not be before since")
    if (
        filters.session_id is not None
        and not Session.objects.filter(agent=agent, pk=filters.session_id).exists()
    ):
        raise SessionNotFound(f"Session {filters.session_id} not found for this agent")


def clean_importance_range(filters: RecallFilters) -> None:
    """Both bounds in [0, 1], the upper one not below the lower one."""
    low, high = filters.min_importance, filters.max_importance
    if low is not None:
        clean_unit_interval(low, field="min_importance")
    if high is not None:
        clean_unit_interval(high, field="max_importance")
        if low is not None and high < low:
            raise InvalidInput("max_importance", "must not be below min_importance")


def candidate_memories(agent: Agent, filters: RecallFilters, now: datetime) -> MemoryQuerySet:
    """The agent's live memories that pass ``filters``."""
    return narrow_memories(
        Memory.objects.filter(agent=agent), filters, now, tags=MemoryTag.objects.filter(agent=agent)
    )


def narrow_memories(
    memories: MemoryQuerySet, filters: RecallFilters, now: datetime, *, tags: QuerySet[MemoryTag]
) -> MemoryQuerySet:
    """The live ones of ``memories`` that pass ``filters``; ``tags`` the tag rows of the
    same agents (a tag filter reads them through their agent's index)."""
    memories = memories.live(now)
    if filters.session_id is not None:
        memories = memories.filter(session_id=filters.session_id)
    if filters.memory_type:
        memories = memories.filter(memory_type=filters.memory_type)
    if not filters.audience.all_users:
        memories = memories.filter(filters.audience.q())
    if filters.user:
        memories = memories.filter(user_ref__istartswith=filters.user)
    if filters.owner is not None:
        memories = memories.filter(
            Q(user_ref=filters.owner)
            if filters.owner
            else Q(user_ref__isnull=True) | Q(user_ref="")
        )
    if filters.min_importance is not None:
        memories = memories.filter(importance__gte=filters.min_importance)
    if filters.max_importance is not None:
        memories = memories.filter(importance__lte=filters.max_importance)
    if filters.since:
        memories = memories.filter(created_at__gte=filters.since)
    if filters.until:
        memories = memories.filter(created_at__lte=filters.until)
    for tag in filters.tags:
        memories = memories.filter(pk__in=tags.filter(name=tag).values("memory_id"))
    return memories


def session_user(agent: Agent, session_id: int | None) -> str:
    """The user of the agent's session ``session_id`` ("" for none, or no such session:
    the filters' check reports a missing one)."""
    if session_id is None:
        return ""
    found = Session.objects.filter(agent=agent, pk=session_id).values_list("user_ref", flat=True)
    return next(iter(found), "") or ""
