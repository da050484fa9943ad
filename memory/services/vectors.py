"""The vectors of an agent's memories: the text a vector is made from, the one model an
agent's vectors come from, and the version that tells every process's vector cache they
changed. Storing, editing, re-embedding, deleting, merging and access all go through here."""

from collections.abc import Iterable

from django.conf import settings
from django.db.models import F

from memory.embeddings.engine import Embedder
from memory.exceptions import EmbeddingModelMismatch
from tenancy.models import Agent


def embedding_text(content: str, previous: str | None) -> str:
    """What a memory's vector is made from. A turn of a conversation is often unreadable
    alone ("Yes, last week!"), so a memory is embedded together with the memory before it
    in its conversation (memory.sessions.conversations: its session; without one, the turn before it
    among the agent's sessionless memories of the same user, when both say who spoke), when
    DEWEE_EMBED_SESSION_CONTEXT is on (the default)."""
    if previous and settings.DEWEE_EMBED_SESSION_CONTEXT:
        return f"{previous}\n{content}"
    return content


def claim_embedding_model(agent: Agent, embedder: Embedder) -> None:
    """The first vector stored fixes the agent's model; later ones must match it."""
    if not agent.embedding_model:
        claimed = Agent.objects.filter(pk=agent.pk, embedding_model="").update(
            embedding_model=embedder.model_id, embedding_dim=embedder.dimension
        )
        if claimed:
            agent.embedding_model = embedder.model_id
            agent.embedding_dim = embedder.dimension
            return
        agent.refresh_from_db(fields=["embedding_model", "embedding_dim"])
    if agent.embedding_model != embedder.model_id:
        raise EmbeddingModelMismatch(
            f"Agent {agent.agent_id!r} was indexed with {agent.embedding_model}, but the "
            f"configured model is {embedder.model_id}; run `dewee memory index-all --agent "
            f"{agent.agent_id}` to re-embed its memories"
        )


def bump_memory_version(agent: Agent) -> None:
    """Tell every process's vector cache that this agent's vectors changed."""
    bump_memory_versions([agent.pk])


def bump_memory_versions(agent_pks: Iterable[int]) -> None:
    """bump_memory_version for several agents, in one update."""
    Agent.objects.filter(pk__in=list(agent_pks)).update(memory_version=F("memory_version") + 1)
