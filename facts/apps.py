from typing import Any

from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "Facts"

    def ready(self) -> None:
        from django.core import checks

        from facts.learning import memories_stored_listener
        from facts.models import Fact
        from facts.services.erasure import (
            erase_facts_learned_only_from,
            move_sources_to_survivor,
        )
        from language.extraction.llm import check_extractor
        from memory.quotas import count_in_quotas
        from memory.signals import memories_absorbed, memories_erasing, memories_stored
        from tenancy.models import QuotaKind

        # An agent's facts count against its quotas, as its memories do.
        count_in_quotas(Fact, ((QuotaKind.FACTS, None),))

        # Facts are learned from every stored memory about a user (see facts.learning).
        memories_stored.connect(memories_stored_listener, dispatch_uid="facts.learning")

        # A fact cites the memories it was learned from: deleting them erases the facts
        # learned only from them, merging them moves the citations to the survivor, both in
        # the transaction that changes the memories.
        def memories_erasing_listener(**kwargs: Any) -> int:
            return erase_facts_learned_only_from(
                memory_ids=kwargs["memory_ids"], actor=kwargs["actor"]
            )

        def memories_absorbed_listener(**kwargs: Any) -> None:
            move_sources_to_survivor(from_ids=kwargs["from_ids"], to_id=kwargs["to_id"])

        memories_erasing.connect(
            memories_erasing_listener, dispatch_uid="facts.erasing", weak=False
        )
        memories_absorbed.connect(
            memories_absorbed_listener, dispatch_uid="facts.absorbed", weak=False
        )
        checks.register(check_extractor)
