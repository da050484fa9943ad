"""Optional reranking of recall's best candidates by a cross-encoder.

No cross-encoder ships with Dewee (none can be installed offline here); an operator who has
one in ONNX form sets ``DEWEE_RERANK_MODEL`` (the ``.onnx`` file) and, if it is not next to
it, ``DEWEE_RERANK_TOKENIZER`` (a Hugging Face ``tokenizer.json``). The model takes the
usual ``input_ids`` / ``attention_mask`` (/ ``token_type_ids``) of (query, passage) pairs
and returns one logit per pair, ``[batch]`` or ``[batch, 1]``; its sigmoid is the score.
"""

import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from django.conf import settings

from memory.embeddings.export import EmbeddingModelUnavailable, load_onnxruntime

RERANK_CANDIDATES = 50
MAX_TOKENS = 512


class RerankerUnavailable(EmbeddingModelUnavailable):
    code = "reranker_unavailable"


@dataclass(frozen=True)
class _Paths:
    model: Path
    tokenizer: Path


class CrossEncoder:
    def __init__(self, model: Path, tokenizer: Path) -> None:
        from tokenizers import Tokenizer

        if not model.is_file():
            raise RerankerUnavailable(f"Reranker model {model} does not exist")
        if not tokenizer.is_file():
            raise RerankerUnavailable(f"Reranker tokenizer {tokenizer} does not exist")
        ort = load_onnxruntime()
        try:
            self._session = ort.InferenceSession(str(model), providers=["CPUExecutionProvider"])
            self._tokenizer = Tokenizer.from_file(str(tokenizer))
        except Exception as exc:  # onnxruntime and tokenizers raise their own types
            raise RerankerUnavailable(f"Reranker {model} cannot be loaded: {exc}") from exc
        self._tokenizer.no_padding()
        self._tokenizer.enable_truncation(MAX_TOKENS)
        self._inputs = {i.name for i in self._session.get_inputs()}

    def score(self, query: str, passages: list[str]) -> np.ndarray:
        """The relevance of each passage to the query, in 0..1."""
        if not passages:
            return np.zeros(0, dtype=np.float32)
        encodings = self._tokenizer.encode_batch([(query, p) for p in passages])
        width = max(len(e.ids) for e in encodings)
        feeds: dict[str, Any] = {
            "input_ids": np.zeros((len(encodings), width), dtype=np.int64),
            "attention_mask": np.zeros((len(encodings), width), dtype=np.int64),
            "token_type_ids": np.zeros((len(encodings), width), dtype=np.int64),
        }
        for row, encoding in enumerate(encodings):
            n = len(encoding.ids)
            feeds["input_ids"][row, :n] = encoding.ids
            feeds["attention_mask"][row, :n] = encoding.attention_mask
            feeds["token_type_ids"][row, :n] = encoding.type_ids
        outputs = self._session.run(None, {k: v for k, v in feeds.items() if k in self._inputs})
        logits = np.asarray(outputs[0], dtype=np.float32).reshape(len(passages), -1)[:, 0]
        return 1.0 / (1.0 + np.exp(-logits))


_lock = threading.Lock()
_loaded: dict[_Paths, CrossEncoder] = {}


def get_reranker() -> CrossEncoder | None:
    """The configured cross-encoder, loaded once per process, or None when none is set."""
    model = settings.DEWEE_RERANK_MODEL
    if not model:
        return None
    model_path = Path(model)
    tokenizer = settings.DEWEE_RERANK_TOKENIZER or model_path.with_name("tokenizer.json")
    paths = _Paths(model_path, Path(tokenizer))
    with _lock:
        if paths not in _loaded:
            _loaded[paths] = CrossEncoder(paths.model, paths.tokenizer)
        return _loaded[paths]
