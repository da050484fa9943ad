"""The all-MiniLM-L6-v2 encoder written op by op as an ONNX graph (``onnx.helper``), from its
safetensors weights, with the sentence-transformers pooling inside (see export.py for
where the weights come from and how the graph is built, checked and quantised)."""

from __future__ import annotations

from pathlib import Path
from typing import Any, NamedTuple

import numpy as np

MODEL_STEM = "all-minilm-l6-v2"
SENTENCE_OUTPUT = "sentence_embedding"
HIDDEN_OUTPUT = "last_hidden_state"

HIDDEN = 384
HEADS = 12
HEAD_DIM = HIDDEN // HEADS
LAYERS = 6
LAYER_NORM_EPS = 1e-12
OPSET = 17


def encoder_graph(weights_path: Path, *, pooled: bool = True) -> Any:
    """The all-MiniLM-L6-v2 encoder as an ``onnx.ModelProto``, built from its safetensors.

    Mirrors Hugging Face's ``BertModel`` in eval mode: embeddings (word + position + token type,
    LayerNorm), then six post-norm layers of self-attention and a GELU feed-forward block. The
    attention scale 1/sqrt(head_dim) is folded into the query weights, which is exact up to
    float rounding and saves one op per layer.
    """
    from safetensors.numpy import load_file

    return _GraphBuilder(load_file(str(weights_path))).build(pooled=pooled)


class _MaskTensors(NamedTuple):
    weights: str
    bias: str


class _GraphBuilder:
    """Accumulates nodes and constant tensors while the encoder is laid out layer by layer."""

    def __init__(self, weights: dict[str, np.ndarray]) -> None:
        self.weights = weights
        self.nodes: list[Any] = []
        self.initializers: list[Any] = []
        self.counter = 0

    def build(self, *, pooled: bool) -> Any:
        from onnx import TensorProto, helper

        inputs = [
            helper.make_tensor_value_info(name, TensorProto.INT64, ["batch", "sequence"])
            for name in ("input_ids", "attention_mask", "token_type_ids")
        ]
        hidden, mask = self._embeddings(), self._mask()
        for layer in range(LAYERS):
            hidden = self._layer(layer, hidden, mask.bias)
        self._op("Identity", [hidden], HIDDEN_OUTPUT)
        outputs = []
        if pooled:
            self._pool(HIDDEN_OUTPUT, mask.weights, SENTENCE_OUTPUT)
            outputs.append(
                helper.make_tensor_value_info(SENTENCE_OUTPUT, TensorProto.FLOAT, ["batch", HIDDEN])
            )
        else:
            outputs.append(
                helper.make_tensor_value_info(
                    HIDDEN_OUTPUT, TensorProto.FLOAT, ["batch", "sequence", HIDDEN]
                )
            )
        graph = helper.make_graph(self.nodes, MODEL_STEM, inputs, outputs, self.initializers)
        model = helper.make_model(
            graph,
            opset_imports=[helper.make_opsetid("", OPSET)],
            producer_name="dewee",
            doc_string="sentence-transformers/all-MiniLM-L6-v2 (Apache-2.0), built by Dewee",
        )
        model.ir_version = 8
        return model

    def _name(self, hint: str) -> str:
        self.counter += 1
        return f"{hint}_{self.counter}"

    def _const(self, hint: str, value: np.ndarray) -> str:
        from onnx import numpy_helper

        name = self._name(hint)
        self.initializers.append(numpy_helper.from_array(np.ascontiguousarray(value), name))
        return name

    def _op(self, op: str, inputs: list[str], output: str | None = None, **attrs: Any) -> str:
        from onnx import helper

        output = output or self._name(op.lower())
        self.nodes.append(helper.make_node(op, inputs, [output], name=output, **attrs))
        return output

    def _linear(self, x: str, prefix: str, scale: float = 1.0) -> str:
        # torch.nn.Linear stores [out, in]; MatMul wants [in, out]. Keeping MatMul + Add
        # (rather than Gemm) lets the dynamic quantiser handle the 3-D activations.
        weight = self.weights[f"{prefix}.weight"].T * np.float32(scale)
        bias = self.weights[f"{prefix}.bias"] * np.float32(scale)
        product = self._op("MatMul", [x, self._const(f"{prefix}.weight", weight)])
        return self._op("Add", [product, self._const(f"{prefix}.bias", bias)])

    def _layer_norm(self, x: str, prefix: str) -> str:
        return self._op(
            "LayerNormalization",
            [
                x,
                self._const(f"{prefix}.weight", self.weights[f"{prefix}.weight"]),
                self._const(f"{prefix}.bias", self.weights[f"{prefix}.bias"]),
            ],
            axis=-1,
            epsilon=LAYER_NORM_EPS,
        )

    def _embeddings(self) -> str:
        w = self.weights
        words = self._op(
            "Gather",
            [self._const("word_embeddings", w["embeddings.word_embeddings.weight"]), "input_ids"],
        )
        types = self._op(
            "Gather",
            [
                self._const("token_type_embeddings", w["embeddings.token_type_embeddings.weight"]),
                "token_type_ids",
            ],
        )
        # Positions 0..seq-1 are a prefix of the table: slice it rather than gather by index.
        shape = self._op("Shape", ["input_ids"])
        seq_len = self._op(
            "Slice",
            [
                shape,
                self._const("one", np.array([1], np.int64)),
                self._const("two", np.array([2], np.int64)),
            ],
        )
        positions = self._op(
            "Slice",
            [
                self._const("position_embeddings", w["embeddings.position_embeddings.weight"]),
                self._const("zero", np.array([0], np.int64)),
                seq_len,
                self._const("axis0", np.array([0], np.int64)),
            ],
        )
        summed = self._op("Add", [self._op("Add", [words, types]), positions])
        return self._layer_norm(summed, "embeddings.LayerNorm")

    def _mask(self) -> _MaskTensors:
        """Float mask [batch, seq, 1] for pooling and additive bias [batch, 1, 1, seq]."""
        from onnx import TensorProto

        mask = self._op("Cast", ["attention_mask"], to=TensorProto.FLOAT)
        weights = self._op("Unsqueeze", [mask, self._const("axis2", np.array([2], np.int64))])
        # Padding gets a large negative score so softmax gives it zero weight, as in BERT.
        inverted = self._op("Sub", [self._const("one_f", np.array(1.0, np.float32)), mask])
        bias = self._op("Mul", [inverted, self._const("neg", np.array(-10000.0, np.float32))])
        bias = self._op("Unsqueeze", [bias, self._const("axes12", np.array([1, 2], np.int64))])
        return _MaskTensors(weights, bias)

    def _layer(self, index: int, x: str, mask_bias: str) -> str:
        prefix = f"encoder.layer.{index}"
        split_heads = self._const("heads_shape", np.array([0, 0, HEADS, HEAD_DIM], np.int64))
        merge_heads = self._const("hidden_shape", np.array([0, 0, HIDDEN], np.int64))

        def heads(name: str, perm: list[int], scale: float = 1.0) -> str:
            projected = self._linear(x, f"{prefix}.attention.self.{name}", scale)
            return self._op("Transpose", [self._op("Reshape", [projected, split_heads])], perm=perm)

        query = heads("query", [0, 2, 1, 3], scale=1.0 / float(np.sqrt(HEAD_DIM)))
        key = heads("key", [0, 2, 3, 1])
        value = heads("value", [0, 2, 1, 3])
        scores = self._op("Add", [self._op("MatMul", [query, key]), mask_bias])
        probs = self._op("Softmax", [scores], axis=-1)
        context = self._op("Transpose", [self._op("MatMul", [probs, value])], perm=[0, 2, 1, 3])
        context = self._op("Reshape", [context, merge_heads])
        attended = self._linear(context, f"{prefix}.attention.output.dense")
        x = self._layer_norm(self._op("Add", [attended, x]), f"{prefix}.attention.output.LayerNorm")

        inner = self._gelu(self._linear(x, f"{prefix}.intermediate.dense"))
        out = self._linear(inner, f"{prefix}.output.dense")
        return self._layer_norm(self._op("Add", [out, x]), f"{prefix}.output.LayerNorm")

    def _gelu(self, x: str) -> str:
        # Exact (erf) GELU as BERT uses; onnxruntime fuses this pattern into one Gelu kernel.
        scaled = self._op("Div", [x, self._const("sqrt2", np.array(np.sqrt(2.0), np.float32))])
        erf = self._op(
            "Add", [self._op("Erf", [scaled]), self._const("one_g", np.array(1.0, np.float32))]
        )
        half = self._op("Mul", [x, self._const("half", np.array(0.5, np.float32))])
        return self._op("Mul", [half, erf])

    def _pool(self, hidden: str, mask: str, output: str) -> None:
        """Mean over real tokens, then L2 normalisation, as sentence-transformers does."""
        axis1 = self._const("axis1", np.array([1], np.int64))
        summed = self._op("ReduceSum", [self._op("Mul", [hidden, mask]), axis1], keepdims=0)
        counts = self._op("ReduceSum", [mask, axis1], keepdims=0)
        counts = self._op("Max", [counts, self._const("min_count", np.array(1e-9, np.float32))])
        mean = self._op("Div", [summed, counts])
        squares = self._op("ReduceSum", [self._op("Mul", [mean, mean]), axis1], keepdims=1)
        norm = self._op(
            "Max", [self._op("Sqrt", [squares]), self._const("eps", np.array(1e-12, np.float32))]
        )
        self._op("Div", [mean, norm], output)
