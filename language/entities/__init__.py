"""Rule-based entity extraction: the pre-pass that always runs, before any NER model.

Entities become tags ``entity:<type>:<value>`` on a memory (named things all as
``entity:name:<value>``) and rows of memory.models.Entity with their mentions
(memory.services.graph); recall's entity pass boosts memories that share an entity with the
query, and the AutoPilot dedup keeps near duplicates apart when their entities differ. A
wrong entity costs all of them, so the rules prefer missing an ambiguous entity to inventing
one, and a name stays of type ``name`` unless the words around it say what it is.

Extraction runs on every store, so it is regular expressions only (about 0.1 ms for a
typical memory). A named-entity model is for later, and only where it improves a measured
result.
"""

from language.entities.extract import (
    ENTITY_PREFIX,
    NAMED_TYPES,
    Entity,
    entity_key,
    extract_entities,
    is_entity_tag,
)
from language.entities.names import name_spans, name_type, query_names
from language.entities.speaker import SPEAKER_MAX_CHARS, is_role, speaker_label, speaker_of

__all__ = [
    "ENTITY_PREFIX",
    "NAMED_TYPES",
    "SPEAKER_MAX_CHARS",
    "Entity",
    "entity_key",
    "extract_entities",
    "is_entity_tag",
    "is_role",
    "name_spans",
    "name_type",
    "query_names",
    "speaker_label",
    "speaker_of",
]
