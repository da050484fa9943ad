"""A LangGraph ``BaseStore`` kept in Dewee (``pip install 'dewee-client[langgraph]'``).

Namespaces are ``(agent_id, user)``: a user's memories of that agent, which recall keeps from
every other user; ``(agent_id,)`` is the agent's shared memories (of no user). An item is one
memory: its text is the value's ``"content"`` (or ``"text"``, ``"memory"``; else the value as
JSON), the whole value and its key ride in the memory's metadata, and the key is also a tag
(``lg:<key>``), which is how ``get`` finds it. ``search`` with a query is Dewee's recall
(meaning and keywords, with its scores); without one, the namespace's memories newest first.
Memories stored by other means (the REST API, the CLI) show up too, keyed by their id.

Searching ``(agent_id,)`` with a query searches every user's memories, which needs a key with
the ``admin`` scope (the server's rule for ``scope: all_users``). TTLs are Dewee's own
(``ttl_seconds`` on the memory), not LangGraph's: ``supports_ttl`` is False.
"""

import asyncio
import hashlib
import json
from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from langgraph.store.base import (
    BaseStore,
    GetOp,
    InvalidNamespaceError,
    Item,
    ListNamespacesOp,
    Op,
    PutOp,
    Result,
    SearchItem,
    SearchOp,
)

from dewee_client import errors, models
from dewee_client.client import Dewee

TAG_PREFIX = "lg:"
METADATA_KEY = "langgraph"
TEXT_FIELDS = ("content", "text", "memory")
# Recall returns at most this many memories; a search with a filter asks for them all and
# filters here.
RECALL_MAX = 100


class DeweeStore(BaseStore):
    """``DeweeStore(Dewee(url, key))``; ``graph.compile(store=DeweeStore(...))``."""

    supports_ttl = False

    def __init__(self, client: Dewee) -> None:
        self.client = client

    # -- BaseStore -------------------------------------------------------------------------

    def batch(self, ops: Iterable[Op]) -> list[Result]:
        results: list[Result] = []
        for op in ops:
            if isinstance(op, GetOp):
                results.append(self._get(op.namespace, op.key))
            elif isinstance(op, SearchOp):
                results.append(
                    self._search(op.namespace_prefix, op.query, op.filter, op.limit, op.offset)
                )
            elif isinstance(op, PutOp):
                self._put(op.namespace, op.key, op.value)
                results.append(None)
            elif isinstance(op, ListNamespacesOp):
                results.append(self._namespaces(op))
            else:
                raise TypeError(f"unknown operation {op!r}")
        return results

    async def abatch(self, ops: Iterable[Op]) -> list[Result]:
        # The sync client in a worker thread: one code path for both, and the event loop is
        # never blocked.
        return await asyncio.to_thread(self.batch, list(ops))

    # -- operations ------------------------------------------------------------------------

    def _get(self, namespace: tuple[str, ...], key: str) -> Item | None:
        memory = self._find(namespace, key)
        return None if memory is None else _item(memory, namespace)

    def _put(self, namespace: tuple[str, ...], key: str, value: Mapping[str, Any] | None) -> None:
        agent_id, user = _split(namespace)
        existing = self._find(namespace, key)
        if value is None:
            if existing is not None:
                self.client.delete_memory(existing.id, reason="deleted through LangGraph")
            return
        content = _text(value)
        metadata = {METADATA_KEY: {"key": key, "value": dict(value)}}
        if existing is not None:
            self.client.update_memory(existing.id, content=content, metadata=metadata)
            return
        self.client.store(
            content, agent_id=agent_id, user=user, tags=[_tag(key)], metadata=metadata
        )

    def _search(
        self,
        prefix: tuple[str, ...],
        query: str | None,
        filter: dict[str, Any] | None,
        limit: int,
        offset: int,
    ) -> list[SearchItem]:
        if not prefix:
            raise InvalidNamespaceError("search needs at least the agent: (agent_id,)")
        agent_id, user = _split(prefix)
        try:
            found = self._found(agent_id, user, query, limit + offset, bool(filter))
        except errors.AgentNotFound:  # no memory yet
            return []
        if filter:
            found = [item for item in found if _matches(item.value, filter)]
        return found[offset : offset + limit]

    def _found(
        self, agent_id: str, user: str | None, query: str | None, wanted: int, filtered: bool
    ) -> list[SearchItem]:
        found: list[SearchItem] = []
        if query:
            hits = self.client.recall(
                query,
                agent_id=agent_id,
                # The shared memories recall adds for a user are dropped below: ask for more.
                top_k=RECALL_MAX if filtered else min(RECALL_MAX, 2 * wanted),
                user=user,
                scope=None if user is not None else "all_users",
            ).items
            for hit in hits:
                if user is not None and hit.user != user:
                    continue  # a shared memory: namespace (agent_id,), not under the prefix
                found.append(_search_item(hit, hit.score))
            return found
        for memory in self.client.memories(agent_id=agent_id, user=user):
            found.append(_search_item(memory, None))
            if not filtered and len(found) >= wanted:
                break
        return found

    def _namespaces(self, op: ListNamespacesOp) -> list[tuple[str, ...]]:
        """The agents' namespaces, ``(agent_id,)``: no API lists an agent's users."""
        namespaces: list[tuple[str, ...]] = [(agent.agent_id,) for agent in self.client.agents()]
        for condition in op.match_conditions or ():
            path = tuple(condition.path)
            if condition.match_type == "prefix":
                namespaces = [ns for ns in namespaces if _fits(ns, path)]
            else:
                namespaces = [ns for ns in namespaces if _fits(ns[::-1], path[::-1])]
        return namespaces[op.offset : op.offset + op.limit]

    def _find(self, namespace: tuple[str, ...], key: str) -> models.Memory | None:
        agent_id, user = _split(namespace)
        shared = True if user is None else None
        try:
            for memory in self.client.memories(
                agent_id=agent_id, user=user, shared=shared, tags=[_tag(key)], page_size=1
            ):
                return memory
        except errors.AgentNotFound:  # the agent is made by its first memory
            return None
        if key.isdigit():  # a memory stored by other means, keyed by its id
            try:
                memory = self.client.get_memory(int(key))
            except errors.MemoryNotFound:
                return None
            if (memory.agent_id, memory.user) == (agent_id, user):
                return memory
        return None


def _split(namespace: tuple[str, ...]) -> tuple[str, str | None]:
    if len(namespace) == 1:
        return namespace[0], None
    if len(namespace) == 2:
        return namespace[0], namespace[1]
    raise InvalidNamespaceError(
        f"Dewee namespaces are (agent_id,) or (agent_id, user), not {namespace!r}"
    )


def _tag(key: str) -> str:
    # A tag holds at most 100 characters: a longer key is tagged by its hash.
    tag = TAG_PREFIX + key
    return (
        tag
        if len(tag) <= 100
        else TAG_PREFIX + "sha256:" + hashlib.sha256(key.encode()).hexdigest()
    )


def _text(value: Mapping[str, Any]) -> str:
    for field in TEXT_FIELDS:
        if isinstance(value.get(field), str) and value[field].strip():
            return str(value[field])
    return json.dumps(dict(value), ensure_ascii=False, sort_keys=True)


def _namespace_of(memory: models.Memory) -> tuple[str, ...]:
    return (memory.agent_id,) if memory.user is None else (memory.agent_id, memory.user)


def _key_and_value(memory: models.Memory) -> tuple[str, dict[str, Any]]:
    kept = memory.metadata.get(METADATA_KEY)
    if isinstance(kept, dict) and "key" in kept and isinstance(kept.get("value"), dict):
        return str(kept["key"]), kept["value"]
    return str(memory.id), {"content": memory.content, "tags": memory.tags}


def _item(memory: models.Memory, namespace: tuple[str, ...]) -> Item:
    key, value = _key_and_value(memory)
    return Item(
        value=value,
        key=key,
        namespace=namespace,
        created_at=datetime.fromisoformat(memory.created_at),
        updated_at=datetime.fromisoformat(memory.updated_at),
    )


def _search_item(memory: models.Memory, score: float | None) -> SearchItem:
    key, value = _key_and_value(memory)
    return SearchItem(
        namespace=_namespace_of(memory),
        key=key,
        value=value,
        created_at=datetime.fromisoformat(memory.created_at),
        updated_at=datetime.fromisoformat(memory.updated_at),
        score=score,
    )


def _matches(value: dict[str, Any], filter: dict[str, Any]) -> bool:
    """LangGraph's filter: a field equal to a value, or compared with $eq, $ne, $gt, $gte,
    $lt, $lte."""
    compare = {
        "$eq": lambda a, b: a == b,
        "$ne": lambda a, b: a != b,
        "$gt": lambda a, b: a is not None and a > b,
        "$gte": lambda a, b: a is not None and a >= b,
        "$lt": lambda a, b: a is not None and a < b,
        "$lte": lambda a, b: a is not None and a <= b,
    }
    for field, wanted in filter.items():
        actual = value.get(field)
        if isinstance(wanted, dict) and wanted and set(wanted) <= set(compare):
            if not all(compare[op](actual, operand) for op, operand in wanted.items()):
                return False
        elif actual != wanted:
            return False
    return True


def _fits(namespace: tuple[str, ...], path: tuple[str, ...]) -> bool:
    return len(path) <= len(namespace) and all(
        part in ("*", have) for part, have in zip(path, namespace, strict=False)
    )
