"""The memory API under /v1/: thin adapters over memory.services (writes), memory.queries
(reads), memory.recall and memory.context. One module per resource; order matters where
paths overlap (an agent's sub-resources are declared before the agent itself)."""

from ninja import Router

from memory.api import agents, feedback, maintenance, memories, sessions

router = Router()
for module in (agents, memories, feedback, sessions, maintenance):
    router.add_router("", module.router)
