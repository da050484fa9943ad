import pytest

from memory.services import MemoryInput, start_session, store_memories


@pytest.fixture
def remember(agent):
    """Store memories for ``agent`` (or another) through the real service."""

    def store(*contents, target=None, **fields):
        items = [MemoryInput(content=c, **fields) for c in contents]
        return store_memories(agent=target or agent, items=items)

    return store


@pytest.fixture
def session(agent):
    return start_session(agent=agent, user="u1")
