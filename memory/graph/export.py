"""An agent's whole graph as one JSON object or one GraphML document, produced piece by
piece so that an export of any size holds one page of rows in memory at a time.

What is exported: the agent's live memories (id, memory type, speaker, created_at, a
content preview), the edges between them (of the types asked for), and with
``entities=True`` its entities (type, name, key, mention count) with one ``mentions`` edge
from each memory to each entity it mentions (weight: times mentioned). In GraphML, memory
nodes are ``m<id>`` and entity nodes ``e<id>``; every attribute is a declared ``<key>``.

Rows are read in keyset pages (by id, EXPORT_PAGE at a time): the number of queries grows
with the pages, never one per row. Nothing here writes.
"""

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from datetime import datetime
from typing import Any
from xml.sax.saxutils import escape, quoteattr

from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import Q, QuerySet
from django.db.models.functions import Substr
from django.utils import timezone

from memory.graph.queries import PREVIEW_CHARS, clean_edge_types
from memory.models import Entity, EntityMention, Memory, MemoryEdge
from tenancy.models import Agent
from tenancy.validation import clean_choice

EXPORT_PAGE = 2_000
FORMATS = ["json", "graphml"]
CONTENT_TYPES = {"json": "application/json", "graphml": "application/graphml+xml"}
# Characters XML 1.0 cannot hold at all, even escaped.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff\ud800-\udfff]")

_MEMORY_FIELDS = ("id", "memory_type", "speaker", "created_at", "preview")
_EDGE_FIELDS = ("id", "source_id", "target_id", "type", "weight")
_ENTITY_FIELDS = ("id", "type", "name", "key", "mention_count")
_MENTION_FIELDS = ("id", "memory_id", "entity_id", "count")

_GRAPHML_KEYS = [
    ("kind", "node", "string"),
    ("memory_type", "node", "string"),
    ("speaker", "node", "string"),
    ("created_at", "node", "string"),
    ("preview", "node", "string"),
    ("entity_type", "node", "string"),
    ("name", "node", "string"),
    ("key", "node", "string"),
    ("mention_count", "node", "int"),
    ("type", "edge", "string"),
    ("weight", "edge", "double"),
]


@dataclass(frozen=True)
class GraphExport:
    chunks: Iterator[str]
    content_type: str
    filename: str


def _pages(rows: QuerySet[Any], fields: tuple[str, ...]) -> Iterator[list[dict[str, Any]]]:
    last = 0
    while True:
        page = list(rows.filter(pk__gt=last).order_by("pk").values(*fields)[:EXPORT_PAGE])
        if page:
            yield page
        if len(page) < EXPORT_PAGE:
            return
        last = page[-1]["id"]


def _live_ends(now: datetime) -> Q:
    return (Q(source__expires_at__isnull=True) | Q(source__expires_at__gt=now)) & (
        Q(target__expires_at__isnull=True) | Q(target__expires_at__gt=now)
    )


def _sections(
    agent: Agent, kinds: list[str], entities: bool
) -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """(section, page of rows): memories, edges, then entities and mentions."""
    now = timezone.now()
    memories = (
        Memory.objects.filter(agent=agent)
        .live(now)
        .annotate(preview=Substr("content", 1, PREVIEW_CHARS))
    )
    edges = MemoryEdge.objects.filter(agent=agent, type__in=kinds).filter(_live_ends(now))
    sections: list[tuple[str, QuerySet[Any], tuple[str, ...]]] = [
        ("memories", memories, _MEMORY_FIELDS),
        ("edges", edges, _EDGE_FIELDS),
    ]
    if entities:
        mentions = EntityMention.objects.filter(agent=agent).filter(
            Q(memory__expires_at__isnull=True) | Q(memory__expires_at__gt=now)
        )
        sections += [
            ("entities", Entity.objects.filter(agent=agent), _ENTITY_FIELDS),
            ("mentions", mentions, _MENTION_FIELDS),
        ]
    for name, rows, fields in sections:
        yield name, []
        for page in _pages(rows, fields):
            yield name, page


def _json_chunks(agent: Agent, kinds: list[str], entities: bool) -> Iterator[str]:
    encoder = DjangoJSONEncoder(ensure_ascii=False)
    yield "{" + f'"agent_id": {encoder.encode(agent.agent_id)}, "edge_types": '
    yield encoder.encode(kinds)
    current = None
    first = True
    for section, page in _sections(agent, kinds, entities):
        if section != current:
            yield ("]" if current else "") + f', "{section}": ['
            current, first = section, True
        if page:
            yield ("" if first else ", ") + ", ".join(encoder.encode(row) for row in page)
            first = False
    yield "]}\n"


def _text(value: object) -> str:
    if isinstance(value, datetime):
        return value.isoformat()
    return _NOT_XML.sub("\ufffd", str(value))


def _data(fields: Iterable[tuple[str, object]]) -> str:
    return "".join(
        f'<data key="{key}">{escape(_text(value))}</data>'
        for key, value in fields
        if value is not None
    )


def _graphml_row(section: str, row: dict[str, Any]) -> str:
    if section == "memories":
        data = _data(
            [
                ("kind", "memory"),
                *((field, row[field]) for field in _MEMORY_FIELDS[1:]),
            ]
        )
        return f'<node id="m{row["id"]}">{data}</node>\n'
    if section == "entities":
        data = _data(
            [
                ("kind", "entity"),
                ("entity_type", row["type"]),
                ("name", row["name"]),
                ("key", row["key"]),
                ("mention_count", row["mention_count"]),
            ]
        )
        return f'<node id="e{row["id"]}">{data}</node>\n'
    if section == "edges":
        ends = f'source="m{row["source_id"]}" target="m{row["target_id"]}"'
        data = _data([("type", row["type"]), ("weight", row["weight"])])
        return f"<edge {ends}>{data}</edge>\n"
    ends = f'source="m{row["memory_id"]}" target="e{row["entity_id"]}"'
    return f"<edge {ends}>{_data([('type', 'mentions'), ('weight', row['count'])])}</edge>\n"


def _graphml_chunks(agent: Agent, kinds: list[str], entities: bool) -> Iterator[str]:
    keys = "".join(
        f'<key id="{name}" for="{scope}" attr.name="{name}" attr.type="{kind}"/>\n'
        for name, scope, kind in _GRAPHML_KEYS
    )
    yield (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        '<graphml xmlns="http://graphml.graphdrawing.org/xmlns">\n'
        f'{keys}<graph id={quoteattr(_text(agent.agent_id))} edgedefault="directed">\n'
    )
    # GraphML wants every node declared before an edge names it: memories come first,
    # then edges; entities, when asked for, before their mentions.
    for section, page in _sections(agent, kinds, entities):
        if page:
            yield "".join(_graphml_row(section, row) for row in page)
    yield "</graph>\n</graphml>\n"


def export_graph(
    *,
    agent: Agent,
    format: str = "json",
    types: str | Iterable[str] | None = None,
    entities: bool = False,
) -> GraphExport:
    """The export of ``agent``'s graph (module docstring), its input checked now and its
    rows read as the chunks are consumed."""
    format = clean_choice(format, field="format", choices=FORMATS)
    kinds = clean_edge_types(types)
    make = _json_chunks if format == "json" else _graphml_chunks
    safe_id = re.sub(r"[^A-Za-z0-9._-]+", "-", agent.agent_id).strip("-") or "agent"
    return GraphExport(
        chunks=make(agent, kinds, entities),
        content_type=CONTENT_TYPES[format],
        filename=f"{safe_id}-graph.{format}",
    )
