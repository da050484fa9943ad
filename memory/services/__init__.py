"""Writes of the memory app: tenancy (workspaces, agents, keys, audit), memories, sessions.

Every interface imports from here; each function is the one place its rule lives.
"""

from memory.services.indexing import ReindexProgress, ensure_vector_index, reindex_agent
from memory.services.memories import (
    MemoryInput,
    bump_memory_version,
    delete_memory,
    forget_memories,
    memory_tags,
    record_access,
    store_memories,
    store_memories_as,
    update_memory,
    user_tags,
)
from memory.services.sessions import SessionEnded, end_session, start_session, touch_session
from memory.services.tenancy import (
    API_KEY_PREFIX,
    create_agent,
    create_api_key,
    create_workspace,
    default_workspace,
    ensure_agent,
    get_workspace,
    hash_api_key,
    record_event,
    revoke_api_key,
)

__all__ = [
    "API_KEY_PREFIX",
    "MemoryInput",
    "ReindexProgress",
    "SessionEnded",
    "bump_memory_version",
    "create_agent",
    "create_api_key",
    "create_workspace",
    "default_workspace",
    "delete_memory",
    "end_session",
    "ensure_agent",
    "ensure_vector_index",
    "forget_memories",
    "get_workspace",
    "hash_api_key",
    "memory_tags",
    "record_access",
    "record_event",
    "reindex_agent",
    "revoke_api_key",
    "start_session",
    "store_memories",
    "store_memories_as",
    "touch_session",
    "update_memory",
    "user_tags",
]
