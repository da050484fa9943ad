from django.apps import AppConfig


class FactsConfig(AppConfig):
    name = "facts"
    verbose_name = "Facts"

    def ready(self) -> None:
        from django.core import checks

        from facts.learning import memories_stored_listener
        from language.extraction.llm import check_extractor
        from memory.signals import memories_stored

        # Facts are learned from every stored memory about a user (see facts.learning).
        memories_stored.connect(memories_stored_listener, dispatch_uid="facts.learning")
        checks.register(check_extractor)
