"""The knowledge API under /v1/: the context for a turn, and a person's export and erasure.
The operations keep the ids they had when memory's API served them (clients generated from
the schema name their methods after them)."""

from ninja import Router

from knowledge.api import context, people

router = Router()
for module in (context, people):
    router.add_router("", module.router)
