from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    verbose_name = "Memory"

    def ready(self) -> None:
        from django.core import checks

        from language import encoder
        from memory.embeddings import embedder_if_available
        from memory.maintenance.decay_curves import check_decay_settings
        from memory.recall.ranker import check_ranker_setting
        from memory.services.graph import check_graph_setting
        from memory.sessions.summaries import check_summariser

        checks.register(check_summariser)
        checks.register(check_decay_settings)
        checks.register(check_graph_setting)
        checks.register(check_ranker_setting)
        # The readers of text that need a sentence encoder (the clause classifier) use ours.
        encoder.provide(embedder_if_available)
