"""Rule-based extraction of facts about the speaker from conversational text: no network,
no model. ``extract(text)`` returns :class:`Statement` items; ``traps`` are the phrasings
(questions, hypotheticals, plans, other people, the past, negation, reported speech) that
state nothing."""

from language.extraction.clause_reading import extract_clause
from language.extraction.contradiction import contradicts
from language.extraction.extractor import extract
from language.extraction.statements import MULTI_VALUED, Statement

__all__ = ["MULTI_VALUED", "Statement", "contradicts", "extract", "extract_clause"]
