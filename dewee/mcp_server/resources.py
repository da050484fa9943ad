"""The MCP resources: what an agent holds about a user, and a conversation's memories,
read through the same queries as GET /v1/facts and GET /v1/sessions/{id}/memories."""

import re
from dataclasses import dataclass
from typing import Any
from urllib.parse import unquote

from django.utils import timezone

from dewee.errors import NotFound
from dewee.mcp_server.auth import Caller
from dewee.mcp_server.tools import plain
from facts import queries as fact_queries
from facts.models import Fact
from memory import services as memory_services
from memory.api.common import memory_page
from memory.queries import get_session, list_memories
from memory.recall import ALL_USERS, RecallFilters
from tenancy.models import Scope


@dataclass(frozen=True)
class Template:
    name: str
    uri_template: str
    pattern: re.Pattern[str]
    description: str


USER_FACTS = Template(
    name="user_facts",
    uri_template="dewee://users/{user}/facts",
    pattern=re.compile(r"^dewee://users/(?P<user>[^/]+)/facts$"),
    description="The agent's current facts about a user (the user id percent-encoded), "
    'e.g. dewee://users/ana/facts: [{"subject": "user", "predicate": "employer", '
    '"value": "Anthropic", ...}].',
)
SESSION_MEMORIES = Template(
    name="session_memories",
    uri_template="dewee://sessions/{session_id}/memories",
    pattern=re.compile(r"^dewee://sessions/(?P<session_id>[0-9]{1,18})/memories$"),
    description="A conversation's memories, newest first (the latest 100), e.g. "
    "dewee://sessions/12/memories.",
)
TEMPLATES = [USER_FACTS, SESSION_MEMORIES]
# Both are reads, as their REST operations are.
RESOURCE_SCOPE = Scope.READ
PAGE = 100


class ResourceNotFound(NotFound):
    code = "resource_not_found"


def read_resource(caller: Caller, uri: str) -> dict[str, Any]:
    caller.access.require_scope(RESOURCE_SCOPE)
    if match := USER_FACTS.pattern.match(uri):
        return _user_facts(caller, unquote(match["user"]))
    if match := SESSION_MEMORIES.pattern.match(uri):
        return _session_memories(caller, int(match["session_id"]))
    raise ResourceNotFound(
        f"No resource {uri}; these are served: " + ", ".join(t.uri_template for t in TEMPLATES)
    )


def _user_facts(caller: Caller, user: str) -> dict[str, Any]:
    filters = fact_queries.FactFilters(user=user, statuses=fact_queries.parse_statuses("current"))
    page = fact_queries.list_facts(agent=caller.agent(), filters=filters, cursor=None, limit=PAGE)
    Fact.objects.filter(pk__in=[f.pk for f in page.items]).mark_accessed(timezone.now())
    return plain({"items": [fact_queries.fact_to_dict(f) for f in page.items]})


def _session_memories(caller: Caller, session_id: int) -> dict[str, Any]:
    session = get_session(access=caller.access, session_id=session_id, agent=caller.agent())
    page = list_memories(
        agent=session.agent,
        filters=RecallFilters(session_id=session.pk, audience=ALL_USERS),
        limit=PAGE,
    )
    memory_services.record_session_activity(session_ids=[session.pk])
    return plain(memory_page(page))
