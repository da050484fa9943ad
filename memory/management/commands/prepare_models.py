"""Build the built-in embedding model ahead of the first request, and load it once."""

import time
from typing import Any

from django.core.management.base import BaseCommand

from memory.embeddings.engine import get_embedder


class Command(BaseCommand):
    help = "Build (if needed) and load the configured embedding model."

    def handle(self, *args: Any, **options: Any) -> None:
        started = time.monotonic()
        embedder = get_embedder()
        self.stdout.write(
            f"Embedding model ready: {embedder.model_id} ({embedder.dimension} dimensions, "
            f"{time.monotonic() - started:.1f}s)"
        )
