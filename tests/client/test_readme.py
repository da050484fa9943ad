"""The README's Python client examples run as written against a live server."""

import re

from tests.event_loop import in_own_thread
from tests.servers import BASE_DIR


def _python_blocks_of(heading: str) -> list[str]:
    readme = (BASE_DIR / "README.md").read_text()
    section = readme.split(f"\n{heading}\n", 1)[1].split("\n### ", 1)[0]
    return re.findall(r"```python\n(.*?)```", section, flags=re.DOTALL)


def _run(block: str, live) -> str:
    code = block.replace('"http://127.0.0.1:8000"', repr(live.url)).replace(
        '"dw_..."', repr(live.key)
    )
    printed: list[str] = []
    exec(
        compile(code, "README.md", "exec"),
        {"print": lambda *a: printed.append(" ".join(map(str, a)))},
    )
    return "\n".join(printed)


def test_the_python_client_examples_run(live):
    turn, asynchronous = _python_blocks_of("### Python client")
    printed = _run(turn, live)
    assert "Ana is allergic to penicillin" in printed
    assert "city Lisbon current" in printed
    assert "409 fact_not_disputed" in printed
    assert "Ana prefers morning appointments" in in_own_thread(_run, asynchronous, live)
