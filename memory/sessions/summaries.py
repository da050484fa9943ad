"""Summaries of a conversation, for the session that ends idle (see
memory.services.idle_sessions.idle_sessions_pass).

``DEWEE_SESSION_SUMMARISER`` is the dotted path of any callable ``(texts: list[str]) -> str``;
the default, :func:`extractive_summary`, needs no LLM. :func:`http_summary` is for
deployments that run a summarising service:

    DEWEE_SESSION_SUMMARISER=memory.sessions.summaries.http_summary
    DEWEE_SUMMARISER_URL=http://127.0.0.1:9000/summarise
    DEWEE_SUMMARISER_TIMEOUT_SECS=30        (optional)

It POSTs ``{"texts": ["turn 1", "turn 2", ...]}`` (JSON, oldest turn first) and expects
``200`` with ``{"summary": "..."}``; anything else (an error status, a timeout, a body that is
not that shape) is logged and the extractive summary is used instead, so a session always ends
with a summary.
"""

import json
import logging
import math
import re
import urllib.request
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import numpy as np
from django.conf import settings
from django.core.checks import CheckMessage, Error
from django.core.exceptions import ImproperlyConfigured
from django.utils.module_loading import import_string

logger = logging.getLogger("dewee.summaries")

Summariser = Callable[[list[str]], str]

SUMMARY_SENTENCES = 3
# Sentences of fewer words ("Yes.", "Thanks!") carry no content of their own; they are left
# out unless nothing else is left.
MIN_WORDS = 3
# Embedding runs at about 1,500 sentences a second on 2 cores: beyond this many, an even
# sample of the conversation keeps a huge session from holding the pass for minutes.
MAX_SENTENCES = 2000
# A summariser's answer is read up to this size; a summary is at most 16,000 characters.
MAX_RESPONSE_BYTES = 1024 * 1024

_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+|\n+")


def split_sentences(texts: list[str]) -> list[str]:
    """The sentences of ``texts`` in order, each once."""
    sentences = (s.strip() for text in texts for s in _SENTENCE_END.split(text))
    return list(dict.fromkeys(s for s in sentences if s))


def extractive_summary(texts: list[str]) -> str:
    """The most central sentences of ``texts``, in their original order: those whose vectors
    lie closest (by cosine) to the centroid of all the sentences, i.e. what the conversation
    is mostly about. At most SUMMARY_SENTENCES, and at most half of the sentences (rounded
    up), so that a short input is still shortened. Empty input gives ""."""
    from memory.embeddings.engine import get_embedder

    sentences = split_sentences(texts)
    worded = [s for s in sentences if len(s.split()) >= MIN_WORDS]
    sentences = worded or sentences
    if len(sentences) > MAX_SENTENCES:
        picks = np.linspace(0, len(sentences) - 1, MAX_SENTENCES).round().astype(int)
        sentences = [sentences[i] for i in dict.fromkeys(picks.tolist())]
    if not sentences:
        return ""
    count = min(SUMMARY_SENTENCES, math.ceil(len(sentences) / 2))
    vectors = get_embedder().embed(sentences)
    # Rows are unit vectors, so the dot product with the centroid orders them by cosine.
    centrality = vectors @ vectors.mean(axis=0)
    # Ties (identical vectors) go to the earlier sentence.
    ranked = sorted(range(len(sentences)), key=lambda i: (-float(centrality[i]), i))
    return " ".join(sentences[i] for i in sorted(ranked[:count]))


def http_summary(texts: list[str]) -> str:
    """Ask the service at DEWEE_SUMMARISER_URL (protocol in the module docstring); fall back to
    :func:`extractive_summary`, with a warning in the log, when it fails."""
    url = settings.DEWEE_SUMMARISER_URL
    request = urllib.request.Request(
        url,
        data=json.dumps({"texts": texts}).encode("utf-8"),
        headers={"Content-Type": "application/json", "Accept": "application/json"},
        method="POST",
    )
    try:
        with urllib.request.urlopen(
            request, timeout=settings.DEWEE_SUMMARISER_TIMEOUT_SECS
        ) as response:
            body: Any = json.loads(response.read(MAX_RESPONSE_BYTES))
        summary = body["summary"] if isinstance(body, dict) else None
        if not isinstance(summary, str) or not summary.strip():
            raise ValueError('the answer has no "summary" text')
    except (OSError, ValueError) as exc:
        # OSError covers refused connections, timeouts and error statuses (HTTPError);
        # ValueError a body that is not JSON or not the expected shape.
        logger.warning("Summariser %s failed (%s); using the extractive summary", url, exc)
        return extractive_summary(texts)
    return summary.strip()


def get_summariser() -> Summariser:
    """The callable DEWEE_SESSION_SUMMARISER names (check_summariser vets it at start-up)."""
    path = settings.DEWEE_SESSION_SUMMARISER
    try:
        summariser = import_string(path)
    except ImportError as exc:
        raise ImproperlyConfigured(f"DEWEE_SESSION_SUMMARISER={path!r}: {exc}") from exc
    if not callable(summariser):
        raise ImproperlyConfigured(f"DEWEE_SESSION_SUMMARISER={path!r} is not callable")
    return summariser


def check_summariser(app_configs: Any = None, **kwargs: Any) -> list[CheckMessage]:
    """A Django system check: the summariser setting names a callable, and the HTTP
    summariser has a URL to call."""
    path = settings.DEWEE_SESSION_SUMMARISER
    try:
        summariser = get_summariser()
    except ImproperlyConfigured as exc:
        return [
            Error(
                str(exc),
                hint="Set it to the dotted path of a callable (texts: list[str]) -> str, "
                "e.g. memory.sessions.summaries.extractive_summary.",
                id="memory.E001",
            )
        ]
    if summariser is http_summary:
        url = settings.DEWEE_SUMMARISER_URL
        if urlsplit(url).scheme not in ("http", "https") or not urlsplit(url).netloc:
            return [
                Error(
                    f"DEWEE_SESSION_SUMMARISER={path!r} needs DEWEE_SUMMARISER_URL, an http(s) "
                    f"URL; it is {url!r}",
                    id="memory.E002",
                )
            ]
    return []
