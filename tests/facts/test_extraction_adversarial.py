"""Extraction on adversarial text must not take time that grows with the cube of its length
(a repeated "I work at " of 8,000 characters took 41 s: a web worker killed)."""

import time
from datetime import UTC, datetime

from language.extraction import extract

NOW = datetime(2030, 6, 12, 12, tzinfo=UTC)


def test_repeated_trigger_phrase_is_read_quickly():
    text = ("I work at " * 800)[:8000]
    started = time.perf_counter()
    extract(text, now=NOW)
    # 0.4 s on the shared 2-core machine; the cubic pattern took 41 s.
    assert time.perf_counter() - started < 8
