"""Writes of the memory app: tenancy (workspaces, agents, keys, audit), memories, sessions.

Every interface imports from here; each function is the one place its rule lives.
"""

from memory.services.consolidation import (
    DedupReport,
    autopilot_consolidate_pass,
    autopilot_dedup_pass,
    consolidate_memories,
    deduplicate_memories,
)
from memory.services.decay import DecayResult, decay_pass
from memory.services.expiry import expiry_pass
from memory.services.feedback import FeedbackResult, record_feedback
from memory.services.indexing import ReindexProgress, ensure_vector_index, reindex_agent
from memory.services.memories import (
    MemoryInput,
    bump_memory_version,
    delete_memory,
    erase_memories,
    forget_memories,
    memory_tags,
    record_access,
    store_memories,
    store_memories_as,
    update_memory,
    user_tags,
)
from memory.services.policy import MemoryPolicy, get_memory_policy, set_memory_policy
from memory.services.sessions import (
    SessionEnded,
    end_session,
    idle_sessions_pass,
    record_session_activity,
    start_session,
    touch_session,
)
from memory.services.tenancy import (
    API_KEY_PREFIX,
    add_member,
    change_member_role,
    create_agent,
    create_api_key,
    create_workspace,
    default_workspace,
    ensure_agent,
    get_workspace,
    hash_api_key,
    record_event,
    remove_member,
    revoke_api_key,
)

__all__ = [
    "API_KEY_PREFIX",
    "DecayResult",
    "DedupReport",
    "FeedbackResult",
    "MemoryInput",
    "MemoryPolicy",
    "ReindexProgress",
    "SessionEnded",
    "add_member",
    "autopilot_consolidate_pass",
    "autopilot_dedup_pass",
    "bump_memory_version",
    "change_member_role",
    "consolidate_memories",
    "create_agent",
    "create_api_key",
    "create_workspace",
    "decay_pass",
    "deduplicate_memories",
    "default_workspace",
    "delete_memory",
    "end_session",
    "ensure_agent",
    "ensure_vector_index",
    "erase_memories",
    "expiry_pass",
    "forget_memories",
    "get_memory_policy",
    "get_workspace",
    "hash_api_key",
    "idle_sessions_pass",
    "memory_tags",
    "record_access",
    "record_event",
    "record_feedback",
    "record_session_activity",
    "reindex_agent",
    "remove_member",
    "revoke_api_key",
    "set_memory_policy",
    "start_session",
    "store_memories",
    "store_memories_as",
    "touch_session",
    "update_memory",
    "user_tags",
]
