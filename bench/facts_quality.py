"""Facts learned from text: measured quality of POST /v1/facts/check (issue 10, section 5).

    .venv/bin/python bench/facts_quality.py [--verbose] [--json FILE]           # SQLite
    .venv/bin/python scripts/with-postgres -- .venv/bin/python bench/facts_quality.py
    .venv/bin/python bench/facts_quality.py --self-check     # the scoring, without the product
    .venv/bin/python bench/facts_quality.py --data bench/facts_quality/dev   # the dev set
    .venv/bin/python bench/facts_quality.py --typos 0.15 --seed 1   # robustness to typos

The labelled set is ours (bench/facts_quality/: snippets.jsonl, timelines.jsonl, written for
Dewee, copied from nowhere); it is held out, never tuned on. bench/facts_quality/dev/ holds a
development set in the same format, the one to tune against (`--data`). Everything goes
through the public REST API, in-process with Django's test client and an API key: one new
agent per snippet or timeline, its `existing` facts seeded with POST /v1/facts, then POST
/v1/facts/check with the fixed NOW below (or, in a timeline, each line's own time). Scores:

- extraction precision and recall over the `new` and `contradicted` items (an ending counts
  as an item whose value is END), matched by predicate, qualifier and normalised value;
- contradiction accuracy: share of snippets with existing facts whose contradicted set is
  exactly the expected one;
- false updates: share of trap snippets where `apply: true` changed a slot the expectation
  does not change (read back with GET /v1/facts before and after);
- current-slot accuracy: share of timeline checkpoints where every expected slot holds, with
  its value, and nothing else does.

A slot holds at time T when a fact about it is current (or history but still inside a valid
window that the text closed in the future, "my last day is June 30") and its valid window
(valid_from, valid_to) contains T. Future changes are thus not current until their date.
"""

import argparse
import json
import os
import random
import re
import sys
import tempfile
import time
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(__file__).resolve().parent / "facts_quality"
# Every relative date in snippets.jsonl ("next month", "tomorrow") is read from this time.
NOW = "2030-06-12T12:00:00+00:00"
USER = "bench-user"
END = "<END>"  # the value of an item that ends a fact
TARGETS = {
    "precision": (">=", 0.92),
    "recall": (">=", 0.80),
    "contradiction_accuracy": (">=", 0.90),
    "slot_accuracy": (">=", 0.90),
    "false_updates": ("<=", 0.01),
}

# The targets of text written as people type (bench/facts_quality/natural/, issue 22).
NATURAL_TARGETS = {
    "values_learned": (">=", 0.85),
    "slot_values_held": (">=", 0.85),
    "slot_accuracy": (">=", 0.92),
    "contradiction_accuracy": (">=", 0.95),
    "false_updates": ("<=", 0.005),
}

Key = tuple[str, str, str]  # predicate, normalised qualifier, normalised value (or END)
Json = dict[str, Any]


def load(name: str, data: Path = DATA) -> list[Json]:
    lines = (data / name).read_text(encoding="utf-8").splitlines()
    return [json.loads(line) for line in lines if line.strip()]


def norm(value: str | None) -> str:
    from language.text import normalise_value

    return normalise_value(value or "")


def value_norm(predicate: str, value: str) -> str:
    """norm() of ``value`` in the stored form of its predicate (language.values: a phone number
    with a country code as E.164, an email lower-cased): the labelled "+44 7700 900123" is
    the number the product stores as "+447700900123"."""
    import importlib

    # language.values, or facts.values in an older tree; none before the normalisers (a
    # "before" run): the value as typed.
    for name in ("language.values", "facts.values"):
        try:
            module = importlib.import_module(name)
        except ImportError:
            continue
        return norm(module.normalised(predicate, value) or value)
    return norm(value)


def _predicate_of(slot: str) -> str:
    return slot.rpartition(":")[2].partition("[")[0]


def item_key(predicate: str, qualifier: str | None, value: str | None) -> Key:
    return (predicate, norm(qualifier), END if value is None else value_norm(predicate, value))


def items(new: list[Json], contradicted: list[Json]) -> Counter[Key]:
    """The keys of `new` and `contradicted` items, of an answer or of an expectation."""
    keys = [item_key(i["predicate"], i.get("qualifier"), i["value"]) for i in new]
    return Counter(keys) + contradiction_keys(contradicted)


def expected_items(snippet: Json) -> Counter[Key]:
    return items(snippet["expect"]["new"], snippet["expect"]["contradicted"])


def contradiction_keys(contradicted: list[Json]) -> Counter[Key]:
    return Counter(
        item_key(i["predicate"], i.get("qualifier"), i.get("new_value")) for i in contradicted
    )


def confirmed_keys(items: list[Json]) -> Counter[tuple[str, str]]:
    return Counter(
        (i.get("fact", i)["predicate"], norm(i.get("fact", i).get("qualifier"))) for i in items
    )


def dates(items: list[Json], value_field: str) -> dict[Key, set[str | None]]:
    found: dict[Key, set[str | None]] = defaultdict(set)
    for i in items:
        key = item_key(i["predicate"], i.get("qualifier"), i.get(value_field))
        found[key].add((i.get("valid_from") or "")[:10] or None)
    return found


def slot_key(predicate: str, qualifier: str | None, subject: str = "user") -> str:
    name = f"{predicate}[{norm(qualifier)}]" if norm(qualifier) else predicate
    return name if subject == "user" else f"{subject}:{name}"


def parse_slot(name: str) -> str:
    predicate, _, qualifier = name.partition("[")
    return slot_key(predicate, qualifier.rstrip("]"))


def _time(raw: str | None) -> datetime | None:
    return datetime.fromisoformat(raw.replace("Z", "+00:00")) if raw else None


def slots_at(facts: list[Json], at: datetime) -> dict[str, str]:
    """The slots that hold at ``at`` (see the module docstring) and their normalised values;
    two values holding for one slot give a value that matches nothing."""
    state: dict[str, str] = {}
    for fact in facts:
        start, end = _time(fact.get("valid_from")), _time(fact.get("valid_to"))
        believed = fact["status"] == "current" or (fact["status"] == "history" and end)
        if not believed or (start and start > at) or (end and end <= at):
            continue
        key = slot_key(fact["predicate"], fact.get("qualifier"), fact.get("subject", "user"))
        value = value_norm(fact["predicate"], fact["value"])
        state[key] = value if state.get(key, value) == value else f"{state[key]} | {value}"
    return state


def expected_state(slots: dict[str, str | None]) -> dict[str, str]:
    return {
        parse_slot(k): value_norm(_predicate_of(k), v) for k, v in slots.items() if v is not None
    }


def state_from_existing(existing: list[Json]) -> dict[str, str]:
    return expected_state({slot_key(f["predicate"], f["qualifier"]): f["value"] for f in existing})


def allowed_changes(snippet: Json) -> dict[str, str | None]:
    """The slots the expectation changes right now (dated items change nothing yet)."""
    expect = snippet["expect"]
    pairs = [(i, i["value"]) for i in expect["new"]] + [
        (i, i["new_value"]) for i in expect["contradicted"]
    ]
    return {
        slot_key(i["predicate"], i["qualifier"]): None
        if value is None
        else value_norm(i["predicate"], value)
        for i, value in pairs
        if not i.get("valid_from")
    }


def false_update(snippet: Json, before: dict[str, str], after: dict[str, str]) -> list[str]:
    """The slots that apply changed although the expectation does not change them so."""
    allowed = allowed_changes(snippet)
    wrong = []
    for key in sorted(set(before) | set(after)):
        if before.get(key) != after.get(key) and (
            key not in allowed or allowed[key] != after.get(key)
        ):
            wrong.append(f"{key}: {before.get(key)} -> {after.get(key)}")
    return wrong


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0
    fn: int = 0

    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None


def share(hits: int, total: int) -> float | None:
    return hits / total if total else None


@dataclass
class Scores:
    items: Tally = field(default_factory=Tally)
    by_predicate: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    # The snippets' items by each of their tags (a kind of text: "relatives", "correction").
    by_kind: dict[str, Tally] = field(default_factory=lambda: defaultdict(Tally))
    # Each expected slot value of a timeline checkpoint: held (with its value) or not, by
    # predicate and by the timeline's tags.
    slot_values: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    slot_values_by_tag: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    contradiction: list[bool] = field(default_factory=list)
    confirmation: list[bool] = field(default_factory=list)
    dated: list[bool] = field(default_factory=list)
    trap_clean: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    trap_updates: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    slots: list[bool] = field(default_factory=list)
    slots_by_tag: dict[str, list[bool]] = field(default_factory=lambda: defaultdict(list))
    misses: list[str] = field(default_factory=list)

    def summary(self) -> Json:
        updates = [x for kind in self.trap_updates.values() for x in kind]
        held = [x for values in self.slot_values.values() for x in values]
        return {
            "values_learned": self.items.recall(),
            "slot_values_held": share(sum(held), len(held)),
            "precision": self.items.precision(),
            "recall": self.items.recall(),
            "contradiction_accuracy": share(sum(self.contradiction), len(self.contradiction)),
            "slot_accuracy": share(sum(self.slots), len(self.slots)),
            "false_updates": share(sum(updates), len(updates)),
            "confirmation_accuracy": share(sum(self.confirmation), len(self.confirmation)),
            "future_date_accuracy": share(sum(self.dated), len(self.dated)),
        }


def score_snippet(scores: Scores, snippet: Json, answer: Json) -> None:
    expected, predicted = expected_items(snippet), items(answer["new"], answer["contradicted"])
    sid = f"{snippet['id']} {snippet['text']!r}"
    for key in expected | predicted:
        tp = min(expected[key], predicted[key])
        fp, fn = predicted[key] - tp, expected[key] - tp
        kinds = [scores.by_kind[tag] for tag in snippet["tags"] or ["untagged"]]
        for tally in (scores.items, scores.by_predicate[key[0]], *kinds):
            tally.tp, tally.fp, tally.fn = tally.tp + tp, tally.fp + fp, tally.fn + fn
        if fp:
            scores.misses.append(f"{sid}: spurious {key}")
        if fn:
            scores.misses.append(f"{sid}: missed {key}")
    if snippet["existing"]:
        want = contradiction_keys(snippet["expect"]["contradicted"])
        got = contradiction_keys(answer["contradicted"])
        scores.contradiction.append(want == got)
        if want != got:
            scores.misses.append(f"{sid}: contradicted {sorted(got)}, want {sorted(want)}")
        want_c = confirmed_keys(snippet["expect"]["confirmed"])
        got_c = confirmed_keys(answer["confirmed"])
        scores.confirmation.append(set(want_c) == set(got_c))
    expect = snippet["expect"]
    want_dates = dates(expect["new"], "value") | dates(expect["contradicted"], "new_value")
    got_dates = dates(answer["new"], "value") | dates(answer["contradicted"], "new_value")
    for key in set(want_dates) & set(got_dates):
        # A change dated in the past ("I joined Stripe last month") is current: only future
        # dates, expected or answered, are scored.
        future = {d for d in got_dates[key] if d and d > NOW[:10]}
        if want_dates[key] != {None} or future:
            scores.dated.append(want_dates[key] <= got_dates[key] and not future - want_dates[key])
    if snippet["trap"]:
        scores.trap_clean[snippet["trap"]].append(not (predicted - expected))


def score_trap_apply(scores: Scores, snippet: Json, before: Json, after: Json) -> None:
    wrong = false_update(snippet, before, after)
    scores.trap_updates[snippet["trap"]].append(bool(wrong))
    if wrong:
        scores.misses.append(f"{snippet['id']} {snippet['text']!r}: false update {wrong}")


def score_checkpoint(scores: Scores, timeline: Json, index: int, state: dict[str, str]) -> None:
    line = timeline["lines"][index]
    want = expected_state(line["expect"])
    scores.slots.append(want == state)
    for key, value in want.items():
        predicate = key.split(":")[-1].split("[")[0]
        scores.slot_values[predicate].append(state.get(key) == value)
        for tag in timeline["tags"] or ["untagged"]:
            scores.slot_values_by_tag[tag].append(state.get(key) == value)
    for tag in timeline["tags"] or ["untagged"]:
        scores.slots_by_tag[tag].append(want == state)
    if want != state:
        scores.misses.append(
            f"{timeline['id']} line {index + 1} {line['text']!r}: slots {state}, want {want}"
        )


def self_check(snippets: list[Json], timelines: list[Json]) -> Scores:
    """Scores the expectations against themselves: 1.0 everywhere, no false update."""
    scores = Scores()
    for snippet in snippets:
        expect = snippet["expect"]
        answer = {
            "new": expect["new"],
            "contradicted": expect["contradicted"],
            "confirmed": [{"fact": c} for c in expect["confirmed"]],
        }
        score_snippet(scores, snippet, answer)
        if snippet["trap"]:
            before = state_from_existing(snippet["existing"])
            after = dict(before)
            for key, value in allowed_changes(snippet).items():
                if value is None:
                    after.pop(key, None)
                else:
                    after[key] = value
            score_trap_apply(scores, snippet, before, after)
    for timeline in timelines:
        for index, line in enumerate(timeline["lines"]):
            score_checkpoint(scores, timeline, index, expected_state(line["expect"]))
    return scores


# Typos as people make them (--typos): a key next to the one meant, on a QWERTY keyboard.
_NEIGHBOURS = {
    "q": "wa", "w": "qeas", "e": "wrsd", "r": "etdf", "t": "ryfg", "y": "tugh", "u": "yihj",
    "i": "uojk", "o": "ipkl", "p": "ol", "a": "qwsz", "s": "awedxz", "d": "serfcx",
    "f": "drtgvc", "g": "ftyhbv", "h": "gyujnb", "j": "huikmn", "k": "jiolm", "l": "kop",
    "z": "asx", "x": "zsdc", "c": "xdfv", "v": "cfgb", "b": "vghn", "n": "bhjm", "m": "njk",
}  # fmt: skip
# What is left as typed: an address, a number, a handle or a link (the chunk between spaces).
_VERBATIM = re.compile(r"[@\d/]|www\.|\.(?:com|org|net|io)\b", re.IGNORECASE)


def typo(word: str, rng: random.Random) -> str:
    """``word`` with one typo: two letters swapped, one dropped, one doubled or one struck
    by its keyboard neighbour. The first letter stays (people rarely miss it)."""
    kind = rng.choice(("swap", "drop", "double", "neighbour"))
    at = rng.randrange(1, len(word) - (kind == "swap"))
    if kind == "swap":
        return word[:at] + word[at + 1] + word[at] + word[at + 2 :]
    if kind == "drop":
        return word[:at] + word[at + 1 :]
    if kind == "double":
        return word[: at + 1] + word[at:]
    near = _NEIGHBOURS.get(word[at].lower())
    return word[:at] + rng.choice(near) + word[at + 1 :] if near else word


def with_typos(text: str, *, rate: float, rng: random.Random, keep: set[str]) -> str:
    """``text`` with a typo in about ``rate`` of its lower-case words of 4+ letters; never in
    a capitalised word (a name), an address, a number, nor in a word of a labelled value
    (``keep``, casefolded): the values stay as labelled."""

    def word(match: re.Match[str]) -> str:
        typed = match.group(0)
        if len(typed) < 4 or not typed.islower() or typed in keep or rng.random() >= rate:
            return typed
        return typo(typed, rng)

    def chunk(match: re.Match[str]) -> str:
        if _VERBATIM.search(match.group(0)):
            return match.group(0)
        return re.sub(r"[^\W\d_]+", word, match.group(0))

    return re.sub(r"\S+", chunk, text)


def _value_words(item: Json) -> set[str]:
    """The words of every value and qualifier an item (snippet or timeline) labels or seeds."""
    values: list[str] = []
    for fact in item.get("existing", []):
        values += [fact["value"], fact.get("qualifier") or ""]
    expects = [item["expect"]] if "expect" in item else []
    for expect in expects:
        for i in expect["new"] + expect["contradicted"] + expect["confirmed"]:
            fact = i.get("fact", i)
            values += [fact.get(k) or "" for k in ("value", "new_value", "qualifier")]
    for line in item.get("lines", []):
        values += [f"{k} {v or ''}" for k, v in line["expect"].items()]
    return {w for value in values for w in re.findall(r"[^\W\d_]+", value.casefold())}


def typoed(
    snippets: list[Json], timelines: list[Json], *, rate: float, seed: int
) -> tuple[list[Json], list[Json]]:
    """The sets with typos in their texts (see with_typos), the same for the same seed."""

    def rng(item: Json, line: int = 0) -> random.Random:
        return random.Random(f"{seed}:{item['id']}:{line}")

    snippets = [
        s | {"text": with_typos(s["text"], rate=rate, rng=rng(s), keep=_value_words(s))}
        for s in snippets
    ]
    timelines = [
        t
        | {
            "lines": [
                line
                | {"text": with_typos(line["text"], rate=rate, rng=rng(t, n), keep=_value_words(t))}
                for n, line in enumerate(t["lines"])
            ]
        }
        for t in timelines
    ]
    return snippets, timelines


class EndpointMissing(RuntimeError):
    pass


class Api:
    """JSON over Django's test client, authenticated with a fresh API key."""

    def __init__(self, workspace: Any) -> None:
        from django.test import Client

        from tenancy.services import create_api_key

        _key, token = create_api_key(workspace=workspace, name="facts quality", actor="bench")
        self.client = Client(HTTP_HOST="127.0.0.1")
        self.headers = {"Authorization": f"Bearer {token}"}

    def call(self, method: str, path: str, body: Json | None = None) -> Json:
        if method == "GET":
            response = self.client.get(path, body, headers=self.headers)
        else:
            response = self.client.post(
                path, json.dumps(body), content_type="application/json", headers=self.headers
            )
        code = (response.json().get("error") or {}).get("code") if response.content else None
        if (
            path == "/v1/facts/check"
            and response.status_code in (404, 405)
            and (code != "agent_not_found")
        ):
            raise EndpointMissing(
                f"POST /v1/facts/check answered HTTP {response.status_code}: the check "
                "endpoint of issue 10 is not there yet, so there is nothing to measure."
            )
        if response.status_code != 200:
            raise RuntimeError(f"{method} {path} -> {response.status_code}: {response.content!r}")
        return response.json()


def seed(api: Api, agent_id: str, existing: list[Json]) -> None:
    for fact in existing:
        api.call(
            "POST",
            "/v1/facts",
            {
                "agent_id": agent_id,
                "user": USER,
                "subject": "user",
                "predicate": fact["predicate"],
                "qualifier": fact["qualifier"] or None,
                "value": fact["value"],
                "verification": fact["verification"],
                "source": {"kind": "operator", "operator": "bench", "excerpt": "seeded"},
            },
        )


def facts_of(api: Api, agent_id: str) -> list[Json]:
    facts, cursor = [], None
    while True:
        params = {"agent_id": agent_id, "user": USER, "status": "current,history", "limit": 100}
        page = api.call("GET", "/v1/facts", params | ({"cursor": cursor} if cursor else {}))
        facts += page["items"]
        cursor = page["next_cursor"]
        if not cursor:
            return facts


def check(api: Api, agent_id: str, text: str, *, apply: bool, now: str) -> Json:
    body = {"agent_id": agent_id, "user": USER, "text": text, "apply": apply, "now": now}
    body["source"] = {"kind": "conversation_summary", "reference": "bench", "excerpt": text}
    return api.call("POST", "/v1/facts/check", body)


def run(snippets: list[Json], timelines: list[Json], *, workspace: Any) -> Scores:
    """Measures the product through its REST API (the database must be migrated)."""
    from tenancy.services import create_agent

    api, scores, run_id = Api(workspace), Scores(), time.time_ns()
    now = datetime.fromisoformat(NOW)

    def new_agent(item: Json) -> str:
        agent_id = f"fq-{run_id}-{item['id']}"
        create_agent(workspace=workspace, agent_id=agent_id)
        seed(api, agent_id, item["existing"])
        return agent_id

    for snippet in snippets:
        agent_id = new_agent(snippet)
        score_snippet(scores, snippet, check(api, agent_id, snippet["text"], apply=False, now=NOW))
        if snippet["trap"]:
            # Measured from the seeded slots, so a check with apply false that wrote counts too.
            check(api, agent_id, snippet["text"], apply=True, now=NOW)
            after = slots_at(facts_of(api, agent_id), now)
            score_trap_apply(scores, snippet, state_from_existing(snippet["existing"]), after)
    for timeline in timelines:
        agent_id = new_agent(timeline)
        for index, line in enumerate(timeline["lines"]):
            check(api, agent_id, line["text"], apply=True, now=line["at"])
            state = slots_at(facts_of(api, agent_id), datetime.fromisoformat(line["at"]))
            score_checkpoint(scores, timeline, index, state)
    return scores


def report(scores: Scores) -> Json:
    return {
        "overall": scores.summary(),
        "by_predicate": {
            p: {"precision": t.precision(), "recall": t.recall(), "expected": t.tp + t.fn}
            for p, t in sorted(scores.by_predicate.items())
        },
        "by_kind": {
            kind: {"precision": t.precision(), "recall": t.recall(), "expected": t.tp + t.fn}
            for kind, t in sorted(scores.by_kind.items())
        },
        "slot_values_by_predicate": {
            p: {"held": share(sum(v), len(v)), "expected": len(v)}
            for p, v in sorted(scores.slot_values.items())
        },
        "slot_values_by_tag": {
            tag: {"held": share(sum(v), len(v)), "expected": len(v)}
            for tag, v in sorted(scores.slot_values_by_tag.items())
        },
        "by_trap_kind": {
            kind: {
                "snippets": len(scores.trap_clean[kind]),
                "nothing_spurious": share(
                    sum(scores.trap_clean[kind]), len(scores.trap_clean[kind])
                ),
                "false_updates": share(
                    sum(scores.trap_updates[kind]), len(scores.trap_updates[kind])
                ),
            }
            for kind in sorted(scores.trap_clean)
        },
        "slots_by_tag": {
            tag: share(sum(hits), len(hits)) for tag, hits in sorted(scores.slots_by_tag.items())
        },
        "misses": scores.misses,
    }


def pct(value: float | None) -> str:
    return "n/a" if value is None else f"{100 * value:.1f}"


def markdown(result: Json, title: str, targets: dict[str, tuple[str, float]] = TARGETS) -> str:
    overall = result["overall"]
    rows = [f"## {title}\n", "| measure | value | target |", "|---|---|---|"]
    for name, value in overall.items():
        op, target = targets.get(name, ("", None))
        rows.append(f"| {name} | {pct(value)} | {op} {pct(target) if target else ''} |")
    rows += ["", "| predicate | expected | precision | recall |", "|---|---|---|---|"]
    for name, row in result["by_predicate"].items():
        rows.append(
            f"| {name} | {row['expected']} | {pct(row['precision'])} | {pct(row['recall'])} |"
        )
    rows += ["", "| snippet kind | expected | precision | values learned |", "|---|---|---|---|"]
    for name, row in result["by_kind"].items():
        rows.append(
            f"| {name} | {row['expected']} | {pct(row['precision'])} | {pct(row['recall'])} |"
        )
    rows += ["", "| timeline slots by predicate | expected | held |", "|---|---|---|"]
    for name, row in result["slot_values_by_predicate"].items():
        rows.append(f"| {name} | {row['expected']} | {pct(row['held'])} |")
    rows += ["", "| timeline slots by tag | expected | held |", "|---|---|---|"]
    for name, row in result["slot_values_by_tag"].items():
        rows.append(f"| {name} | {row['expected']} | {pct(row['held'])} |")
    rows += ["", "| trap kind | snippets | nothing spurious | false updates |", "|---|---|---|---|"]
    for name, row in result["by_trap_kind"].items():
        rows.append(
            f"| {name} | {row['snippets']} | {pct(row['nothing_spurious'])} | "
            f"{pct(row['false_updates'])} |"
        )
    rows += ["", "| timeline tag | slot accuracy |", "|---|---|"]
    rows += [f"| {tag} | {pct(value)} |" for tag, value in result["slots_by_tag"].items()]
    return "\n".join(rows)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--self-check", action="store_true", help="Score the labels vs. themselves."
    )
    parser.add_argument("--verbose", action="store_true", help="List every miss.")
    parser.add_argument("--json", type=Path, help="Also write the full result here.")
    parser.add_argument(
        "--data",
        type=Path,
        default=DATA,
        help="The directory of snippets.jsonl and timelines.jsonl (default: the held-out set; "
        "bench/facts_quality/dev is the development set).",
    )
    parser.add_argument(
        "--typos",
        type=float,
        default=0.0,
        metavar="RATE",
        help="Put a typo in about RATE of the lower-case words of 4+ letters of every text "
        "(not in names, addresses, numbers or labelled values): robustness to typing.",
    )
    parser.add_argument("--seed", type=int, default=1, help="The typos' seed (with --typos).")
    args = parser.parse_args()
    sys.path.insert(0, str(ROOT))
    if not os.environ.get("DATABASE_URL"):
        os.environ["DEWEE_VAR_DIR"] = tempfile.mkdtemp(prefix="dewee-facts-quality-")
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    # Static files are served from the apps here: a benchmark run has no collectstatic.
    os.environ.setdefault(
        "DEWEE_STATICFILES_STORAGE", "django.contrib.staticfiles.storage.StaticFilesStorage"
    )
    import django

    django.setup()
    from django.core.management import call_command
    from django.db import connection

    from tenancy.services import default_workspace

    snippets, timelines = load("snippets.jsonl", args.data), load("timelines.jsonl", args.data)
    if args.typos:
        snippets, timelines = typoed(snippets, timelines, rate=args.typos, seed=args.seed)
    if args.self_check:
        scores, title = self_check(snippets, timelines), "Facts quality: self-check"
    else:
        call_command("migrate", verbosity=0)
        started = time.perf_counter()
        try:
            scores = run(snippets, timelines, workspace=default_workspace())
        except EndpointMissing as missing:
            sys.exit(f"facts_quality: {missing}")
        title = (
            f"Facts learned from text on {connection.vendor} ({len(snippets)} snippets, "
            f"{len(timelines)} timelines, {time.perf_counter() - started:.0f} s)"
        )
        if args.typos:
            title += f", typos in {100 * args.typos:.0f}% of words (seed {args.seed})"
    result = report(scores)
    natural = "natural" in args.data.resolve().parts
    print(markdown(result, title, NATURAL_TARGETS if natural else TARGETS))
    if args.verbose:
        print("\n### Misses\n")
        print("\n".join(f"- {miss}" for miss in result["misses"]) or "none")
    if args.json:
        args.json.write_text(json.dumps(result, indent=1))


if __name__ == "__main__":
    main()
