"""The optional cross-encoder rerank stage, tested with a tiny ONNX model built here: it
scores a (query, passage) pair by how often the passage says "banana"."""

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper
from tokenizers import Tokenizer, models, pre_tokenizers, processors

from memory.recall import RecallRequest, recall
from memory.recall.rerank import CrossEncoder, RerankerUnavailable
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db
WORDS = ["[UNK]", "[CLS]", "[SEP]", "fruit", "banana", "apple", "orchard", "basket", "the", "a"]


@pytest.fixture(scope="module")
def tiny_cross_encoder(tmp_path_factory):
    folder = tmp_path_factory.mktemp("reranker")
    vocab = {word: i for i, word in enumerate(WORDS)}
    tokenizer = Tokenizer(models.WordLevel(vocab=vocab, unk_token="[UNK]"))
    tokenizer.pre_tokenizer = pre_tokenizers.Whitespace()
    tokenizer.post_processor = processors.TemplateProcessing(
        single="[CLS] $A [SEP]",
        pair="[CLS] $A [SEP] $B:1 [SEP]:1",
        special_tokens=[("[CLS]", 1), ("[SEP]", 2)],
    )
    tokenizer.save(str(folder / "tokenizer.json"))

    weights = np.zeros(len(WORDS), dtype=np.float32)
    weights[vocab["banana"]] = 3.0
    graph = helper.make_graph(
        [
            helper.make_node("Gather", ["w", "input_ids"], ["per_token"]),
            helper.make_node("Cast", ["attention_mask"], ["mask"], to=TensorProto.FLOAT),
            helper.make_node("Mul", ["per_token", "mask"], ["masked"]),
            helper.make_node("ReduceSum", ["masked", "axes"], ["sum"], keepdims=1),
            helper.make_node("Sub", ["sum", "bias"], ["logits"]),
        ],
        "tiny_cross_encoder",
        [
            helper.make_tensor_value_info("input_ids", TensorProto.INT64, ["n", "s"]),
            helper.make_tensor_value_info("attention_mask", TensorProto.INT64, ["n", "s"]),
        ],
        [helper.make_tensor_value_info("logits", TensorProto.FLOAT, ["n", 1])],
        initializer=[
            helper.make_tensor("w", TensorProto.FLOAT, [len(WORDS)], weights),
            helper.make_tensor("axes", TensorProto.INT64, [1], [1]),
            helper.make_tensor("bias", TensorProto.FLOAT, [], [1.0]),
        ],
    )
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])
    onnx.checker.check_model(model)
    onnx.save(model, str(folder / "model.onnx"))
    return folder


def test_cross_encoder_scores_pairs(tiny_cross_encoder):
    encoder = CrossEncoder(tiny_cross_encoder / "model.onnx", tiny_cross_encoder / "tokenizer.json")
    scores = encoder.score("fruit basket", ["apple orchard", "banana", "banana banana"])
    assert scores.shape == (3,)
    assert scores[0] < scores[1] < scores[2]
    assert scores[0] == pytest.approx(1 / (1 + np.exp(1.0)), abs=1e-5)


def test_recall_reranks_with_the_configured_model(agent, settings, tiny_cross_encoder):
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="fruit basket with apple and orchard fruit"),
            MemoryInput(content="a banana"),
            MemoryInput(content="fruit"),
        ],
    )
    query = "fruit basket apple"
    plain = recall(agent=agent, request=RecallRequest(query=query, top_k=3))
    assert plain.hits[0].memory.content != "a banana"

    settings.DEWEE_RERANK_MODEL = str(tiny_cross_encoder / "model.onnx")
    reranked = recall(agent=agent, request=RecallRequest(query=query, top_k=3, explain=True))
    assert reranked.hits[0].memory.content == "a banana"
    explanation = reranked.hits[0].explanation
    assert explanation is not None
    assert explanation["rerank"] > 0.8
    off = recall(agent=agent, request=RecallRequest(query=query, top_k=3, rerank=False))
    assert off.hits[0].memory.content != "a banana"


def test_a_missing_reranker_is_a_clear_error(agent, settings, tmp_path):
    store_memories(agent=agent, items=[MemoryInput(content="fruit")])
    settings.DEWEE_RERANK_MODEL = str(tmp_path / "nothing.onnx")
    with pytest.raises(RerankerUnavailable) as error:
        recall(agent=agent, request=RecallRequest(query="fruit"))
    assert error.value.status == 503
