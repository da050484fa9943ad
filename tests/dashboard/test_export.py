"""Exports of the Facts and Memories lists (dewee.export): CSV and JSON with the list's
filters, streamed, defused against formula injection, read-only, isolated, and a constant
number of queries however many rows."""

import csv
import io
import json
from datetime import timedelta

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from dewee.export import csv_cell
from dewee.pagination import encode_cursor
from facts.models import Fact
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import Agent, AuditEvent
from tenancy.services import create_agent, create_workspace
from tests.dashboard.conftest import app
from tests.factories import state

pytestmark = pytest.mark.django_db

FACTS = "/dashboard/facts/export/"
MEMORIES = "/dashboard/memory/export/"


def remember(agent: Agent, *contents: str, **fields) -> list[Memory]:
    return store_memories(agent=agent, items=[MemoryInput(content=c, **fields) for c in contents])


def body(response) -> str:
    assert response.streaming, "an export is streamed, never built in memory"
    return b"".join(response.streaming_content).decode("utf-8")


def csv_rows(response) -> list[dict[str, str]]:
    text = body(response)
    assert text.startswith("\ufeff")  # spreadsheets read it as UTF-8
    return list(csv.DictReader(io.StringIO(text.removeprefix("\ufeff"))))


def test_facts_csv_has_a_header_and_only_the_filtered_rows(staff_client, agent):
    state(agent, "Acme", user="ana")
    state(agent, "Paris", user="ana", predicate="city")
    state(agent, "Globex", user="bob")
    response = staff_client.get(FACTS, {"agent": "support-bot", "user": "ana", "format": "csv"})
    assert response.status_code == 200
    assert response["Content-Type"] == "text/csv; charset=utf-8"
    rows = csv_rows(response)
    assert [(r["value"], r["user"], r["predicate"], r["status"]) for r in rows] == [
        ("Paris", "ana", "city", "current"),
        ("Acme", "ana", "employer", "current"),
    ]
    assert rows[0]["agent_id"] == "support-bot"


def test_facts_json_is_one_array_with_the_filters(staff_client, agent):
    state(agent, "Acme", user="ana")
    state(agent, "Globex", user="ana", verification="inferred")  # disputed
    response = staff_client.get(
        FACTS, {"agent": "support-bot", "status": "disputed", "format": "json"}
    )
    assert response["Content-Type"] == "application/json"
    items = json.loads(body(response))
    assert [(i["value"], i["status"], i["confidence"]) for i in items] == [
        ("Globex", "disputed", 1.0)
    ]
    assert items[0]["recorded_at"].endswith(("Z", "+00:00"))


def test_facts_export_as_of_gives_the_status_then(staff_client, agent):
    old = state(agent, "Acme").fact
    Fact.objects.update(believed_from=timezone.now() - timedelta(days=10))
    state(agent, "Globex")
    Fact.objects.filter(pk=old.pk).update(believed_until=timezone.now() - timedelta(days=5))
    Fact.objects.filter(value="Globex").update(believed_from=timezone.now() - timedelta(days=5))
    then = (timezone.now() - timedelta(days=7)).strftime("%Y-%m-%dT%H:%M")
    params = {"agent": "support-bot", "as_of": then, "format": "json"}
    items = json.loads(body(staff_client.get(FACTS, params)))
    assert [(i["id"], i["status"], i["status_now"]) for i in items] == [
        (old.pk, "current", "history")
    ]


def test_export_ignores_the_page_and_exports_every_page(staff_client, agent):
    remember(agent, *[f"note {i}" for i in range(30)])
    first = staff_client.get("/dashboard/memory/", {"agent": "support-bot"})
    cursor = first.context["page"].next_cursor
    response = staff_client.get(
        MEMORIES, {"agent": "support-bot", "cursor": cursor, "format": "csv"}
    )
    assert len(csv_rows(response)) == 30


def test_memories_export_keeps_the_filters(staff_client, agent):
    session = start_session(agent=agent, user="u1")
    remember(agent, "in the session", session_id=session.pk, tags=["tea", "morning"])
    remember(agent, "a procedure", memory_type="procedural", importance=0.2)
    remember(agent, "newest note", importance=0.9)
    params = {"agent": "support-bot", "format": "csv"}
    rows = csv_rows(staff_client.get(MEMORIES, {**params, "session": session.pk}))
    assert [(r["content"], r["tags"], r["session_id"], r["user"]) for r in rows] == [
        ("in the session", '["tea", "morning"]', str(session.pk), "u1")
    ]
    rows = csv_rows(staff_client.get(MEMORIES, {**params, "min_importance": "0.5"}))
    assert [r["content"] for r in rows] == ["newest note", "in the session"]
    items = json.loads(body(staff_client.get(MEMORIES, {**params, "format": "json", "tag": "tea"})))
    assert [(i["content"], i["tags"]) for i in items] == [("in the session", ["tea", "morning"])]


def test_memories_export_of_a_search_is_the_ranked_hits_with_scores(staff_client, agent):
    remember(agent, "The weather was rainy on Monday", "Lunch was a sandwich")
    remember(agent, "The user's favourite programming language is Haskell")
    response = staff_client.get(
        MEMORIES, {"agent": "support-bot", "q": "favourite programming language", "format": "csv"}
    )
    rows = csv_rows(response)
    assert rows[0]["content"] == "The user's favourite programming language is Haskell"
    assert float(rows[0]["score"]) > 0


@pytest.mark.parametrize(
    ("value", "cell"),
    [
        ('=HYPERLINK("http://evil")', '\'=HYPERLINK("http://evil")'),
        ("+1+1", "'+1+1"),
        ("-2+3", "'-2+3"),
        ("@SUM(A1)", "'@SUM(A1)"),
        ("\tcmd", "'\tcmd"),
        ("\rcmd", "'\rcmd"),
        ("Acme = good", "Acme = good"),
        ("Zoë, café", "Zoë, café"),
    ],
)
def test_csv_cells_that_look_like_formulas_are_defused(value, cell):
    assert csv_cell(value) == cell


def test_formula_injection_is_defused_in_a_real_export(staff_client, agent):
    state(agent, "=cmd|' /C calc'!A0")
    remember(agent, "@SUM(1+1)")
    facts = csv_rows(staff_client.get(FACTS, {"agent": "support-bot", "format": "csv"}))
    assert facts[0]["value"] == "'=cmd|' /C calc'!A0"
    memories = csv_rows(staff_client.get(MEMORIES, {"agent": "support-bot", "format": "csv"}))
    assert memories[0]["content"] == "'@SUM(1+1)"
    # JSON is data, not a spreadsheet: the value as stored.
    items = json.loads(body(staff_client.get(FACTS, {"agent": "support-bot", "format": "json"})))
    assert items[0]["value"] == "=cmd|' /C calc'!A0"


def test_download_is_named_after_the_list_and_agent(staff_client, agent):
    state(agent, "Acme")
    response = staff_client.get(FACTS, {"agent": "support-bot", "format": "json"})
    disposition = response["Content-Disposition"]
    assert disposition.startswith('attachment; filename="facts-support-bot-')
    assert disposition.endswith('.json"')
    response = staff_client.get(MEMORIES, {"agent": "support-bot", "format": "csv"})
    assert response["Content-Disposition"].startswith('attachment; filename="memories-support-bot-')


@pytest.mark.parametrize("url", [FACTS, MEMORIES])
def test_unknown_format_or_bad_filter_is_a_400(staff_client, agent, url):
    assert staff_client.get(url, {"agent": "support-bot", "format": "xlsx"}).status_code == 400
    assert staff_client.get(url, {"agent": "support-bot"}).status_code == 400
    bad = {"agent": "support-bot", "format": "csv", "min_importance": "2", "as_of": "soon"}
    assert staff_client.get(url, bad).status_code == 400


@pytest.mark.parametrize("url", [FACTS, MEMORIES])
def test_another_workspace_is_a_404_and_members_export_only_theirs(
    manager_client, viewer_client, agent, other_agent, url
):
    state(other_agent, "Secret Corp")
    remember(other_agent, "Secret Corp memo")
    state(agent, "Acme")
    remember(agent, "Acme memo")
    theirs = {"agent": "globex-bot", "format": "json"}
    assert manager_client.get(app(url), theirs).status_code == 404
    assert viewer_client.get(app(url), theirs).status_code == 404
    for client in (manager_client, viewer_client):  # viewers may read, so they may export
        response = client.get(app(url), {"format": "json"})
        assert response.status_code == 200
        text = body(response)
        assert "Acme" in text
        assert "Secret Corp" not in text


def test_staff_export_names_a_workspace_agent_by_its_qualified_id(staff_client, agent):
    state(agent, "Acme")
    response = staff_client.get(FACTS, {"agent": "acme/support-bot", "format": "csv"})
    assert [r["value"] for r in csv_rows(response)] == ["Acme"]


@pytest.mark.parametrize("url", [FACTS, MEMORIES])
def test_staff_export_of_all_agents_names_each_rows_workspace(staff_client, agent, url):
    other = create_agent(workspace=create_workspace(slug="globex", name="Globex"), agent_id="bot")
    for each, word in ((agent, "Acme"), (other, "Globex")):
        state(each, word)
        remember(each, f"memo of {word}")
    rows = csv_rows(staff_client.get(url, {"agent": "", "format": "csv"}))
    named = {(r["workspace"], r["agent_id"]) for r in rows}
    assert named == {("acme", "support-bot"), ("globex", "bot")}


def _snapshot() -> tuple:
    return (
        sorted(Fact.objects.values_list("pk", "status", "access_count", "last_accessed_at")),
        sorted(Memory.objects.values_list("pk", "access_count", "last_accessed_at", "importance")),
        sorted(Session.objects.values_list("pk", "last_activity_at")),
        AuditEvent.objects.count(),
    )


@pytest.mark.parametrize("url", [FACTS, MEMORIES])
@pytest.mark.parametrize("fmt", ["csv", "json"])
def test_exporting_writes_nothing(staff_client, agent, url, fmt):
    session = start_session(agent=agent, user="u1")
    remember(agent, "The user's favourite tea is sencha", session_id=session.pk, ttl_seconds=3600)
    state(agent, "Acme")
    before = _snapshot()
    for params in ({}, {"q": "tea"}):
        with CaptureQueriesContext(connection) as queries:
            response = staff_client.get(url, {"agent": "support-bot", "format": fmt, **params})
            body(response)
        # (Recall's SET of search settings on PostgreSQL is no write.)
        statements = [q["sql"].lstrip().split()[0].upper() for q in queries.captured_queries]
        assert not set(statements) & {"INSERT", "UPDATE", "DELETE", "REPLACE", "CREATE"}
    assert _snapshot() == before


@pytest.mark.parametrize("url", [FACTS, MEMORIES])
def test_export_runs_the_same_queries_however_many_rows(staff_client, agent, url):
    def exported(agent_ref: str = "support-bot") -> tuple[int, int]:
        with CaptureQueriesContext(connection) as queries:
            response = staff_client.get(url, {"agent": agent_ref, "format": "csv"})
            rows = len(csv_rows(response))
        return rows, len(queries.captured_queries)

    def add(n: int, start: int) -> None:
        for i in range(start, start + n):
            state(agent, f"v{i}", user=f"u{i}")
        remember(agent, *[f"memo {i}" for i in range(start, start + n)], tags=["t"])

    add(3, 0)
    few, few_queries = exported()
    few_everyone = exported("")
    add(40, 3)
    many, many_queries = exported()
    assert (few, many) == (3, 43)
    assert many_queries == few_queries
    assert exported("")[1] == few_everyone[1]


@pytest.mark.parametrize(
    ("page", "export"), [("/dashboard/facts/", FACTS), ("/dashboard/memory/", MEMORIES)]
)
def test_list_links_to_its_export_with_its_query_string(staff_client, agent, page, export):
    state(agent, "Acme", user="ana")
    remember(agent, "memo", memory_type="semantic")
    params = {"user": "ana"} if export == FACTS else {"memory_type": "semantic"}
    filters = "user=ana" if export == FACTS else "memory_type=semantic"
    everyone = staff_client.get(page, params).text
    assert f"{export}?{filters}&amp;agent=&amp;format=csv" in everyone
    params["agent"] = "support-bot"
    text = staff_client.get(page, params).text
    filters += "&amp;agent=acme%2Fsupport-bot"
    assert f"{export}?{filters}&amp;format=csv" in text
    assert f"{export}?{filters}&amp;format=json" in text
    paged = staff_client.get(page, {**params, "cursor": encode_cursor(10**6)}).text
    assert "cursor" not in paged.split('id="export-links"')[1].split("</p>")[0]
