"""The graph built as memories arrive: speaker, entities, mentions, counts and edges."""

from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from memory.models import EdgeType, Entity, EntityMention, Memory, MemoryEdge
from memory.services import (
    MemoryInput,
    consolidate_memories,
    delete_memory,
    rebuild_graph,
    set_memory_policy,
    store_memories,
    update_memory,
)
from memory.services.graph_edges import SHARED_ENTITY_MAX
from memory.transfer import export_records, import_records

pytestmark = pytest.mark.django_db


def edges(agent, kind):
    return set(
        MemoryEdge.objects.filter(agent=agent, type=kind).values_list("source_id", "target_id")
    )


def entities(agent):
    return {(e.type, e.key): e.mention_count for e in Entity.objects.filter(agent=agent)}


def test_the_speaker_is_read_from_the_text_or_taken_as_given(remember):
    (read,) = remember("Caroline: I went to a support group")
    (given,) = remember("I went hiking", speaker="Melanie")
    (none,) = remember("Note: call the bank")
    (refused,) = remember("Caroline: hi", speaker="")
    assert [m.speaker for m in (read, given, none, refused)] == ["Caroline", "Melanie", None, None]


def test_the_speaker_and_the_names_are_one_person_entity(agent, remember):
    first, second = remember("Caroline: I moved to Boston", "Melanie: How is Boston, Caroline?")
    assert entities(agent) == {
        ("person", "caroline"): 2,
        ("person", "melanie"): 1,
        ("place", "boston"): 2,
    }
    speaker = EntityMention.objects.get(memory=first, entity__key="caroline")
    assert speaker.as_speaker
    assert not EntityMention.objects.get(memory=second, entity__key="caroline").as_speaker


def test_an_untyped_name_is_promoted_when_a_later_memory_types_it(agent, remember):
    remember("Meet Priya at noon.")
    assert entities(agent) == {("name", "priya"): 1}
    remember("My friend Priya loves tea")
    assert entities(agent) == {("person", "priya"): 2}
    remember("Priya is late again, said the note")
    assert entities(agent) == {("person", "priya"): 3}


def test_turns_of_a_session_follow_each_other(agent, remember, session):
    a, b = remember("first turn", "second turn", session_id=session.pk)
    (c,) = remember("third turn", session_id=session.pk)
    (other,) = remember("unrelated note outside the session")
    assert edges(agent, EdgeType.PRECEDES) == {(a.pk, b.pk), (b.pk, c.pk)}
    assert not MemoryEdge.objects.filter(target=other, type=EdgeType.PRECEDES).exists()


def test_without_a_session_turns_within_thirty_minutes_of_one_user_follow_each_other(
    agent, remember
):
    now = timezone.now()
    (a,) = remember("we talked about tea", user="u1", created_at=now - timedelta(hours=2))
    (b,) = remember("then about coffee", user="u1", created_at=now - timedelta(minutes=20))
    (c,) = remember("and about cake", user="u1", created_at=now - timedelta(minutes=5))
    (d,) = remember("someone else", user="u2", created_at=now - timedelta(minutes=4))
    assert edges(agent, EdgeType.PRECEDES) == {(b.pk, c.pk)}
    assert d.pk not in {t for _, t in edges(agent, EdgeType.PRECEDES)}
    assert a.pk not in {s for s, _ in edges(agent, EdgeType.PRECEDES)}


def test_an_imported_turn_is_placed_after_the_one_before_it_in_time(agent, remember, session):
    now = timezone.now()
    (_late,) = remember("late", session_id=session.pk, created_at=now)
    (early,) = remember("early", session_id=session.pk, created_at=now - timedelta(minutes=9))
    (middle,) = remember("middle", session_id=session.pk, created_at=now - timedelta(minutes=5))
    assert (early.pk, middle.pk) in edges(agent, EdgeType.PRECEDES)


def test_memories_mentioning_one_person_share_an_entity_with_bounded_fan_out(agent, remember):
    stored = remember(*[f"Priya's plan number {i} for the garden" for i in range(8)])
    (last,) = remember("Priya's last idea")
    out = MemoryEdge.objects.filter(source=last, type=EdgeType.SHARES_ENTITY)
    assert out.count() == SHARED_ENTITY_MAX
    assert set(out.values_list("target_id", flat=True)) == {m.pk for m in stored[-5:]}


def test_dates_are_never_a_shared_entity(agent, remember):
    remember("paid the rent on 2026-03-04", "fixed the bike on 2026-03-04")
    assert edges(agent, EdgeType.SHARES_ENTITY) == set()


def test_a_newer_wording_of_the_same_thing_supersedes_the_older(agent, remember):
    (old,) = remember("Priya's favourite colour is green and she paints every Sunday.")
    (new,) = remember("Priya's favourite colour is green and she paints every Sunday!")
    assert (new.pk, old.pk) in edges(agent, EdgeType.RELATED_TO)
    assert edges(agent, EdgeType.SUPERSEDES) == {(new.pk, old.pk)}


def test_the_turn_just_before_is_followed_not_related_nor_superseded(agent, remember, session):
    # The context embedding puts the turn before into a turn's vector: their closeness is
    # the blend's, and precedes already links them.
    first, second = remember(
        "Priya's favourite colour is green and she paints every Sunday.",
        "Priya's favourite colour is green and she paints every Sunday!",
        session_id=session.pk,
    )
    assert edges(agent, EdgeType.PRECEDES) == {(first.pk, second.pk)}
    assert edges(agent, EdgeType.RELATED_TO) == set()
    assert edges(agent, EdgeType.SUPERSEDES) == set()


def test_another_speakers_close_wording_is_related_but_supersedes_nothing(agent, remember):
    text = "Priya's favourite colour is green and she paints every Sunday"
    # Hours apart: separate conversations, so no turn's vector holds another's words.
    now = timezone.now()
    (old,) = remember(f"{text}.", speaker="Ana", created_at=now - timedelta(hours=4))
    (new,) = remember(f"{text}!", speaker="Bo", created_at=now - timedelta(hours=2))
    (same,) = remember(f"{text}!!", speaker="Ana", created_at=now)
    assert {(new.pk, old.pk), (same.pk, old.pk)} <= edges(agent, EdgeType.RELATED_TO)
    assert (new.pk, old.pk) not in edges(agent, EdgeType.SUPERSEDES)
    assert (same.pk, old.pk) in edges(agent, EdgeType.SUPERSEDES)


def test_memories_that_contradict_each_other_never_supersede(agent, remember):
    (old,) = remember("Priya is vegetarian.")
    (new,) = remember("Priya is not vegetarian.")
    # Close enough to supersede, and sharing Priya: only the contradiction keeps them apart.
    related = MemoryEdge.objects.get(source=new, target=old, type=EdgeType.RELATED_TO)
    assert related.weight >= 0.92
    assert edges(agent, EdgeType.SUPERSEDES) == set()


def test_unrelated_memories_are_not_related(agent, remember):
    remember("The quarterly tax filing is due in April.", "My cat sleeps on the sofa all day.")
    assert edges(agent, EdgeType.RELATED_TO) == set()


def test_deleting_a_memory_drops_its_edges_mentions_and_emptied_entities(agent, remember):
    first, second = remember("My friend Priya lives in Porto", "Priya called me")
    delete_memory(memory=first, actor="test")
    assert entities(agent) == {("person", "priya"): 1}
    assert not MemoryEdge.objects.filter(agent=agent).exists()
    delete_memory(memory=second, actor="test")
    assert entities(agent) == {}


def test_merging_keeps_entity_counts_right(agent, remember):
    a, b = remember("Priya likes tea", "Priya likes green tea")
    merged = consolidate_memories(agent=agent, memory_ids=[a.pk, b.pk], actor="test")
    assert entities(agent) == {("name", "priya"): 1}
    assert EntityMention.objects.get().memory_id == merged.pk


def test_editing_a_memory_moves_its_mentions(agent, remember):
    (memory,) = remember("My friend Priya called")
    update_memory(memory=memory, content="My friend Ana called")
    assert entities(agent) == {("person", "ana"): 1}


def test_the_policy_can_turn_entities_off_or_keep_some_types(agent, remember):
    set_memory_policy(agent=agent, policy={"entity_types": ["place"]}, actor="test")
    (memory,) = remember("Caroline: I moved to Boston on 2026-03-04")
    assert entities(agent) == {("place", "boston"): 1}
    assert [t.name for t in memory.tag_rows.all() if t.name.startswith("entity:")] == [
        "entity:name:boston"
    ]
    set_memory_policy(agent=agent, policy={"extract_entities": False}, actor="test")
    (quiet,) = remember("Caroline: I moved to Lisbon")
    assert not quiet.entity_mentions.exists()
    assert not [t for t in quiet.tag_rows.all() if t.name.startswith("entity:")]
    assert quiet.speaker == "Caroline"


def test_an_import_builds_the_graph_and_keeps_the_speaker(agent, other_agent, remember, session):
    remember("Caroline: hi there", "Melanie: hello Caroline", session_id=session.pk)
    records = list(export_records(agent))
    import_records(other_agent, enumerate(records))
    assert entities(other_agent) == entities(agent)
    assert len(edges(other_agent, EdgeType.PRECEDES)) == 1
    assert set(Memory.objects.filter(agent=other_agent).values_list("speaker", flat=True)) == {
        "Caroline",
        "Melanie",
    }


def test_rebuild_gives_the_graph_a_store_gave_and_keeps_manual_links(agent, remember, settings):
    from memory.services import link_memories

    remember("Caroline: I moved to Boston", "Melanie: How is Boston, Caroline?")
    a, b = remember("Priya likes tea", "Priya likes green tea")
    link_memories(agent=agent, source=a, target=b, actor="test")
    before = (entities(agent), set(MemoryEdge.objects.values_list("source", "target", "type")))
    rebuild_graph(agent=agent)
    rebuild_graph(agent=agent)
    after = (entities(agent), set(MemoryEdge.objects.values_list("source", "target", "type")))
    assert after == before


def test_with_the_graph_off_a_store_builds_nothing_and_a_rebuild_catches_up(
    agent, remember, settings
):
    settings.DEWEE_GRAPH_ON_STORE = "off"
    remember("Caroline: I moved to Boston", "Melanie: How is Boston, Caroline?")
    assert entities(agent) == {}
    rebuild_graph(agent=agent)
    assert entities(agent)[("place", "boston")] == 2


def test_a_store_costs_a_bounded_number_of_queries_for_the_graph(agent, remember, session):
    remember(*[f"Priya note {i}" for i in range(20)], session_id=session.pk)
    items = [
        MemoryInput(content=f"Priya and Ana, turn {i}", session_id=session.pk) for i in range(50)
    ]
    with CaptureQueriesContext(connection) as few:
        store_memories(agent=agent, items=items[:5])
    with CaptureQueriesContext(connection) as many:
        store_memories(agent=agent, items=items)
    # One nearest-neighbour search per new memory (on PostgreSQL a savepoint, two SET LOCAL
    # and the query); every other graph query is per batch, per conversation or per entity.
    assert len(many) - len(few) <= 6 * (50 - 5)


def test_a_facts_subject_or_value_finds_the_agents_entities_by_name_or_alias(
    agent, other_agent, remember
):
    remember("Caroline: I moved to Boston", "CAROLINE said hi")
    remember("Caroline: hello", target=other_agent)
    mine = Entity.objects.filter(agent=agent)
    assert {e.key for e in mine.matching(" caroline", "BOSTON")} == {"caroline", "boston"}
    assert [e.key for e in mine.matching("CAROLINE")] == ["caroline"]
    assert not mine.matching("Bost").exists()
    assert {e.agent_id for e in Entity.objects.filter(agent=other_agent).matching("caroline")} == {
        other_agent.pk
    }
