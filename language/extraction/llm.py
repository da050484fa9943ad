"""An optional extractor that asks a language model the operator runs or rents, through an
OpenAI-compatible chat completions endpoint (DEWEE_FACTS_LLM_URL). Off unless configured:
the default extractor (language.extraction.extract) needs no model and no network.

The model is asked for a JSON list of statements in the same vocabulary as the rules; an
answer that is not that shape, a refusal or an unreachable endpoint falls back to the rules,
with a warning in the log. Nothing is sent anywhere the operator did not configure.
"""

import json
import logging
import urllib.request
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Any
from urllib.parse import urlsplit

from django.conf import settings
from django.core.checks import CheckMessage, Error

from language.extraction.extractor import extract
from language.extraction.statements import MULTI_VALUED, Statement, qualifier_for

logger = logging.getLogger(__name__)

Extractor = Callable[..., list[Statement]]
# What the rules extract too: the model is held to the same vocabulary.
PREDICATES = (
    frozenset(
        {
            "employer",
            "job_title",
            "city",
            "country",
            "email",
            "phone",
            "birthday",
            "spouse",
            "partner",
            "diet",
        }
    )
    | MULTI_VALUED
)
MAX_RESPONSE_BYTES = 1_000_000
PROMPT = (
    "Extract the facts the speaker states about themselves in the text. Answer with JSON "
    'only: {"statements": [{"predicate": ..., "value": ... or null when the text ends the '
    'value, "evidence": the exact words, "valid_from": ISO date or null for a future change, '
    '"confidence": 0..1}]}. Predicates: '
    + ", ".join(sorted(PREDICATES))
    + ". Multi-valued: "
    + ", ".join(sorted(MULTI_VALUED))
    + ". Say nothing for questions, hypotheticals, plans "
    "or wishes, other people, the past, negations and reported speech. Today is {today}."
)


def _moment(value: object) -> datetime:
    """An ISO date or time from the model; one without a zone is UTC (as users' times are),
    so that it compares with the server's aware clock."""
    if not isinstance(value, str):
        raise ValueError("valid_from is not an ISO date")
    moment = datetime.fromisoformat(value)
    return moment if moment.tzinfo is not None else moment.replace(tzinfo=UTC)


def _statements(answer: Any, text: str) -> list[Statement]:
    """The model's answer as statements; ValueError when it is not the asked-for shape."""
    content = answer["choices"][0]["message"]["content"]
    items = json.loads(content)["statements"]
    if not isinstance(items, list):
        raise ValueError("statements is not a list")
    found = []
    for item in items:
        predicate, value = item.get("predicate"), item.get("value")
        evidence = item.get("evidence") or ""
        if predicate not in PREDICATES or (value is not None and not isinstance(value, str)):
            continue
        if not isinstance(evidence, str) or evidence not in text:
            continue  # evidence the text does not hold is invented: left out
        valid_from = item.get("valid_from")
        found.append(
            Statement(
                predicate=predicate,
                qualifier=qualifier_for(predicate, value),
                value=value.strip() if value else None,
                evidence=evidence,
                confidence=min(max(float(item.get("confidence") or 0.8), 0.0), 1.0),
                valid_from=_moment(valid_from) if valid_from else None,
            )
        )
    return found


def llm_extract(text: str, *, now: datetime | None = None) -> list[Statement]:
    """What the configured model finds in ``text``; the rules' answer when it fails."""
    today = (now or datetime.now().astimezone()).date().isoformat()
    body = {
        "model": settings.DEWEE_FACTS_LLM_MODEL,
        "temperature": 0,
        "messages": [
            {"role": "system", "content": PROMPT.replace("{today}", today)},
            {"role": "user", "content": text},
        ],
    }
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    if settings.DEWEE_FACTS_LLM_API_KEY:
        headers["Authorization"] = f"Bearer {settings.DEWEE_FACTS_LLM_API_KEY}"
    url = settings.DEWEE_FACTS_LLM_URL.rstrip("/") + "/chat/completions"
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers=headers, method="POST"
    )
    try:
        with urllib.request.urlopen(request, timeout=settings.DEWEE_FACTS_LLM_TIMEOUT_SECS) as r:
            answer = json.loads(r.read(MAX_RESPONSE_BYTES))
        return _statements(answer, text)
    except (OSError, ValueError, KeyError, IndexError, TypeError) as exc:
        logger.warning("Facts extractor %s failed (%s); using the rules", url, exc)
        return extract(text, now=now)


def get_extractor() -> Extractor:
    """The extractor DEWEE_FACTS_EXTRACTOR names: "rules" (default) or "llm"."""
    return llm_extract if settings.DEWEE_FACTS_EXTRACTOR == "llm" else extract


def check_extractor(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A Django system check: a known extractor, and an http(s) URL for the LLM one."""
    name = settings.DEWEE_FACTS_EXTRACTOR
    if name not in ("rules", "llm"):
        return [Error(f"DEWEE_FACTS_EXTRACTOR is {name!r}: use rules or llm", id="facts.E001")]
    url = urlsplit(settings.DEWEE_FACTS_LLM_URL)
    if name == "llm" and (url.scheme not in ("http", "https") or not url.netloc):
        return [
            Error(
                "DEWEE_FACTS_EXTRACTOR=llm needs DEWEE_FACTS_LLM_URL, the http(s) base URL of "
                f"an OpenAI-compatible API (e.g. http://127.0.0.1:8080/v1); it is "
                f"{settings.DEWEE_FACTS_LLM_URL!r}",
                id="facts.E002",
            )
        ]
    return []
