"""Memory's settings: the embedding model, where new memories' graph is built, how values
and conversations are read, and recall's reranking."""

import os

from dewee.config.environment import env_bool

# Memory: embeddings and recall.
DEWEE_EMBEDDING_MODEL = os.environ.get("DEWEE_EMBEDDING_MODEL") or None
DEWEE_EMBEDDING_TOKENIZER = os.environ.get("DEWEE_EMBEDDING_TOKENIZER") or None
DEWEE_EMBEDDING_THREADS = int(os.environ.get("DEWEE_EMBEDDING_THREADS", 0))
DEWEE_EMBEDDING_BATCH = int(os.environ.get("DEWEE_EMBEDDING_BATCH", 0))
DEWEE_EMBEDDING_MAX_TOKENS = int(os.environ.get("DEWEE_EMBEDDING_MAX_TOKENS", 256))
DEWEE_EMBED_SESSION_CONTEXT = env_bool("DEWEE_EMBED_SESSION_CONTEXT", True)
# Where the graph of newly stored memories (entities, mentions, edges; memory.services.graph)
# is built: "worker" (default: a django-q2 job queued when the store commits, so a store
# costs what it did without the graph), "inline" (in the store's own transaction), or "off"
# (`dewee memory graph-rebuild` builds it later: a bulk load, say). "true"/"false" read as
# inline/off.
_GRAPH_ON_STORE = (os.environ.get("DEWEE_GRAPH_ON_STORE") or "worker").strip().lower()
DEWEE_GRAPH_ON_STORE = {"true": "inline", "1": "inline", "false": "off", "0": "off"}.get(
    _GRAPH_ON_STORE, _GRAPH_ON_STORE
)
# The region (ISO 3166 alpha-2, "GB") phone numbers written without a country code are read
# in, to store them as E.164 (language.values); empty: such numbers are kept as typed.
DEWEE_PHONE_REGION = os.environ.get("DEWEE_PHONE_REGION", "").strip().upper()
# Memories stored without a session form a conversation until a silence this long.
DEWEE_CONVERSATION_GAP_MINUTES = float(os.environ.get("DEWEE_CONVERSATION_GAP_MINUTES", 30))
DEWEE_RERANK_MODEL = os.environ.get("DEWEE_RERANK_MODEL") or None
DEWEE_RERANK_TOKENIZER = os.environ.get("DEWEE_RERANK_TOKENIZER") or None
# Recall's second stage (memory.recall.ranker): "off" (the default: the first stage's order),
# "learned" (the shipped model), or the path of a model file bench/train_ranker.py wrote.
DEWEE_RECALL_RANKER = (os.environ.get("DEWEE_RECALL_RANKER") or "off").strip()
