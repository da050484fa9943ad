"""Writes of the memory app: memories, sessions, feedback, policy and maintenance.

Every interface imports from here; each function is the one place its rule lives. The
modules of this package import one another by their own paths, never through this one.
"""

from memory.services.access import record_access
from memory.services.autopilot import autopilot_consolidate_pass, autopilot_dedup_pass
from memory.services.decay import DecayResult, decay_pass
from memory.services.dedup import DedupReport, deduplicate_memories
from memory.services.editing import update_memory
from memory.services.erasure import (
    delete_memory,
    delete_session,
    erase_memories,
    forget_memories,
    session_erasure_ids,
)
from memory.services.expiry import expiry_pass
from memory.services.feedback import FeedbackResult, record_feedback
from memory.services.graph_rebuild import GraphRebuilt, rebuild_graph
from memory.services.idle_sessions import idle_sessions_pass
from memory.services.indexing import ReindexProgress, ensure_vector_index, reindex_agent
from memory.services.links import link_memories, unlink_memories
from memory.services.memory_input import MemoryInput
from memory.services.merging import consolidate_memories
from memory.services.policy import MemoryPolicy, get_memory_policy, set_memory_policy
from memory.services.session_end import SessionEnded, end_session
from memory.services.sessions import (
    record_session_activity,
    start_session,
    start_session_as,
    touch_session,
)
from memory.services.storing import memory_tags, store_memories, store_memories_as, user_tags
from memory.services.vectors import bump_memory_version

__all__ = [
    "DecayResult",
    "DedupReport",
    "FeedbackResult",
    "GraphRebuilt",
    "MemoryInput",
    "MemoryPolicy",
    "ReindexProgress",
    "SessionEnded",
    "autopilot_consolidate_pass",
    "autopilot_dedup_pass",
    "bump_memory_version",
    "consolidate_memories",
    "decay_pass",
    "deduplicate_memories",
    "delete_memory",
    "delete_session",
    "end_session",
    "ensure_vector_index",
    "erase_memories",
    "expiry_pass",
    "forget_memories",
    "get_memory_policy",
    "idle_sessions_pass",
    "link_memories",
    "memory_tags",
    "rebuild_graph",
    "record_access",
    "record_feedback",
    "record_session_activity",
    "reindex_agent",
    "session_erasure_ids",
    "set_memory_policy",
    "start_session",
    "start_session_as",
    "store_memories",
    "store_memories_as",
    "touch_session",
    "unlink_memories",
    "update_memory",
    "user_tags",
]
