"""Sortable columns of the dashboard's paged lists: what a header offers and shows, the order
a page is read in and continued in, the cursors of each order, the sorts refused over too
many rows, and unknown keys. (The lists shown whole: test_sorting_whole_lists.py.)"""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from dewee.errors import InvalidInput
from dewee.pagination import (
    check_cursor,
    decode_cursor,
    decode_sorted_cursor,
    encode_cursor,
    encode_sorted_cursor,
    keyset_page,
)
from dewee.sorting import Sorting, SortKey
from facts.models import Fact
from facts.queries import FACT_SORTING
from memory.models import Entity, Memory
from memory.services import MemoryInput, start_session, store_memories
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

FACTS = "/dashboard/facts/"
MEMORIES = "/dashboard/memory/"
SESSIONS = "/dashboard/memory/sessions/"
ENTITIES = "/dashboard/memory/entities/"
HTMX = {"HX-Request": "true"}


def header(page: str, label: str) -> str:
    """The ``<th>`` whose text starts with ``label``."""
    found = re.search(rf'<th scope="col"[^>]*>(?:<a[^>]*>)?{re.escape(label)}\b.*?</th>', page)
    assert found, f"no header {label!r}"
    return found.group(0)


def link_of(th: str) -> str:
    found = re.search(r'href="([^"]*)"', th)
    assert found, f"{th} is not a link"
    return found.group(1).replace("&amp;", "&")


def values(response, key: str = "value") -> list:
    return [row[key] for row in response.context["rows"]]


@pytest.fixture
def confidences(agent):
    """Five facts of one agent, each in its own slot, whose confidence is not their order."""
    for value, confidence in [("a", 0.5), ("b", 0.9), ("c", 0.1), ("d", 0.7), ("e", 0.3)]:
        state(agent, value, predicate=f"p-{value}", confidence=confidence)


# --- the orders and their cursors ---


def test_an_unknown_or_malformed_key_reads_as_the_default_order():
    assert FACT_SORTING.parse(None).param == "-recorded"
    assert FACT_SORTING.parse("-nonsense").param == "-recorded"
    assert FACT_SORTING.parse(["confidence"]).param == "-recorded"
    assert FACT_SORTING.parse("confidence").param == "confidence"
    assert FACT_SORTING.parse("-confidence").descending is True


def test_a_header_click_turns_the_order_round_and_starts_in_its_first_direction():
    sort = FACT_SORTING.parse("-confidence")
    assert FACT_SORTING.next_param(sort, "confidence") == "confidence"
    assert FACT_SORTING.next_param(FACT_SORTING.parse("confidence"), "confidence") == "-confidence"
    # Confidence starts highest first, the slot A to Z; back to the default, no parameter.
    assert FACT_SORTING.next_param(FACT_SORTING.default_sort, "confidence") == "-confidence"
    assert FACT_SORTING.next_param(FACT_SORTING.default_sort, "slot") == "slot"
    assert FACT_SORTING.next_param(FACT_SORTING.parse("recorded"), "recorded") is None


def test_a_sorted_cursor_holds_the_value_and_the_id_and_names_its_order():
    sort = FACT_SORTING.parse("-confidence")
    cursor = encode_sorted_cursor(sort, 0.7, 42)
    assert decode_sorted_cursor(cursor, sort) == (0.7, 42)
    check_cursor(cursor)  # a filter form takes it as a cursor
    for other in ("confidence", "slot", "-recorded"):
        with pytest.raises(InvalidInput) as refused:
            decode_sorted_cursor(cursor, FACT_SORTING.parse(other))
        assert refused.value.details == {"field": "cursor"}
    with pytest.raises(InvalidInput):
        decode_cursor(cursor)  # not a newest-first cursor


def test_a_time_cursor_reads_back_the_same_moment():
    sorting = Sorting(keys=(SortKey("at", field="created_at", kind=datetime),), default="at")
    moment = datetime(2026, 5, 4, 14, 3, 9, 123456, tzinfo=UTC)
    cursor = encode_sorted_cursor(sorting.default_sort, moment, 7)
    assert decode_sorted_cursor(cursor, sorting.default_sort) == (moment, 7)


@pytest.mark.parametrize(
    "raw",
    [
        "s",
        's["-confidence", "x", 1]',
        's["-confidence", 0.5, 0]',
        's["-confidence", 0.5, true]',
        's["-confidence", NaN, 1]',
        's["-confidence", 0.5]',
        "s" + "[" * 5000,
        "f0",
    ],
)
def test_a_forged_cursor_is_refused_with_the_cursor_error(raw):
    import base64

    cursor = base64.urlsafe_b64encode(raw.encode()).decode().rstrip("=")
    with pytest.raises(InvalidInput) as refused:
        decode_sorted_cursor(cursor, FACT_SORTING.parse("-confidence"))
    assert refused.value.details == {"field": "cursor"}
    assert "is not a cursor this server returned" in refused.value.message


def test_the_default_order_keeps_its_plain_cursors(agent, confidences):
    rows = Fact.objects.filter(agent=agent)
    first, cursor = keyset_page(rows, cursor=None, limit=2, sort=FACT_SORTING.default_sort)
    assert cursor == encode_cursor(first[-1].pk)  # as before sorting came
    rest, _ = keyset_page(rows, cursor=cursor, limit=10, sort=FACT_SORTING.default_sort)
    assert [f.value for f in first + rest] == ["e", "d", "c", "b", "a"]


@pytest.mark.parametrize(
    ("param", "expected"),
    [("-confidence", "bdaec"), ("confidence", "ceadb"), ("slot", "abcde"), ("recorded", "abcde")],
)
def test_every_page_continues_exactly_after_the_last_in_its_order(
    agent, confidences, param, expected
):
    rows, sort = Fact.objects.filter(agent=agent), FACT_SORTING.parse(param)
    seen, cursor = [], None
    for _ in range(5):
        page, cursor = keyset_page(rows, cursor=cursor, limit=2, sort=sort)
        seen += [f.value for f in page]
        if cursor is None:
            break
    assert "".join(seen) == expected


def test_ties_are_broken_by_the_id_so_no_row_is_lost_between_pages(agent):
    for i in range(7):
        state(agent, f"v{i}", predicate=f"p{i}", confidence=0.5)
    rows, sort = Fact.objects.filter(agent=agent), FACT_SORTING.parse("-confidence")
    seen, cursor = [], None
    while True:
        page, cursor = keyset_page(rows, cursor=cursor, limit=3, sort=sort)
        seen += [f.value for f in page]
        if cursor is None:
            break
    assert seen == [f"v{i}" for i in range(6, -1, -1)]


# --- the Facts list ---


def test_a_header_sorts_the_facts_and_shows_its_direction(staff_client, agent, confidences):
    page = staff_client.get(FACTS)
    assert "aria-sort" in header(page.text, "Recorded")
    assert 'aria-sort="descending"' in header(page.text, "Recorded")
    assert "aria-sort" not in header(page.text, "Confidence")
    url = link_of(header(page.text, "Confidence"))
    assert url == f"{FACTS}?sort=-confidence"

    highest = staff_client.get(url)
    assert values(highest) == ["b", "d", "a", "e", "c"]
    confidence = header(highest.text, "Confidence")
    assert 'aria-sort="descending"' in confidence
    assert "▼" in confidence
    assert "aria-sort" not in header(highest.text, "Recorded")

    lowest = staff_client.get(link_of(confidence))
    assert values(lowest) == ["c", "e", "a", "d", "b"]
    assert 'aria-sort="ascending"' in header(lowest.text, "Confidence")
    assert "▲" in header(lowest.text, "Confidence")


def test_the_value_column_and_others_not_offered_are_plain_headers(staff_client, agent):
    state(agent, "Acme")
    page = staff_client.get(FACTS).text
    assert header(page, "Value") == '<th scope="col">Value</th>'
    assert header(page, "Freshness") == '<th scope="col">Freshness</th>'


def test_the_pager_and_the_status_tabs_keep_the_order(
    staff_client, agent, confidences, monkeypatch
):
    monkeypatch.setattr("facts.views.PAGE_SIZE", 2)
    first = staff_client.get(FACTS, {"agent": "support-bot", "sort": "-confidence"})
    assert values(first) == ["b", "d"]
    cursor = first.context["page"].next_cursor
    assert f"sort=-confidence&amp;cursor={cursor}" in first.text
    second = staff_client.get(
        FACTS, {"agent": "support-bot", "sort": "-confidence", "cursor": cursor}
    )
    assert values(second) == ["a", "e"]
    assert "sort=-confidence" in second.text.split('aria-label="Pages"')[1]  # First page too
    tabs = second.text.split('aria-label="Status"')[1].split("</nav>")[0]
    links = re.findall(r'href="([^"]*)"', tabs)
    assert links
    assert all("sort=-confidence" in link for link in links)


def test_htmx_gets_the_table_with_the_order_kept_for_the_filter_form(
    staff_client, agent, confidences
):
    part = staff_client.get(FACTS, {"sort": "slot"}, headers=HTMX)
    assert "<h1>" not in part.text
    assert values(part) == list("abcde")
    assert '<input type="hidden" name="sort" value="slot" form="facts-filters">' in part.text
    # The default order needs no parameter: the filter form sends none.
    default = staff_client.get(FACTS, headers=HTMX)
    assert 'name="sort"' not in default.text


def test_an_unknown_sort_is_the_default_order_not_an_error(staff_client, agent, confidences):
    response = staff_client.get(FACTS, {"sort": "-password"})
    assert response.status_code == 200
    assert values(response) == list("edcba")


def test_a_cursor_of_another_order_is_a_clear_400(staff_client, agent, confidences, monkeypatch):
    monkeypatch.setattr("facts.views.PAGE_SIZE", 2)
    first = staff_client.get(FACTS, {"sort": "-confidence"})
    cursor = first.context["page"].next_cursor
    response = staff_client.get(FACTS, {"sort": "slot", "cursor": cursor})
    assert response.status_code == 400
    newest = staff_client.get(FACTS, {"sort": "-recorded"}).context["page"]
    assert decode_cursor(newest.next_cursor)  # a plain cursor, as before sorting came
    assert (
        staff_client.get(FACTS, {"sort": "slot", "cursor": newest.next_cursor}).status_code == 400
    )


def test_a_cursor_from_before_sorting_still_pages_the_default_order(staff_client, agent):
    for i in range(4):
        state(agent, f"v{i}", predicate=f"p{i}")
    third = Fact.objects.get(value="v2")
    rest = staff_client.get(FACTS, {"cursor": encode_cursor(third.pk)})
    assert values(rest) == ["v1", "v0"]


def test_a_sort_no_index_serves_is_refused_over_too_many_facts(
    staff_client, agent, confidences, monkeypatch
):
    state(agent, "f", predicate="p-f", user="u2", confidence=1.0)
    monkeypatch.setattr("dewee.sorting.UNINDEXED_SORT_MAX", 5)
    response = staff_client.get(FACTS, {"sort": "-confidence"})
    assert values(response) == list("fedcba")  # newest first, as by default
    assert "Not sorted by confidence" in response.text
    assert 'aria-sort="descending"' in header(response.text, "Recorded")
    # Its pages continue in the order shown, without the order refused.
    assert "sort=-confidence&amp;cursor" not in response.text
    # Narrowed to five facts or fewer, the same sort applies.
    narrowed = staff_client.get(FACTS, {"sort": "-confidence", "user": "u1"})
    assert "Not sorted" not in narrowed.text
    assert values(narrowed) == list("bdaec")
    # The index of the id serves the time of recording however many there are.
    oldest = staff_client.get(FACTS, {"sort": "recorded"})
    assert values(oldest) == list("abcdef")
    assert "Not sorted" not in oldest.text


def test_sorting_writes_nothing(staff_client, agent, confidences):
    with CaptureQueriesContext(connection) as queries:
        for sort in ("-confidence", "confidence", "slot", "recorded"):
            assert staff_client.get(FACTS, {"sort": sort}).status_code == 200
    writes = [
        q["sql"]
        for q in queries.captured_queries
        if q["sql"].lstrip().upper().startswith(("INSERT", "UPDATE", "DELETE"))
        and "rate_counter" not in q["sql"]
    ]
    assert writes == []


def test_the_fact_page_breadcrumb_goes_back_to_the_sorted_list(staff_client, agent, confidences):
    page = staff_client.get(FACTS, {"sort": "-confidence"}).text
    detail = re.search(r'href="(/dashboard/facts/\d+/\?back=[^"]*)"', page)
    assert detail
    back = staff_client.get(detail.group(1).replace("&amp;", "&")).text
    assert "sort=-confidence" in back.split('class="breadcrumb"')[1].split("</p>")[0]


# --- the Memories, Sessions and Entities lists ---


def remember(agent, *items: tuple[str, float], **fields) -> list[Memory]:
    inputs = [MemoryInput(content=c, importance=i, **fields) for c, i in items]
    return store_memories(agent=agent, items=inputs)


def test_memories_sort_by_importance_and_by_age(staff_client, agent):
    remember(agent, ("mid", 0.5), ("high", 0.9), ("low", 0.1))
    Memory.objects.filter(content="high").update(created_at=datetime(2020, 1, 1, tzinfo=UTC))
    by_importance = staff_client.get(MEMORIES, {"sort": "-importance"})
    assert values(by_importance, "content") == ["high", "mid", "low"]
    assert 'aria-sort="descending"' in header(by_importance.text, "Importance")
    # Age is how long ago it was made: the youngest first is the latest creation first.
    youngest = staff_client.get(MEMORIES, {"agent": "support-bot", "sort": "age"})
    assert values(youngest, "content")[-1] == "high"
    assert 'aria-sort="ascending"' in header(youngest.text, "Age")
    oldest = staff_client.get(MEMORIES, {"agent": "support-bot", "sort": "-age"})
    assert values(oldest, "content")[0] == "high"


def test_a_memory_search_is_ranked_not_sorted(staff_client, agent):
    remember(agent, ("green tea", 0.5), ("black coffee", 0.9))
    page = staff_client.get(MEMORIES, {"agent": "support-bot", "q": "tea", "sort": "-importance"})
    assert values(page, "content")[0] == "green tea"
    assert header(page.text, "Importance") == '<th scope="col">Importance</th>'


def test_age_over_every_agent_needs_a_bounded_list(staff_client, agent, other_agent, monkeypatch):
    remember(agent, ("one", 0.5), ("two", 0.5))
    remember(other_agent, ("three", 0.5))
    monkeypatch.setattr("dewee.sorting.UNINDEXED_SORT_MAX", 2)
    everyone = staff_client.get(MEMORIES, {"sort": "-age"})
    assert "Not sorted by age" in everyone.text
    assert "pick one agent" in everyone.text
    one = staff_client.get(MEMORIES, {"agent": "support-bot", "sort": "-age"})
    assert "Not sorted" not in one.text  # one agent's (agent, created_at) index serves it


def test_sessions_sort_by_their_memories_and_page_on(staff_client, agent, monkeypatch):
    monkeypatch.setattr("memory.views.sessions.PAGE_SIZE", 2)
    sessions = [start_session(agent=agent, user=f"u{i}") for i in range(4)]
    for session, count in zip(sessions, [2, 0, 3, 1], strict=True):
        for n in range(count):
            remember(agent, (f"s{session.pk} turn {n}", 0.5), session_id=session.pk)
    first = staff_client.get(SESSIONS, {"sort": "-memories"})
    assert values(first, "memory_count") == [3, 2]
    rest = staff_client.get(
        SESSIONS, {"sort": "-memories", "cursor": first.context["page"].next_cursor}
    )
    assert values(rest, "memory_count") == [1, 0]
    assert 'aria-sort="descending"' in header(rest.text, "Memories")
    oldest = staff_client.get(SESSIONS, {"sort": "session"})
    assert values(oldest, "id") == [sessions[0].pk, sessions[1].pk]


def test_entities_sort_by_name_and_by_mentions(staff_client, workspace):
    agent = make_agent(workspace, "graph-bot")
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Zoe met Bob in Paris."),
            MemoryInput(content="Bob called Zoe again."),
            MemoryInput(content="Bob wrote to Anna."),
        ],
    )
    names = list(Entity.objects.filter(agent=agent).values_list("name", flat=True))
    assert {"Bob", "Zoe", "Anna"} <= set(names)
    by_name = staff_client.get(ENTITIES, {"agent": "graph-bot", "sort": "name"})
    shown = values(by_name, "name")
    assert shown == sorted(shown, key=str.casefold)
    by_mentions = staff_client.get(ENTITIES, {"agent": "graph-bot", "sort": "-mentions"})
    assert values(by_mentions, "name")[0] == "Bob"
    assert 'aria-sort="descending"' in header(by_mentions.text, "Memories")


def test_a_sort_keeps_to_the_viewers_workspace(manager_client, agent, other_agent):
    state(agent, "ours", predicate="p1", confidence=0.2)
    state(other_agent, "theirs", predicate="p2", confidence=0.9)
    page = manager_client.get(FACTS.replace("/dashboard/", "/app/"), {"sort": "-confidence"})
    assert values(page) == ["ours"]


def test_old_and_new_rows_of_one_moment_page_in_order(staff_client, agent, monkeypatch):
    """Memories created at one instant are ordered by id within it, across pages."""
    monkeypatch.setattr("memory.views.memories.PAGE_SIZE", 2)
    remember(agent, *[(f"m{i}", 0.5) for i in range(5)])
    moment = datetime(2025, 1, 1, tzinfo=UTC)
    Memory.objects.update(created_at=moment)
    Memory.objects.filter(content="m4").update(created_at=moment + timedelta(seconds=1))
    seen, cursor = [], ""
    while True:
        params = {"agent": "support-bot", "sort": "-age"} | ({"cursor": cursor} if cursor else {})
        page = staff_client.get(MEMORIES, params)
        seen += values(page, "content")
        cursor = page.context["page"].next_cursor
        if not cursor:
            break
    # Oldest first: the four of one moment by id, then the one made a second later.
    assert seen == ["m0", "m1", "m2", "m3", "m4"]
