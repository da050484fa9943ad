"""The synchronous client. dewee_client/aio.py is the same client with ``async`` methods;
tests/client/test_schema.py checks that both have the same methods with the same parameters.
"""

import time
from collections.abc import Iterator, Sequence
from typing import Any

import httpx

from dewee_client import _core, models
from dewee_client._core import Call, build

USER_AGENT = "dewee-client-python/0.1.0"


class Dewee:
    """A client for one Dewee server and API key.

    ``agent_id`` is the agent every call acts for unless a call names another. Errors raise
    the :mod:`dewee_client.errors` class of their code. A 429 or 503 is tried again after the
    server's Retry-After (at most ``max_retries`` times, and never after waiting more than
    ``max_retry_wait`` seconds at once); a refused connection too, and a read that timed out.
    """

    def __init__(
        self,
        base_url: str,
        api_key: str | None = None,
        *,
        agent_id: str | None = None,
        timeout: float | httpx.Timeout | None = _core.DEFAULT_TIMEOUT,
        max_retries: int = _core.DEFAULT_MAX_RETRIES,
        max_retry_wait: float = _core.DEFAULT_MAX_RETRY_WAIT,
        http_client: httpx.Client | None = None,
    ) -> None:
        self.agent_id = agent_id
        self.retries = _core.RetryPolicy(max_retries=max_retries, max_wait=max_retry_wait)
        self._owns_http = http_client is None
        self._http = http_client or httpx.Client()
        self._http.base_url = httpx.URL(base_url.rstrip("/"))
        self._http.timeout = httpx.Timeout(timeout)
        self._http.headers.update(_core.headers(api_key, USER_AGENT))

    def close(self) -> None:
        if self._owns_http:
            self._http.close()

    def __enter__(self) -> "Dewee":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- memories --------------------------------------------------------------------------

    def store(
        self,
        content: str,
        *,
        user: str | None = None,
        session_id: int | None = None,
        memory_type: str | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
        metadata: models.JSON | None = None,
        speaker: str | None = None,
        ttl_seconds: int | None = None,
        expires_at: str | None = None,
        source_refs: Sequence[str] | None = None,
        created_at: str | None = None,
        extract_facts: str | None = None,
        agent_id: str | None = None,
    ) -> models.StoredMemory:
        """Store one memory (of ``user``, or of the session's user; shared without either)."""
        return self._send(
            build(
                "store",
                agent_id=self._agent(agent_id),
                content=content,
                user=user,
                session_id=session_id,
                memory_type=memory_type,
                importance=importance,
                tags=_core.as_list(tags),
                metadata=metadata,
                speaker=speaker,
                ttl_seconds=ttl_seconds,
                expires_at=expires_at,
                source_refs=_core.as_list(source_refs),
                created_at=created_at,
                extract_facts=extract_facts,
            )
        )

    remember = store

    def store_batch(
        self,
        items: Sequence[models.JSON],
        *,
        extract_facts: str | None = None,
        agent_id: str | None = None,
    ) -> models.BatchResult:
        """Store up to 100 memories at once, all or none; each item takes store's fields."""
        return self._send(
            build(
                "store_batch",
                agent_id=self._agent(agent_id),
                items=list(items),
                extract_facts=extract_facts,
            )
        )

    def get_memory(self, memory_id: int) -> models.Memory:
        return self._send(build("get_memory", path={"memory_id": memory_id}))

    def update_memory(
        self,
        memory_id: int,
        *,
        content: str | None = None,
        memory_type: str | None = None,
        importance: float | None = None,
        tags: Sequence[str] | None = None,
        metadata: models.JSON | None = None,
    ) -> models.PatchedMemory:
        return self._send(
            build(
                "update_memory",
                path={"memory_id": memory_id},
                content=content,
                memory_type=memory_type,
                importance=importance,
                tags=_core.as_list(tags),
                metadata=metadata,
            )
        )

    def delete_memory(self, memory_id: int, *, reason: str | None = None) -> models.ForgetResult:
        return self._send(build("delete_memory", path={"memory_id": memory_id}, reason=reason))

    def forget(
        self,
        *,
        ids: Sequence[int] | None = None,
        tags: Sequence[str] | None = None,
        below_importance: float | None = None,
        agent_id: str | None = None,
    ) -> models.ForgetResult:
        """Delete the agent's memories by ids, by tags or below an importance (admin scope
        for tags and importance), with the facts learned only from them."""
        return self._send(
            build(
                "forget",
                agent_id=self._agent(agent_id),
                ids=_core.as_list(ids),
                tags=_core.as_list(tags),
                below_importance=below_importance,
            )
        )

    def memories(
        self,
        *,
        user: str | None = None,
        shared: bool | None = None,
        session_id: int | None = None,
        memory_type: str | None = None,
        tags: Sequence[str] | None = None,
        since: str | None = None,
        until: str | None = None,
        page_size: int | None = None,
        agent_id: str | None = None,
    ) -> Iterator[models.Memory]:
        """The agent's memories, newest first, fetched a page at a time as you iterate."""
        return self._iterate(
            "memories",
            agent_id=self._agent(agent_id),
            user=user,
            shared=shared,
            session_id=session_id,
            type=memory_type,
            tags=_core.as_list(tags),
            since=since,
            until=until,
            limit=page_size,
        )

    def recall(
        self,
        query: str,
        *,
        user: str | None = None,
        session_id: int | None = None,
        top_k: int | None = None,
        tags: Sequence[str] | None = None,
        memory_type: str | None = None,
        min_importance: float | None = None,
        max_importance: float | None = None,
        since: str | None = None,
        until: str | None = None,
        routing: str | None = None,
        fusion: str | None = None,
        weights: models.JSON | None = None,
        explain: bool | None = None,
        rerank: bool | None = None,
        scope: str | None = None,
        agent_id: str | None = None,
    ) -> models.RecallResult:
        """The memories most relevant to ``query``: ``user``'s and the shared ones (only the
        shared ones without a user or session)."""
        return self._send(
            build(
                "recall",
                agent_id=self._agent(agent_id),
                query=query,
                user=user,
                session_id=session_id,
                top_k=top_k,
                tags=_core.as_list(tags),
                memory_type=memory_type,
                min_importance=min_importance,
                max_importance=max_importance,
                since=since,
                until=until,
                routing=routing,
                fusion=fusion,
                weights=weights,
                explain=explain,
                rerank=rerank,
                scope=scope,
            )
        )

    def context(
        self,
        query: str = "",
        *,
        user: str | None = None,
        session_id: int | None = None,
        budget_tokens: int | None = None,
        top_k: int | None = None,
        agent_id: str | None = None,
    ) -> models.Context:
        """Everything for the next turn within ``budget_tokens``; ``.prompt`` is the block
        to put in the model's prompt."""
        return self._send(
            build(
                "context",
                agent_id=self._agent(agent_id),
                query=query,
                user=user,
                session_id=session_id,
                budget_tokens=budget_tokens,
                top_k=top_k,
            )
        )

    # -- sessions --------------------------------------------------------------------------

    def start_session(
        self,
        *,
        user: str | None = None,
        metadata: models.JSON | None = None,
        idle_timeout_secs: int | None = None,
        agent_id: str | None = None,
    ) -> models.Session:
        return self._send(
            build(
                "start_session",
                agent_id=self._agent(agent_id),
                user=user,
                metadata=metadata,
                idle_timeout_secs=idle_timeout_secs,
            )
        )

    def get_session(self, session_id: int) -> models.Session:
        return self._send(build("get_session", path={"session_id": session_id}))

    def end_session(self, session_id: int, *, summary: str | None = None) -> models.Session:
        return self._send(build("end_session", path={"session_id": session_id}, summary=summary))

    def touch_session(self, session_id: int) -> models.Session:
        return self._send(build("touch_session", path={"session_id": session_id}))

    def sessions(
        self,
        *,
        user: str | None = None,
        status: str | None = None,
        page_size: int | None = None,
        agent_id: str | None = None,
    ) -> Iterator[models.Session]:
        """The agent's sessions, newest first, a page at a time as you iterate."""
        return self._iterate(
            "sessions", agent_id=self._agent(agent_id), user=user, status=status, limit=page_size
        )

    def session_memories(
        self, session_id: int, *, page_size: int | None = None
    ) -> Iterator[models.Memory]:
        return self._iterate("session_memories", path={"session_id": session_id}, limit=page_size)

    # -- facts -----------------------------------------------------------------------------

    def check_facts(
        self,
        text: str,
        *,
        user: str,
        apply: bool | None = None,
        source: models.JSON | str | None = None,
        now: str | None = None,
        agent_id: str | None = None,
    ) -> models.CheckResult:
        """What ``text`` contradicts, confirms and adds among ``user``'s facts; with
        ``apply=True`` (write scope) the suggested changes are made."""
        return self._send(
            build(
                "check_facts",
                agent_id=self._agent(agent_id),
                user=user,
                text=text,
                apply=apply,
                source=_core.source_dict(source),
                now=now,
            )
        )

    def facts(
        self,
        *,
        user: str | None = None,
        subject: str | None = None,
        predicate: str | None = None,
        status: str | None = None,
        valid_at: str | None = None,
        in_force: bool | None = None,
        q: str | None = None,
        page_size: int | None = None,
        agent_id: str | None = None,
    ) -> Iterator[models.Fact]:
        """The agent's facts, a page at a time as you iterate."""
        return self._iterate(
            "facts",
            agent_id=self._agent(agent_id),
            user=user,
            subject=subject,
            predicate=predicate,
            status=status,
            valid_at=valid_at,
            in_force=in_force,
            q=q,
            limit=page_size,
        )

    def assert_fact(
        self,
        predicate: str,
        value: str,
        *,
        source: models.JSON | str,
        user: str | None = None,
        subject: str = "user",
        qualifier: str | None = None,
        verification: str | None = None,
        confidence: float | None = None,
        category: str | None = None,
        valid_from: str | None = None,
        valid_to: str | None = None,
        agent_id: str | None = None,
    ) -> models.AssertResult:
        """State a fact with where it came from (``source``: a dict, or just its kind such
        as ``"channel_message"``)."""
        return self._send(
            build(
                "assert_fact",
                agent_id=self._agent(agent_id),
                user=user,
                subject=subject,
                predicate=predicate,
                qualifier=qualifier,
                value=value,
                verification=verification,
                confidence=confidence,
                category=category,
                valid_from=valid_from,
                valid_to=valid_to,
                source=_core.source_dict(source),
            )
        )

    def get_fact(self, fact_id: int) -> models.FactDetail:
        return self._send(build("get_fact", path={"fact_id": fact_id}))

    def resolve_fact(
        self, fact_id: int, action: str, *, reason: str | None = None
    ) -> models.FactDetail:
        """Settle a disputed fact: ``action`` is ``"accept"`` or ``"reject"``."""
        return self._send(
            build("resolve_fact", path={"fact_id": fact_id}, action=action, reason=reason)
        )

    def delete_fact(self, fact_id: int, *, reason: str | None = None) -> models.FactDetail:
        return self._send(build("delete_fact", path={"fact_id": fact_id}, reason=reason))

    def forget_facts(
        self,
        *,
        user: str | None = None,
        subject: str | None = None,
        confirm: bool = False,
        agent_id: str | None = None,
    ) -> models.ForgetReceipt | models.ForgetPreview:
        """Erase a user's (or subject's) facts: without ``confirm`` only a preview of what
        would go."""
        return self._send(
            build(
                "forget_facts",
                agent_id=self._agent(agent_id),
                user=user,
                subject=subject,
                dry_run=not confirm,
                confirm=confirm,
            )
        )

    # -- agents ----------------------------------------------------------------------------

    def agents(self) -> list[models.Agent]:
        return self._send(build("agents"))

    def create_agent(
        self,
        agent_id: str | None = None,
        *,
        name: str | None = None,
        metadata: models.JSON | None = None,
    ) -> models.Agent:
        """Create the agent (a first memory or session creates it too); 409 AgentExists
        when the id is taken."""
        return self._send(
            build("create_agent", agent_id=self._agent(agent_id), name=name, metadata=metadata)
        )

    # -- plumbing --------------------------------------------------------------------------

    def _agent(self, agent_id: str | None) -> str:
        return _core.agent_id(agent_id, self.agent_id)

    def _iterate(self, name: str, /, **values: Any) -> Iterator[Any]:
        cursor = None
        while True:
            items, cursor = self._send(build(name, cursor=cursor, **values))
            yield from items
            if not cursor:
                return

    def _send(self, call: Call) -> Any:
        attempt = 0
        while True:
            try:
                response = self._http.request(
                    call.endpoint.method, call.url, params=call.params, json=call.json
                )
            except httpx.TransportError as error:
                wait = self.retries.wait_after_error(attempt, call.endpoint.method, error)
                if wait is None:
                    raise _core.transport_error(error) from error
            else:
                if response.is_success:
                    return _core.parse(call, response)
                wait = self.retries.wait_after_response(attempt, response)
                if wait is None:
                    raise _core.error_from(response)
            time.sleep(wait)
            attempt += 1
