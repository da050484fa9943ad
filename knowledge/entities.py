"""What is known about an entity beyond its memories: the facts that name it."""

from facts.models import Fact
from facts.queries import facts_naming
from memory.models import Entity


def entity_facts(entity: Entity) -> list[Fact]:
    """The facts whose subject or value is the entity's name or one of its aliases."""
    return facts_naming(agent=entity.agent, names=[entity.name, *entity.aliases])
