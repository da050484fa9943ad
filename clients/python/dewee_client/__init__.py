"""Dewee's Python client: ``Dewee`` (sync) and ``AsyncDewee`` (asyncio), typed models of what
the API returns, and one exception class per error code.

    from dewee_client import Dewee

    with Dewee("http://127.0.0.1:8000", "dw_...", agent_id="helpdesk") as dewee:
        dewee.store("Ana is allergic to penicillin", user="u7", importance=0.9)
        hits = dewee.recall("Which medicine should we avoid?", user="u7").items
"""

from dewee_client import errors, models
from dewee_client.aio import AsyncDewee
from dewee_client.client import Dewee
from dewee_client.errors import DeweeError
from dewee_client.models import (
    Agent,
    AssertResult,
    BatchResult,
    CheckResult,
    Context,
    Fact,
    FactDetail,
    Memory,
    RecallHit,
    RecallResult,
    Session,
    StoredMemory,
)

__version__ = "0.1.0"
__all__ = [
    "Agent",
    "AssertResult",
    "AsyncDewee",
    "BatchResult",
    "CheckResult",
    "Context",
    "Dewee",
    "DeweeError",
    "Fact",
    "FactDetail",
    "Memory",
    "RecallHit",
    "RecallResult",
    "Session",
    "StoredMemory",
    "errors",
    "models",
]
