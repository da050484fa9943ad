"""The facts app's tables: facts with their periods and sources (:mod:`facts.models.fact`),
and the review shared by a team (:mod:`facts.models.review`)."""

from facts.models.fact import (
    ACCESS_WRITE_INTERVAL,
    EXCERPT_MAX_CHARS,
    KEY_MAX_CHARS,
    USER_SUBJECT,
    VALUE_MAX_CHARS,
    Category,
    Change,
    Fact,
    FactPeriod,
    FactQuerySet,
    FactSource,
    SourceKind,
    Status,
    Verification,
    in_force_at,
)
from facts.models.review import COMMENT_MAX_CHARS, DisputeTriage, FactComment

__all__ = [
    "ACCESS_WRITE_INTERVAL",
    "COMMENT_MAX_CHARS",
    "EXCERPT_MAX_CHARS",
    "KEY_MAX_CHARS",
    "USER_SUBJECT",
    "VALUE_MAX_CHARS",
    "Category",
    "Change",
    "DisputeTriage",
    "Fact",
    "FactComment",
    "FactPeriod",
    "FactQuerySet",
    "FactSource",
    "SourceKind",
    "Status",
    "Verification",
    "in_force_at",
]
