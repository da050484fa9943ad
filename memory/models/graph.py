"""The semantic tier: the entities an agent's memories mention, and the edges between its
memories. Built as memories arrive (memory.services.graph); see DESIGN.md, Knowledge graph.

Nothing here crosses an agent: an entity belongs to one agent, a mention joins an entity and
a memory of that agent, an edge two memories of that agent. The services check it; the
``agent`` columns make the check cheap and every read scoped by index.
"""

from django.db import models
from django.db.models import Q

from language.entities import entity_key
from memory.models.core import Memory
from tenancy.models import Agent


class EntityType(models.TextChoices):
    PERSON = "person"
    ORGANISATION = "organisation"
    PLACE = "place"
    PRODUCT = "product"
    # A capitalised name the rules cannot tell apart (person, place, organisation...).
    NAME = "name"
    DATE = "date"
    EMAIL = "email"
    URL = "url"
    PHONE = "phone"
    IP = "ip"
    UUID = "uuid"


# Entities that are someone or something, and so worth an edge between the memories that
# mention them; a date, an address or a number is shared by chance as often as by topic.
NAMED_TYPES = frozenset(
    {
        EntityType.PERSON,
        EntityType.ORGANISATION,
        EntityType.PLACE,
        EntityType.PRODUCT,
        EntityType.NAME,
    }
)


class EntityQuerySet(models.QuerySet["Entity"]):
    def named(self) -> "EntityQuerySet":
        """People, organisations, places, products and untyped names."""
        return self.filter(type__in=NAMED_TYPES)

    def matching(self, *values: str) -> "EntityQuerySet":
        """Entities whose name or an alias is one of ``values`` (compared as entity keys):
        how a fact's subject or value is linked to an entity, with no key between them.
        Scope it to an agent first: ``Entity.objects.filter(agent=agent).matching(...)``."""
        keys = {entity_key(value) for value in values if value and value.strip()}
        if not keys:
            return self.none()
        condition = Q(key__in=keys)
        for key in keys:
            condition |= Q(search_keys__contains=f"\n{key}\n")
        return self.filter(condition)

    def with_prefix(self, prefix: str) -> "EntityQuerySet":
        """Entities whose name or an alias starts with ``prefix``, case-insensitively."""
        return self.filter(search_keys__contains=f"\n{entity_key(prefix)}")


class Entity(models.Model):
    """Someone or something an agent's memories mention. ``key`` is the normalised name
    (language.entities.entity_key) and is unique per agent and type; ``name`` is the form
    first seen, ``aliases`` other forms seen since. ``mention_count`` is the number of the
    agent's memories that mention it (EntityMention rows); an entity whose last mention
    goes is deleted, so the count is never 0."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="entities")
    type = models.CharField(max_length=16, choices=EntityType.choices)
    name = models.CharField(max_length=200)
    key = models.CharField(max_length=200)
    aliases = models.JSONField(default=list, blank=True)
    # "\n" + key + "\n" + each alias's key + "\n": a prefix search on any of them is one
    # ``contains("\n" + prefix)``, an exact one ``contains("\n" + key + "\n")``, on every
    # database (the list is per agent and short, so a scan of its rows).
    search_keys = models.TextField(default="", blank=True)
    first_seen = models.DateTimeField()
    last_seen = models.DateTimeField()
    mention_count = models.PositiveIntegerField(default=0)

    objects = EntityQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "entities"
        constraints = [
            models.UniqueConstraint(fields=["agent", "type", "key"], name="entity_agent_type_key"),
        ]
        indexes = [
            models.Index(fields=["agent", "key"], name="entity_agent_key_idx"),
            models.Index(fields=["agent", "-id"], name="entity_agent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.type}: {self.name}"


class EntityMention(models.Model):
    """A memory mentions an entity ``count`` times (at least once); ``start``/``end``: the
    first mention's span in the content, None when it is not there verbatim (the speaker)."""

    entity = models.ForeignKey(Entity, on_delete=models.CASCADE, related_name="mentions")
    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="entity_mentions")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    count = models.PositiveIntegerField(default=1)
    start = models.PositiveIntegerField(null=True, blank=True)
    end = models.PositiveIntegerField(null=True, blank=True)
    # The speaker of the memory rather than something its text names.
    as_speaker = models.BooleanField(default=False)

    class Meta:
        constraints = [
            # With the agent (last: the index still serves lookups by entity), as a table
            # distributed by agent needs (docs/SCALING.md).
            models.UniqueConstraint(
                fields=["entity", "memory", "agent"], name="mention_entity_memory"
            ),
        ]
        indexes = [
            models.Index(fields=["memory"], name="mention_memory_idx"),
            # The latest memories that mention an entity (shares_entity, an entity's page).
            models.Index(fields=["entity", "-memory"], name="mention_entity_memory_idx"),
        ]

    def __str__(self) -> str:
        return f"memory {self.memory_id} mentions entity {self.entity_id}"


class EdgeType(models.TextChoices):
    RELATED_TO = "related_to"
    SHARES_ENTITY = "shares_entity"
    PRECEDES = "precedes"
    LINKED_BY = "linked_by"
    SUPERSEDES = "supersedes"


class MemoryEdge(models.Model):
    """A directed edge between two memories of one agent. Built edges point from the newer
    memory to the older one (``related_to``, ``shares_entity``, ``supersedes``: newer over
    older) except ``precedes``, which points from the earlier turn to the next one;
    ``linked_by`` goes where its ``created_by`` said. ``weight``: the cosine for
    related_to/supersedes, the number of shared entities for shares_entity, 1 otherwise."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    source = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="edges_out")
    target = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="edges_in")
    type = models.CharField(max_length=16, choices=EdgeType.choices)
    weight = models.FloatField(default=1.0)
    created_at = models.DateTimeField(auto_now_add=True)
    # Who linked them (the actor, for linked_by); blank for edges the server built.
    created_by = models.CharField(max_length=255, blank=True, default="")

    class Meta:
        ordering = ["-id"]
        constraints = [
            models.UniqueConstraint(
                fields=["source", "target", "type", "agent"], name="memory_edge_unique"
            ),
            models.CheckConstraint(
                condition=~Q(source=models.F("target")), name="memory_edge_not_self"
            ),
        ]
        indexes = [
            # From either end: the unique constraint's index serves (source, ...).
            models.Index(fields=["target", "type"], name="memory_edge_target_idx"),
            models.Index(fields=["agent", "type"], name="memory_edge_agent_type_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.source_id} -{self.type}-> {self.target_id}"


class GraphProgress(models.Model):
    """How far the worker has built an agent's graph (DEWEE_GRAPH_ON_STORE=worker): every
    memory with an id up to ``built_through`` has its graph, and ``queued`` says a job to
    build the rest is waiting, so that many stores queue one job, not one each."""

    agent = models.OneToOneField(Agent, on_delete=models.CASCADE, related_name="graph_progress")
    built_through = models.BigIntegerField(default=0)
    queued = models.BooleanField(default=False)

    def __str__(self) -> str:
        return f"graph of {self.agent_id} built through memory {self.built_through}"
