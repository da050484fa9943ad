"""Test data made through the product's own services, so it obeys every rule."""

from typing import Any

from facts.models import Fact
from facts.services import AssertResult, Claim, SourceInput, assert_fact
from tenancy.models import Agent, Workspace
from tenancy.services import create_agent, create_api_key, create_workspace

_counter = {"n": 0}


def _next() -> int:
    _counter["n"] += 1
    return _counter["n"]


def make_workspace(slug: str | None = None) -> Workspace:
    return create_workspace(slug=slug or f"ws-{_next()}")


def make_agent(workspace: Workspace, agent_id: str | None = None) -> Agent:
    return create_agent(workspace=workspace, agent_id=agent_id or f"agent-{_next()}")


ALL_SCOPES = ("read", "write", "admin")


def make_key(workspace: Workspace, *, name: str = "test key", **options: Any) -> str:
    """A key's secret; the key may do everything (all three scopes) unless ``options``
    (create_api_key's scopes, agent_ids, expires_at) say otherwise."""
    options.setdefault("scopes", ALL_SCOPES)
    _key, secret = create_api_key(workspace=workspace, name=name, actor="test", **options)
    return secret


def source(**overrides: Any) -> SourceInput:
    fields = {"kind": "conversation_summary", "reference": "conv-1", "excerpt": "said so"}
    return SourceInput(**{**fields, **overrides})


def state(agent: Agent, value: str, **overrides: Any) -> AssertResult:
    """Assert ``value`` into the default slot (user u1, user.employer), from the default
    source; ``overrides`` are fields of the Claim, or ``source``."""
    learned_from = overrides.pop("source", None) or source()
    fields: dict[str, Any] = {"user": "u1", "subject": "user", "predicate": "employer"}
    claim = Claim(value=value, **{**fields, **overrides})
    return assert_fact(agent=agent, claim=claim, source=learned_from, actor="test")


def refreshed(fact: Fact) -> Fact:
    return Fact.objects.get(pk=fact.pk)
