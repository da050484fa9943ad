"""Re-embedding an agent's memories: after a model change, or on request."""

from collections.abc import Callable
from dataclasses import dataclass

from django.db import connection, transaction
from django.utils import timezone

from memory.embeddings.engine import Embedder, get_embedder
from memory.models import Memory
from memory.services.vectors import bump_memory_version, embedding_text
from memory.sessions.conversations import annotate_previous, previous_content
from tenancy.models import Agent

CHECKPOINT_KEY = "reindex_after_id"


@dataclass(frozen=True)
class ReindexProgress:
    done: int
    total: int


def ensure_vector_index(dimension: int) -> None:
    """PostgreSQL: the HNSW index serving vectors of ``dimension`` (one partial index per
    dimension in use; 384 comes with the migrations)."""
    if connection.vendor != "postgresql":
        return
    dim = int(dimension)
    with connection.cursor() as cursor:
        cursor.execute(
            f"CREATE INDEX IF NOT EXISTS memory_embedding_{dim}_idx ON memory_memory "
            f"USING hnsw ((embedding::vector({dim})) vector_cosine_ops) "
            f"WHERE vector_dims(embedding) = {dim}"
        )


def reindex_agent(
    *,
    agent: Agent,
    force: bool = False,
    batch_size: int = 256,
    embedder: Embedder | None = None,
    progress: Callable[[ReindexProgress], None] | None = None,
) -> ReindexProgress:
    """Re-embed the agent's memories with the configured model, in id order and in batches,
    each batch committed on its own. Without ``force`` only memories made by another model
    are redone. Interrupted, it resumes: a forced run keeps a checkpoint (the last id done)
    in the agent's metadata until it completes. The agent takes the new model at the end."""
    embedder = embedder or get_embedder()
    ensure_vector_index(embedder.dimension)
    memories = Memory.objects.filter(agent=agent).order_by("id")
    if force:
        after = agent.metadata.get(CHECKPOINT_KEY) or 0
        if not after:
            agent.metadata[CHECKPOINT_KEY] = -1
            agent.save(update_fields=["metadata"])
        memories = memories.filter(id__gt=after)
    else:
        memories = memories.exclude(embedding_model=embedder.model_id)
    total = memories.count()
    done = 0
    last_id = 0
    while True:
        # The memory before each one in its conversation: vectors are made as at store time.
        batch = list(
            annotate_previous(memories.filter(id__gt=last_id)).only(
                "id", "content", "session_id", "created_at", "speaker", "metadata"
            )[:batch_size]
        )
        if not batch:
            break
        vectors = embedder.embed([embedding_text(m.content, previous_content(m)) for m in batch])
        with transaction.atomic():
            now = timezone.now()
            for memory, vector in zip(batch, vectors, strict=True):
                memory.embedding = vector
                memory.embedding_model = embedder.model_id
                memory.updated_at = now
            Memory.objects.bulk_update(batch, ["embedding", "embedding_model", "updated_at"])
            if force:
                agent.metadata[CHECKPOINT_KEY] = batch[-1].pk
                agent.save(update_fields=["metadata"])
            bump_memory_version(agent)
        last_id = batch[-1].pk
        done += len(batch)
        if progress:
            progress(ReindexProgress(done=done, total=total))
    agent.metadata.pop(CHECKPOINT_KEY, None)
    agent.embedding_model = embedder.model_id
    agent.embedding_dim = embedder.dimension
    agent.save(update_fields=["metadata", "embedding_model", "embedding_dim"])
    bump_memory_version(agent)
    return ReindexProgress(done=done, total=total)
