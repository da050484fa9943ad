"""The facts app builds on memory: what it does with memories (learning from new ones,
erasing and moving what cites deleted or merged ones, counting in quotas, its keys of the
memory policy, what a memory's page shows of it) it plugs into memory's signals and
registries here, as memory imports nothing of facts."""

from typing import Any

from django.apps import AppConfig


def _follow_memories() -> None:
    from facts.learning import memories_stored_listener
    from facts.services.erasure import (
        erase_facts_learned_only_from,
        move_sources_to_survivor,
    )
    from memory.signals import memories_absorbed, memories_erasing, memories_stored

    # Facts are learned from every stored memory about a user (see facts.learning).
    memories_stored.connect(memories_stored_listener, dispatch_uid="facts.learning")

    # A fact cites the memories it was learned from: deleting them erases the facts learned
    # only from them, merging them moves the citations to the survivor, both in the
    # transaction that changes the memories.
    def memories_erasing_listener(**kwargs: Any) -> int:
        return erase_facts_learned_only_from(memory_ids=kwargs["memory_ids"], actor=kwargs["actor"])

    def memories_absorbed_listener(**kwargs: Any) -> None:
        move_sources_to_survivor(from_ids=kwargs["from_ids"], to_id=kwargs["to_id"])

    memories_erasing.connect(memories_erasing_listener, dispatch_uid="facts.erasing", weak=False)
    memories_absorbed.connect(memories_absorbed_listener, dispatch_uid="facts.absorbed", weak=False)


def _extend_memory() -> None:
    from dewee.dashboard import count_in_nav
    from facts.models import Fact
    from facts.policy import FACT_POLICY
    from facts.queries import disputed_count, fact_to_dict, facts_learned_from
    from facts.schemas import FactOut
    from memory.learned import read_learned_with
    from memory.maintenance.jobs import JobSpec, register_job
    from memory.models import MaintenanceJob
    from memory.policy_extensions import extend_policy
    from memory.quotas import count_in_quotas
    from memory.schemas import learned_items_are
    from tenancy.models import QuotaKind

    # An agent's facts count against its quotas, as its memories do.
    count_in_quotas(Fact, ((QuotaKind.FACTS, None),))
    # An agent's memory policy also holds its facts' freshness settings.
    extend_policy(FACT_POLICY)
    # A memory's page and a store that learned in the request show the facts citing it.
    learned_items_are(FactOut)
    read_learned_with("facts", lambda memory: [fact_to_dict(f) for f in facts_learned_from(memory)])
    # The freshness pass ends the expired facts of the agents whose policy asks it.
    register_job(
        JobSpec(
            MaintenanceJob.FACT_FRESHNESS.value,
            "facts.services.end_expired_facts_pass",
            "DEWEE_FACT_FRESHNESS_INTERVAL_SECS",
        )
    )
    # The nav's Review link shows how many disputes wait.
    count_in_nav("review_count", disputed_count)


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "Facts"

    def ready(self) -> None:
        from django.core import checks

        from language.extraction.llm import check_extractor

        _follow_memories()
        _extend_memory()
        checks.register(check_extractor)
