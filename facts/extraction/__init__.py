"""Rule-based extraction of facts about the speaker from conversational text: no network,
no model. ``extract(text)`` returns :class:`Statement` items; ``traps`` are the phrasings
(questions, hypotheticals, plans, other people, the past, negation, reported speech) that
state nothing."""

from facts.extraction.contradiction import contradicts
from facts.extraction.extractor import extract, extract_clause
from facts.extraction.statements import MULTI_VALUED, Statement

__all__ = ["MULTI_VALUED", "Statement", "contradicts", "extract", "extract_clause"]
