"""The memory API under /v1/: thin adapters over memory.services (writes), memory.queries
(reads) and memory.recall. One module per resource; order matters where
paths overlap (an agent's sub-resources are declared before the agent itself)."""

from ninja import Router

from memory.api import (
    agents,
    entities,
    feedback,
    graph,
    maintenance,
    memories,
    quotas,
    sessions,
)

router = Router()
# entities, graph and quotas before agents and memories: their paths are those resources'
# sub-resources.
for module in (entities, graph, quotas, agents, memories, feedback, sessions, maintenance):
    router.add_router("", module.router)
