"""Turn text into unit-length vectors with a local ONNX model; nothing leaves the machine.

By default the model is Dewee's built-in all-MiniLM-L6-v2 int8 graph (see ``export.py`` for
where it comes from), built into ``<VAR_DIR>/models/`` on first use. Operators can point
``DEWEE_EMBEDDING_MODEL`` at another ONNX sentence encoder with a Hugging Face
``tokenizer.json``; it may output either pooled vectors ``[batch, dim]`` or
``last_hidden_state`` ``[batch, seq, dim]``, which is then mean-pooled here.

Settings (all optional): ``DEWEE_EMBEDDING_MODEL`` (path to an ``.onnx`` file),
``DEWEE_EMBEDDING_TOKENIZER`` (default: ``tokenizer.json`` next to the model),
``DEWEE_EMBEDDING_THREADS`` (model runs in parallel, one core each; 0 = the cores this process
may use), ``DEWEE_EMBEDDING_BATCH`` (texts per model run; 0 = choose, see below) and
``DEWEE_EMBEDDING_MAX_TOKENS`` (longer texts are truncated).

Batch size: int8 dynamic quantisation picks one activation scale per tensor, i.e. per batch, so
in a batch a text's vector depends on its neighbours (cosine about 0.99 to itself embedded
alone). For such models texts run one at a time, which keeps every vector a pure function of its
text and costs only about 10% CPU; the parallel single-threaded runs still reach about 1,500
short sentences/s on 2 cores. Models without dynamic quantisation batch exactly and run in
batches of 16, which is about twice as fast as one at a time for fp32.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from memory.embeddings.encoder_graph import HIDDEN_OUTPUT, SENTENCE_OUTPUT
from memory.embeddings.export import (
    TOKENIZER_FILE,
    EmbeddingModelUnavailable,
    build_model,
    load_onnxruntime,
    sha256_file,
)

# Texts per run for models that batch exactly: the fastest size measured for fp32 MiniLM on short
# texts; larger batches were slower (bigger attention matrices, more padding).
EXACT_BATCH = 16
# Ops whose output depends on the whole batch: activation scales computed per tensor.
_BATCH_DEPENDENT_OPS = {"DynamicQuantizeLinear", "DynamicQuantizeMatMul", "DynamicQuantizeLSTM"}
DEFAULT_MAX_TOKENS = 256


@dataclass(frozen=True)
class EmbedderConfig:
    """Everything that decides which model is loaded and how; the cache key of get_embedder()."""

    model: Path | None = None
    tokenizer: Path | None = None
    threads: int = 0
    batch_size: int = 0
    max_tokens: int = DEFAULT_MAX_TOKENS
    var_dir: Path | None = None

    @classmethod
    def from_settings(cls) -> EmbedderConfig:
        model = getattr(settings, "DEWEE_EMBEDDING_MODEL", None)
        tokenizer = getattr(settings, "DEWEE_EMBEDDING_TOKENIZER", None)
        return cls(
            model=Path(model) if model else None,
            tokenizer=Path(tokenizer) if tokenizer else None,
            threads=int(getattr(settings, "DEWEE_EMBEDDING_THREADS", 0)),
            batch_size=int(getattr(settings, "DEWEE_EMBEDDING_BATCH", 0)),
            max_tokens=int(getattr(settings, "DEWEE_EMBEDDING_MAX_TOKENS", DEFAULT_MAX_TOKENS)),
            var_dir=Path(settings.VAR_DIR),
        )


class Embedder:
    """One loaded model and tokenizer. Thread-safe: onnxruntime sessions allow concurrent run().

    ``threads`` is how many model runs go in parallel (each single-threaded, see the module
    docstring); 0 means one per core available to this process. ``batch_size`` 0 means 1 for
    dynamically quantised models and ``EXACT_BATCH`` for the rest.
    """

    def __init__(
        self,
        model_path: Path,
        tokenizer_path: Path | None = None,
        *,
        threads: int = 0,
        batch_size: int = 0,
        max_tokens: int = DEFAULT_MAX_TOKENS,
    ) -> None:
        if batch_size < 0 or max_tokens < 2 or threads < 0:
            raise ValueError("need batch_size >= 0, max_tokens >= 2 and threads >= 0")
        self.model_path = Path(model_path)
        self.tokenizer_path = Path(tokenizer_path or self.model_path.parent / TOKENIZER_FILE)
        self.max_tokens = max_tokens
        self.threads = threads or _available_cores()
        for label, path in (("model", self.model_path), ("tokenizer", self.tokenizer_path)):
            if not path.is_file():
                raise EmbeddingModelUnavailable(
                    f"Embedding {label} file {path} does not exist.", details={"path": str(path)}
                )
        self._tokenizer, self._pad_id = _load_tokenizer(self.tokenizer_path, max_tokens)
        self._session = _load_session(self.model_path)
        self._input_names = {i.name for i in self._session.get_inputs()}
        missing = {"input_ids", "attention_mask"} - self._input_names
        if missing:
            raise EmbeddingModelUnavailable(
                f"Embedding model {self.model_path} lacks the inputs {sorted(missing)}.",
                details={"path": str(self.model_path), "inputs": sorted(self._input_names)},
            )
        self._output, self._pooled = _pick_output(self._session, self.model_path)
        if not batch_size:
            batch_size = 1 if _batch_dependent(self.model_path) else EXACT_BATCH
        self.batch_size = batch_size
        self._dimension: int | None = None
        self._model_id: str | None = None

    @property
    def dimension(self) -> int:
        """Vector length. Read from the graph when static, else from one probe embedding."""
        if self._dimension is None:
            shape = next(o.shape for o in self._session.get_outputs() if o.name == self._output)
            last = shape[-1] if shape else None
            if not isinstance(last, int):
                last = int(self._run([self._tokenizer.encode("")]).shape[1])
            self._dimension = last
        return self._dimension

    @property
    def model_id(self) -> str:
        """A short, stable id of the model file (name + sha256 prefix) to store with vectors.

        Vectors from different model files are not comparable, so the store records this and
        re-embeds when it changes.
        """
        if self._model_id is None:
            self._model_id = f"{self.model_path.stem}-{sha256_file(self.model_path)[:12]}"
        return self._model_id

    def embed(self, texts: Sequence[str]) -> np.ndarray:
        """float32 ``[len(texts), dimension]``, each row L2-normalised, in the order given.

        Texts are tokenised together and grouped into batches of similar length (so that a short
        text is not padded to a long neighbour's length); the batches are dealt round-robin to
        ``threads`` workers, which balances the work because they are sorted by length.
        """
        if not texts:
            return np.zeros((0, self.dimension), np.float32)
        encodings = self._tokenizer.encode_batch(list(texts))
        order = sorted(range(len(texts)), key=lambda i: len(encodings[i].ids))
        batches = [order[i : i + self.batch_size] for i in range(0, len(order), self.batch_size)]
        result = np.empty((len(texts), self.dimension), np.float32)

        def run(share: list[list[int]]) -> None:
            for batch in share:
                result[batch] = self._run([encodings[i] for i in batch])

        workers = min(self.threads, len(batches))
        if workers == 1:
            run(batches)
        else:
            # A pool per call: cheap next to the model runs, and nothing outlives the call
            # (no idle threads, nothing to break when a server forks its workers).
            with ThreadPoolExecutor(workers, thread_name_prefix="dewee-embed") as pool:
                list(pool.map(run, [batches[w::workers] for w in range(workers)]))
        return result

    def embed_one(self, text: str) -> np.ndarray:
        """float32 ``[dimension]``, L2-normalised."""
        return self.embed([text])[0]

    def _run(self, encodings: list[Any]) -> np.ndarray:
        length = max(len(e.ids) for e in encodings)
        ids = np.full((len(encodings), length), self._pad_id, np.int64)
        mask = np.zeros((len(encodings), length), np.int64)
        for row, encoding in enumerate(encodings):
            ids[row, : len(encoding.ids)] = encoding.ids
            mask[row, : len(encoding.ids)] = 1
        feed = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._input_names:
            feed["token_type_ids"] = np.zeros_like(ids)
        output = np.asarray(self._session.run([self._output], feed)[0], np.float32)
        if not self._pooled:
            weights = mask[:, :, None].astype(np.float32)
            output = (output * weights).sum(axis=1) / np.maximum(weights.sum(axis=1), 1e-9)
        # Normalised here even for pooled outputs: a user model may pool without normalising,
        # and for one that does normalise this is a no-op.
        norms = np.linalg.norm(output, axis=1, keepdims=True)
        return output / np.maximum(norms, 1e-12)


def _load_tokenizer(path: Path, max_tokens: int) -> tuple[Any, int]:
    from tokenizers import Tokenizer

    try:
        tokenizer = Tokenizer.from_file(str(path))
    except Exception as exc:
        raise EmbeddingModelUnavailable(
            f"Cannot load embedding tokenizer {path}: {exc}", details={"path": str(path)}
        ) from exc
    # Shipped tokenizer.json files often pad every input to a fixed length (MiniLM's: 128),
    # which makes short texts 4-18x slower. Padding is done per batch in Embedder._run instead.
    padding = tokenizer.padding
    pad_id = int(padding["pad_id"]) if padding else (tokenizer.token_to_id("[PAD]") or 0)
    tokenizer.no_padding()
    tokenizer.enable_truncation(max_length=max_tokens)
    return tokenizer, pad_id


def _available_cores() -> int:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count() or 1


def _load_session(path: Path) -> Any:
    ort = load_onnxruntime()
    options = ort.SessionOptions()
    # Parallelism comes from concurrent runs (Embedder.threads); an intra-op pool per run
    # measured slower for these small matrices and would fight the runs for the same cores.
    options.intra_op_num_threads = 1
    options.inter_op_num_threads = 1
    options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
    try:
        return ort.InferenceSession(str(path), options, providers=["CPUExecutionProvider"])
    except Exception as exc:
        raise EmbeddingModelUnavailable(
            f"Cannot load embedding model {path}: {exc}", details={"path": str(path)}
        ) from exc


def _batch_dependent(path: Path) -> bool:
    """Whether the graph quantises activations per tensor, making rows depend on their batch."""
    import onnx

    try:
        graph = onnx.load(str(path), load_external_data=False).graph
    except Exception:
        return True  # unknown: one text per run is always correct, merely slower
    return any(node.op_type in _BATCH_DEPENDENT_OPS for node in graph.node)


def _pick_output(session: Any, path: Path) -> tuple[str, bool]:
    """The output to read and whether it is already pooled ([batch, dim] vs [batch, seq, dim])."""
    outputs = {o.name: o for o in session.get_outputs()}
    for name in (SENTENCE_OUTPUT, "sentence_embeddings"):
        if name in outputs:
            return name, True
    if HIDDEN_OUTPUT in outputs:
        return HIDDEN_OUTPUT, False
    # Unknown names: prefer an already pooled output. BERT's "pooler_output" (CLS + tanh) is
    # not a sentence embedding, which is why last_hidden_state is looked for by name first.
    for rank in (2, 3):
        for name, output in outputs.items():
            if len(output.shape or ()) == rank:
                return name, rank == 2
    raise EmbeddingModelUnavailable(
        f"Embedding model {path} has no [batch, dim] or [batch, seq, dim] output.",
        details={"path": str(path), "outputs": sorted(outputs)},
    )


_cache: dict[EmbedderConfig, Embedder] = {}
_cache_lock = threading.Lock()


def get_embedder() -> Embedder:
    """The process-wide Embedder for the current settings, loaded (and built) once.

    Keyed by the settings so that tests overriding them get a matching instance; loading takes
    a second or so and a few hundred MB for large models, so it must not happen per request.
    """
    config = EmbedderConfig.from_settings()
    with _cache_lock:
        if config not in _cache:
            _cache[config] = _create(config)
        return _cache[config]


def _create(config: EmbedderConfig) -> Embedder:
    model = config.model
    if model is None:
        var_dir = config.var_dir or Path(settings.VAR_DIR)
        model = build_model(var_dir / "models", quantize=True)
    return Embedder(
        model,
        config.tokenizer,
        threads=config.threads,
        batch_size=config.batch_size,
        max_tokens=config.max_tokens,
    )


def embedder_if_available() -> Embedder | None:
    """``get_embedder()``, or None when no model can be loaded: for the readers of text that
    are extra to the rules and stay off without one (language.encoder)."""
    try:
        return get_embedder()
    except EmbeddingModelUnavailable:
        return None
