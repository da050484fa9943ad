"""DeweeStore, the LangGraph BaseStore kept in Dewee, against a live server; and the runnable
example, whose model is a stub (no LLM key, no network but the Dewee server)."""

import asyncio

import pytest
from langgraph.store.base import InvalidNamespaceError

from dewee_client import Dewee
from dewee_client.langgraph import DeweeStore
from examples import langgraph_agent
from tests.event_loop import in_own_thread


@pytest.fixture
def store(dewee) -> DeweeStore:
    return DeweeStore(dewee)


def test_put_get_update_and_delete_are_one_memory_per_key(store, dewee):
    store.put(("helpdesk", "u7"), "diet", {"content": "Ana is vegetarian", "source": "chat"})
    item = store.get(("helpdesk", "u7"), "diet")
    assert item is not None
    assert (item.key, item.namespace) == ("diet", ("helpdesk", "u7"))
    assert item.value == {"content": "Ana is vegetarian", "source": "chat"}

    store.put(("helpdesk", "u7"), "diet", {"content": "Ana is vegan", "source": "chat"})
    [memory] = dewee.memories(user="u7")
    assert memory.content == "Ana is vegan"  # the same memory, changed
    assert store.get(("helpdesk", "u7"), "diet").value["content"] == "Ana is vegan"
    # The key is one user's: another user's namespace does not have it.
    assert store.get(("helpdesk", "u8"), "diet") is None
    assert store.get(("helpdesk",), "diet") is None

    store.delete(("helpdesk", "u7"), "diet")
    assert store.get(("helpdesk", "u7"), "diet") is None
    assert list(dewee.memories()) == []


def test_search_is_recall_within_the_namespace(store, dewee):
    store.put(
        ("helpdesk", "u7"), "a", {"content": "Ana is allergic to penicillin", "kind": "health"}
    )
    store.put(
        ("helpdesk", "u7"), "b", {"content": "Ana likes morning appointments", "kind": "time"}
    )
    store.put(
        ("helpdesk", "u8"), "c", {"content": "Bo is allergic to penicillin", "kind": "health"}
    )
    store.put(("helpdesk",), "d", {"content": "Penicillin is kept in cabinet 3", "kind": "health"})

    found = store.search(("helpdesk", "u7"), query="penicillin allergy")
    assert found[0].key == "a"
    assert {item.key for item in found} <= {"a", "b"}  # never u8's, nor the shared one
    assert found[0].score is not None

    health = store.search(("helpdesk", "u7"), query="allergy", filter={"kind": "health"})
    assert [item.key for item in health] == ["a"]

    # Without a query: the namespace's memories, newest first, with offset and limit.
    assert [item.key for item in store.search(("helpdesk", "u7"))] == ["b", "a"]
    assert [item.key for item in store.search(("helpdesk", "u7"), limit=1, offset=1)] == ["a"]
    # The agent's prefix holds every user's and the shared ones (the key may do admin).
    everyone = store.search(("helpdesk",), query="penicillin", limit=10)
    assert {item.key for item in everyone} >= {"a", "c", "d"}
    assert {item.namespace for item in everyone} >= {("helpdesk", "u7"), ("helpdesk", "u8")}
    assert store.list_namespaces() == [("helpdesk",)]
    with pytest.raises(InvalidNamespaceError):
        store.put(("helpdesk", "u7", "extra"), "x", {"content": "x"})


def test_a_memory_stored_through_the_api_is_an_item_keyed_by_its_id(store, dewee):
    stored = dewee.store("Ana's badge number is 5512", user="u7")
    item = store.get(("helpdesk", "u7"), str(stored.id))
    assert item is not None
    assert item.value["content"] == "Ana's badge number is 5512"
    assert store.get(("helpdesk", "u8"), str(stored.id)) is None
    [hit] = store.search(("helpdesk", "u7"), query="badge number")
    assert hit.key == str(stored.id)


def test_the_async_methods_do_the_same(store):
    async def use() -> None:
        await store.aput(("helpdesk", "u7"), "k", {"content": "Ana's desk is 14"})
        item = await store.aget(("helpdesk", "u7"), "k")
        assert item.value == {"content": "Ana's desk is 14"}
        [hit] = await store.asearch(("helpdesk", "u7"), query="desk")
        assert hit.key == "k"
        await store.adelete(("helpdesk", "u7"), "k")
        assert await store.aget(("helpdesk", "u7"), "k") is None

    in_own_thread(asyncio.run, use())


def test_a_read_key_reads_and_a_write_is_refused(live, store):
    from dewee_client import errors
    from tenancy.models import Workspace
    from tests.factories import make_key

    store.put(("helpdesk", "u7"), "k", {"content": "Ana's desk is 14"})
    workspace = Workspace.objects.get(pk=live.workspace_id)
    reader = DeweeStore(Dewee(live.url, make_key(workspace, scopes=["read"])))
    item = reader.get(("helpdesk", "u7"), "k")
    assert item is not None
    assert item.value["content"] == "Ana's desk is 14"
    with pytest.raises(errors.InsufficientScope):
        reader.put(("helpdesk", "u7"), "k2", {"content": "x"})


def test_the_example_remembers_across_conversations_for_that_user_only(live):
    replies = langgraph_agent.main(live.url, live.key)
    assert replies == [
        "Noted.",
        "From memory: I am allergic to penicillin",
        "I don't know yet.",
    ]
