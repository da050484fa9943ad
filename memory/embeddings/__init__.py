"""Local sentence embeddings: an ONNX encoder run in-process, never a remote API.

``get_embedder().embed(texts)`` returns L2-normalised float32 vectors; ``model_id`` names the
model that made them. ``export`` builds the built-in model from pinned PyPI files; ``engine``
loads and runs it (or an operator-supplied ONNX model).
"""

from memory.embeddings.engine import Embedder, embedder_if_available, get_embedder
from memory.embeddings.export import EmbeddingModelUnavailable, build_model

__all__ = [
    "Embedder",
    "EmbeddingModelUnavailable",
    "build_model",
    "embedder_if_available",
    "get_embedder",
]
