"""The REST shapes of agents and of their memory policy."""

from datetime import datetime
from typing import Any

from ninja import Schema
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    StrictStr,
)

from dewee.schemas import StrictSchema


class AgentIn(StrictSchema):
    agent_id: StrictStr = Field(description="Unique in the deployment; at most 241 bytes.")
    name: StrictStr = ""
    metadata: dict[str, Any] = Field(default_factory=dict)


class AgentOut(Schema):
    agent_id: str
    workspace: str
    name: str | None
    metadata: dict[str, Any]
    created_at: datetime


class MemoryPolicyIn(BaseModel):
    """Validated by memory.services.policy (one set of rules for every interface), so the
    fields here only document the shape; anything else is refused there, by name. A plain
    pydantic model: ninja's Schema drops the extra keys the service must see to refuse."""

    model_config = ConfigDict(extra="allow")

    strategy: Any = Field(
        None,
        description="Decay strategy per memory type: exponential, linear, step_function, "
        "power_law, logarithmic or flat; types left out follow the server's.",
        examples=[{"working": "linear", "semantic": "flat"}],
    )
    default_ttl_seconds: Any = Field(
        None,
        description="TTL per memory type for memories stored without ttl_seconds or "
        "expires_at: null (none) or 1 s to 10 years.",
        examples=[{"working": 86400}],
    )
    spaced_repetition_factor: Any = Field(
        None,
        description="Each recall of a memory with an expiry extends it by access_count x "
        "factor x base_interval_seconds; 0 to 100, 0 turns it off (default 1.0).",
    )
    base_interval_seconds: Any = Field(
        None, description="1 s to one year (default 86400, one day)."
    )
    fact_half_life_days: Any = Field(
        None,
        description="Facts' freshness half-life in days per category (1 to 36,500); "
        "categories left out keep the server's (employment 180, location 365, ...).",
        examples=[{"employment": 90}],
    )
    end_expired_facts: Any = Field(
        None,
        description="End this agent's expired facts automatically (default false); "
        "audited as system:freshness.",
    )
    extract_facts: Any = Field(
        None,
        description="Learn facts from each new memory about a user, by the worker after the "
        "store (default true); a store request can also ask for it inline or not at all.",
    )
    extract_entities: Any = Field(
        None, description="Derive entities (tags, entity rows) from new memories (default true)."
    )
    entity_types: Any = Field(
        None, description="Keep only these entity types (default: all).", examples=[["person"]]
    )


class MemoryPolicyOut(Schema):
    strategy: dict[str, str]
    default_ttl_seconds: dict[str, int | None]
    spaced_repetition_factor: float
    base_interval_seconds: int
    extract_facts: bool
    extract_entities: bool
    entity_types: list[str]
    fact_half_life_days: dict[str, int]
    end_expired_facts: bool
