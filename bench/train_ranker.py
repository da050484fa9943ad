"""Train recall's second stage (memory.recall.ranker) on Dewee's own training dialogues.

    .venv/bin/python bench/train_ranker.py                 # writes memory/recall/ranker.json
    .venv/bin/python bench/train_ranker.py --dry-run       # fits and reports, writes nothing

The dialogues (bench/dialogues/train/*.json, written for Dewee: see bench/dialogues/README.md)
are stored twice each, as a client with sessions and dates stores them and as the plainest
client does ("Speaker: text", no session, no date, one turn after another). Every question
is recalled with the ranker off and explain on; the first stage's best RANKER_CANDIDATES
are the examples, labelled by whether the turn is in the question's evidence. A logistic
model over the standardised FEATURES is fitted (L2, class-weighted, Newton steps with
numpy) and written with its training set's hashes. Before writing, it is checked by
leave-one-dialogue-out: R@5 / R@20 of the first stage against the ranker on dialogues it
did not see. No evaluation set (LoCoMo) is read.
"""

import argparse
import hashlib
import json
import os
import statistics
import sys
import tempfile
import time
from collections import defaultdict
from datetime import timedelta
from pathlib import Path
from typing import Any

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
if not os.environ.get("DATABASE_URL"):
    os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-ranker-")
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")

import django  # noqa: E402

django.setup()

from django.core.management import call_command  # noqa: E402

from bench.locomo import clean_evidence, ingest, session_time  # noqa: E402
from memory.recall import Audience, RecallFilters, RecallRequest, recall  # noqa: E402
from memory.recall.ranker import FEATURES, RANKER_CANDIDATES, RANKER_FILE  # noqa: E402
from memory.recall.ranker_fit import fit  # noqa: E402
from memory.services import MemoryInput, store_memories  # noqa: E402
from memory.services.graph_rebuild import build_pending_graph  # noqa: E402
from tenancy.models import Agent  # noqa: E402
from tenancy.services import default_workspace, ensure_agent  # noqa: E402

TRAIN = ROOT / "bench" / "dialogues" / "train"
# The session spreads the leave-one-out check compares (0: none).
SPREADS = (0.0, 0.25, 0.5, 1.0)
# A plain client's turns, one after another.
PLAIN_SPACING = timedelta(seconds=2)


def ingest_plain(conversation: dict[str, Any], agent: Agent, *, user: str) -> set[str]:
    """The plainest client: "Speaker: text" per turn, no session, no date, no caption."""
    conv = conversation["conversation"]
    numbers = sorted(
        int(key.split("_")[1])
        for key in conv
        if key.startswith("session_") and key.count("_") == 1 and conv[key]
    )
    start = session_time(conv[f"session_{numbers[-1]}_date_time"])
    items: list[MemoryInput] = []
    known: set[str] = set()
    for number in numbers:
        for turn in conv[f"session_{number}"]:
            known.add(turn["dia_id"])
            items.append(
                MemoryInput(
                    content=f"{turn['speaker']}: {turn['text']}",
                    user=user,
                    source_refs=[turn["dia_id"]],
                    created_at=start + len(items) * PLAIN_SPACING,
                )
            )
    for first in range(0, len(items), 500):
        store_memories(agent=agent, items=items[first : first + 500])
    while build_pending_graph(agent=agent).more:
        pass
    return known


def examples(path: Path, mode: str, run: str) -> list[dict[str, Any]]:
    """One dict per question: its evidence, and the first stage's candidates with features."""
    conversation = json.loads(path.read_text())
    workspace = default_workspace()
    agent = ensure_agent(workspace=workspace, agent_id=f"train-{run}-{path.stem}-{mode}")
    user = "user"
    if mode == "plain":
        known = ingest_plain(conversation, agent, user=user)
    else:
        known = ingest(conversation, agent, user=user, sessions=True)
    questions = []
    for qa in conversation["qa"]:
        gold = clean_evidence(qa.get("evidence", []), known)
        if not gold:
            continue
        result = recall(
            agent=agent,
            request=RecallRequest(
                query=qa["question"],
                top_k=RANKER_CANDIDATES,
                explain=True,
                rerank=False,
                filters=RecallFilters(audience=Audience(user=user)),
            ),
        )
        candidates = []
        for hit in result.hits:
            assert hit.explanation is not None
            candidates.append(
                {
                    "refs": list(hit.memory.source_refs),
                    "session": hit.memory.session_id,
                    "features": [hit.explanation["features"][name] for name in FEATURES],
                }
            )
        questions.append(
            {"dialogue": path.stem, "mode": mode, "gold": gold, "candidates": candidates}
        )
    return questions


def recall_at(questions: list[dict[str, Any]], order: Any, k: int) -> float:
    scores = []
    for q in questions:
        ranked = order(q)[:k]
        found = {ref for c in ranked for ref in c["refs"]}
        scores.append(len(set(q["gold"]) & found) / len(q["gold"]))
    return 100 * statistics.mean(scores) if scores else 0.0


def by_model(
    means: np.ndarray, scales: np.ndarray, weights: np.ndarray, bias: float, spread: float = 0.0
) -> Any:
    """The candidates by the model's logit; with ``spread``, each pick lowers the logits of
    the candidates left in its session by that much (a greedy spread over sessions)."""

    def order(q: dict[str, Any]) -> list[dict[str, Any]]:
        if not q["candidates"]:
            return []
        x = np.array([c["features"] for c in q["candidates"]])
        logits = list(((x - means) / scales) @ weights + bias)
        left = list(range(len(logits)))
        picked: list[int] = []
        taken: dict[Any, int] = {}
        while left:
            best = max(
                left,
                key=lambda i: (
                    logits[i] - spread * taken.get(q["candidates"][i].get("session"), 0),
                    -i,
                ),
            )
            left.remove(best)
            picked.append(best)
            session = q["candidates"][best].get("session")
            if session is not None:
                taken[session] = taken.get(session, 0) + 1
        return [q["candidates"][i] for i in picked]

    return order


def matrix(questions: list[dict[str, Any]]) -> tuple[np.ndarray, np.ndarray]:
    rows, labels = [], []
    for q in questions:
        gold = set(q["gold"])
        for c in q["candidates"]:
            rows.append(c["features"])
            labels.append(1.0 if gold & set(c["refs"]) else 0.0)
    return np.array(rows, dtype=float), np.array(labels)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--data", type=Path, default=TRAIN)
    parser.add_argument("--dry-run", action="store_true", help="Fit and report; write nothing.")
    parser.add_argument("--out", type=Path, default=RANKER_FILE)
    parser.add_argument(
        "--examples",
        type=Path,
        help="Keep the examples in this file (and read them from it when it exists), to "
        "refit without storing the dialogues again; only for features that did not change.",
    )
    args = parser.parse_args()
    files = sorted(args.data.glob("*.json"))
    if not files:
        sys.exit(f"no training dialogues in {args.data}")
    questions: list[dict[str, Any]] = []
    to_store = files
    if args.examples and args.examples.exists():
        questions = json.loads(args.examples.read_text())
        to_store = []
    else:
        call_command("migrate", verbosity=0)
    run = time.strftime("%Y%m%d%H%M%S")
    for path in to_store:
        for mode in ("sessions", "plain"):
            t0 = time.perf_counter()
            found = examples(path, mode, run)
            questions += found
            print(
                f"  {path.name} ({mode}): {len(found)} questions, {time.perf_counter() - t0:.0f} s",
                file=sys.stderr,
            )

    if args.examples and to_store:
        args.examples.write_text(json.dumps(questions))

    def first_stage(q: dict[str, Any]) -> list[dict[str, Any]]:
        return list(q["candidates"])

    # Leave one dialogue out: the figures that say whether the model generalises.
    dialogues = sorted({q["dialogue"] for q in questions})
    held_out: dict[str, list[float]] = defaultdict(list)
    for left_out in dialogues:
        train = [q for q in questions if q["dialogue"] != left_out]
        test = [q for q in questions if q["dialogue"] == left_out]
        fitted = fit(*matrix(train))
        for k in (5, 20):
            held_out[f"first@{k}"].append(recall_at(test, first_stage, k))
            for spread in SPREADS:
                model = by_model(*fitted, spread=spread)
                held_out[f"ranker, spread {spread}@{k}"].append(recall_at(test, model, k))
    print("\nLeave one dialogue out (mean over dialogues):")
    for name, values in held_out.items():
        print(f"  {name}: {statistics.mean(values):.1f}")
    for mode in ("sessions", "plain"):
        subset = [q for q in questions if q["mode"] == mode]
        print(f"  {mode}: {len(subset)} questions")

    means, scales, weights, bias = fit(*matrix(questions))
    print("\nWeights (standardised features):")
    for name, weight in zip(FEATURES, weights, strict=True):
        print(f"  {name:>14}: {weight:+.3f}")
    print(f"  {'bias':>14}: {bias:+.3f}")
    if args.dry_run:
        return
    model = {
        "features": list(FEATURES),
        "means": [round(float(v), 6) for v in means],
        "scales": [round(float(v), 6) for v in scales],
        "weights": [round(float(v), 6) for v in weights],
        "bias": round(bias, 6),
        "trained_on": {path.name: hashlib.sha256(path.read_bytes()).hexdigest() for path in files},
        "questions": len(questions),
        "command": "bench/train_ranker.py",
    }
    args.out.write_text(json.dumps(model, indent=1) + "\n")
    print(f"\nwrote {args.out}")


if __name__ == "__main__":
    main()
