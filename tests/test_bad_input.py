"""Bad input through the REST API is a 4xx in the one error shape, with a stable code, and
writes nothing: lone surrogates, times outside the years 1..9999, ids beyond 64 bits, NUL
characters, too many query parameters, cursors no server made. Also: a "never" expiry
survives recall, recall skips a memory deleted while it ranked, and a refused request
leaves its session's activity alone."""

import base64
import json
from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import SuspiciousOperation
from django.db import connection
from django.test import RequestFactory
from django.utils import timezone
from django.utils.dateparse import parse_datetime

from dewee.api import api as ninja_api
from facts.models import Fact
from memory.models import Memory, MemoryTag, Session
from memory.recall import RecallRequest, load_winners, recall
from memory.services import (
    MemoryInput,
    delete_memory,
    record_access,
    set_memory_policy,
    start_session,
    store_memories,
)
from tenancy.models import Agent, AuditEvent
from tenancy.validation import MAX_EXPIRES_AT
from tests.factories import state

pytestmark = pytest.mark.django_db

LONE = '"\\ud800"'  # the JSON text of a lone surrogate
BEYOND = 2**63  # one past the largest id either engine stores
EARLY = "0001-01-01T00:00:00+14:00"  # year 0 in UTC
LATE = "9999-12-31T23:59:59-14:00"  # year 10000 in UTC


@pytest.fixture
def world(agent):
    """One of each thing a request could change, and their ids for the paths."""
    session = start_session(agent=agent, user="u1")
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content="Ann likes green tea")])
    fact = state(agent, "Acme").fact
    return {"memory": memory.pk, "session": session.pk, "fact": fact.pk}


def snapshot() -> dict:
    """Everything a refused request must leave as it was."""
    return {
        "agents": list(Agent.objects.order_by("pk").values_list("pk", "agent_id", "metadata")),
        "memories": list(
            Memory.objects.order_by("pk").values_list(
                "pk", "content", "metadata", "expires_at", "access_count", "updated_at"
            )
        ),
        "tags": MemoryTag.objects.count(),
        "sessions": list(
            Session.objects.order_by("pk").values_list(
                "pk", "user_ref", "state", "last_activity_at", "summary"
            )
        ),
        "facts": list(Fact.objects.order_by("pk").values_list("pk", "value", "status")),
        "events": AuditEvent.objects.count(),
    }


def assert_refused(response, status: int, code: str, field: str | None = None) -> dict:
    assert response.status_code == status, response.content
    error = response.json()["error"]
    assert set(error) == {"code", "message", "details"}
    assert error["code"] == code, error
    assert error["message"]
    if field is not None:
        details = error["details"]
        fields = [e["field"] for e in details["errors"]] if "errors" in details else []
        assert field in [details.get("field"), *fields], error
    return error


def send(api, method: str, path: str, raw: str):
    return getattr(api.client, method)(
        path, data=raw, content_type="application/json", headers=api.headers
    )


# --- lone surrogates -----------------------------------------------------------------------

A = '"agent_id": "support-bot"'
SOURCE = '"source": {"kind": "conversation_summary"}'
FACT = f'{A}, "subject": "user", "predicate": "city"'

SURROGATE_CASES = [
    ("post", "/v1/memories", f'{{{A}, "content": {LONE}}}', "content"),
    ("post", "/v1/memories", f'{{"agent_id": {LONE}, "content": "x"}}', "agent_id"),
    ("post", "/v1/memories", f'{{{A}, "content": "x", "tags": ["ok", {LONE}]}}', "tags.1"),
    ("post", "/v1/memories", f'{{{A}, "content": "x", "metadata": {{"k": {LONE}}}}}', "metadata.k"),
    ("post", "/v1/memories", f'{{{A}, "content": "x", "metadata": {{{LONE}: 1}}}}', "metadata"),
    (
        "post",
        "/v1/memories/batch",
        f'{{{A}, "items": [{{"content": "ok"}}, {{"content": {LONE}}}]}}',
        "items.1.content",
    ),
    ("patch", "/v1/memories/{memory}", f'{{"content": {LONE}}}', "content"),
    ("post", "/v1/facts", f'{{{FACT}, "value": {LONE}, {SOURCE}}}', "value"),
    ("post", "/v1/facts", f'{{{FACT}, "value": "x", "user": {LONE}, {SOURCE}}}', "user"),
    (
        "post",
        "/v1/facts",
        f'{{{FACT}, "value": "x", "source": {{"kind": "operator", "excerpt": {LONE}}}}}',
        "source.excerpt",
    ),
    ("post", "/v1/facts/forget", f'{{{A}, "user": {LONE}, "dry_run": true}}', "user"),
    ("post", "/v1/facts/{fact}/resolve", f'{{"action": "reject", "reason": {LONE}}}', "reason"),
    ("post", "/v1/sessions", f'{{{A}, "user": {LONE}}}', "user"),
    ("post", "/v1/sessions", f'{{{A}, "metadata": {{"k": [{LONE}]}}}}', "metadata.k.0"),
    ("post", "/v1/sessions/{session}/end", f'{{"summary": {LONE}}}', "summary"),
    ("post", "/v1/memory/recall", f'{{{A}, "query": {LONE}}}', "query"),
    ("post", "/v1/context", f'{{{A}, "query": {LONE}}}', "query"),
    ("post", "/v1/context", f'{{{A}, "user": {LONE}}}', "user"),
    ("post", "/v1/memories/{memory}/feedback", f'{{"kind": "flag", "note": {LONE}}}', "note"),
    ("post", "/v1/agents", f'{{"agent_id": {LONE}}}', "agent_id"),
    (
        "put",
        "/v1/agents/support-bot/memory_policy",
        f'{{"strategy": {{{LONE}: "flat"}}}}',
        "strategy",
    ),
]


@pytest.mark.parametrize(("method", "path", "raw", "field"), SURROGATE_CASES)
def test_a_lone_surrogate_anywhere_in_a_body_is_invalid_unicode(
    api, world, method, path, raw, field
):
    before = snapshot()
    response = send(api, method, path.format(**world), raw)
    error = assert_refused(response, 400, "invalid_unicode", field)
    assert "\\ud800" in error["message"]
    assert snapshot() == before


def test_a_surrogate_written_as_utf_8_bytes_is_invalid_unicode_too(api, world):
    # Python's json decodes bytes with "surrogatepass", so these arrive as "\ud800".
    raw = b'{"agent_id": "support-bot", "content": "\xed\xa0\x80"}'
    before = snapshot()
    response = api.client.post(
        "/v1/memories", data=raw, content_type="application/json", headers=api.headers
    )
    assert_refused(response, 400, "invalid_unicode", "content")
    assert snapshot() == before


def test_a_surrogate_pair_is_one_character_and_welcome(api, agent):
    tea = '"\\ud83c\\udf75"'  # one character, U+1F375, as a pair of surrogates
    raw = f'{{{A}, "content": {tea}, "metadata": {{{tea}: {tea}}}}}'
    response = api.post("/v1/memories", raw=raw)
    assert response.status_code == 201, response.content
    assert response.json()["metadata"] == {"\U0001f375": "\U0001f375"}


# --- times outside the years 1..9999 -------------------------------------------------------


def memory_body(**fields):
    return {"agent_id": "support-bot", "content": "x", **fields}


def fact_body(**fields):
    return {
        "agent_id": "support-bot",
        "subject": "user",
        "predicate": "city",
        "value": "Lisbon",
        "source": {"kind": "conversation_summary"},
        **fields,
    }


TIME_BODIES = [
    ("/v1/memories", lambda t: memory_body(created_at=t), "created_at"),
    ("/v1/memories", lambda t: memory_body(expires_at=t), "expires_at"),
    (
        "/v1/memories/batch",
        lambda t: {"agent_id": "support-bot", "items": [{"content": "x", "expires_at": t}]},
        "expires_at",
    ),
    (
        "/v1/memory/recall",
        lambda t: {"agent_id": "support-bot", "query": "tea", "since": t},
        "since",
    ),
    (
        "/v1/memory/recall",
        lambda t: {"agent_id": "support-bot", "query": "tea", "until": t},
        "until",
    ),
    ("/v1/facts", lambda t: fact_body(valid_from=t), "valid_from"),
    ("/v1/facts", lambda t: fact_body(valid_to=t), "valid_to"),
]


@pytest.mark.parametrize("moment", [EARLY, LATE])
@pytest.mark.parametrize(("path", "body", "field"), TIME_BODIES)
def test_a_body_time_beyond_the_years_1_to_9999_in_utc_is_invalid_time(
    api, world, path, body, field, moment
):
    before = snapshot()
    error = assert_refused(api.post(path, body(moment)), 400, "invalid_time")
    assert field in error["message"]
    assert snapshot() == before


TIME_QUERIES = [
    ("/v1/agents/support-bot/memories", {}, "since"),
    ("/v1/agents/support-bot/memories", {}, "until"),
    ("/v1/facts", {"agent_id": "support-bot"}, "as_of"),
]


@pytest.mark.parametrize("moment", [EARLY, LATE])
@pytest.mark.parametrize(("path", "params", "field"), TIME_QUERIES)
def test_a_query_time_beyond_the_years_1_to_9999_in_utc_is_invalid_time(
    api, world, path, params, field, moment
):
    response = api.get(path, **params, **{field: moment})
    assert_refused(response, 400, "invalid_time", field)


def test_a_date_with_a_zone_letter_is_not_a_time(api, world):
    body = {"agent_id": "support-bot", "query": "tea", "since": "0001-01-01Z"}
    assert_refused(api.post("/v1/memory/recall", body), 400, "invalid_time", "since")


def test_the_first_and_last_instants_in_utc_are_accepted(api, world):
    first, last = "0001-01-01T00:00:00Z", "9999-12-31T23:59:59Z"
    body = {"agent_id": "support-bot", "query": "green tea", "since": first, "until": last}
    assert api.post("/v1/memory/recall", body).json()["items"]
    page = api.get("/v1/agents/support-bot/memories", since=first, until=last)
    assert page.json()["items"]
    assert api.get("/v1/facts", agent_id="support-bot", as_of=last).status_code == 200
    stored = api.post("/v1/facts", fact_body(valid_from=first, valid_to=last))
    assert stored.status_code == 200, stored.content
    read = api.get(f"/v1/facts/{stored.json()['fact']['id']}").json()
    assert parse_datetime(read["valid_from"]) == datetime(1, 1, 1, tzinfo=UTC)


# --- ids beyond 64 bits ------------------------------------------------------------------

ID_BODIES = [
    ("/v1/memories", lambda w, i: memory_body(session_id=i), "session_id"),
    (
        "/v1/memories/batch",
        lambda w, i: {"agent_id": "support-bot", "items": [{"content": "x", "session_id": i}]},
        "items.0.session_id",
    ),
    (
        "/v1/memory/recall",
        lambda w, i: {"agent_id": "support-bot", "query": "tea", "session_id": i},
        "session_id",
    ),
    ("/v1/context", lambda w, i: {"agent_id": "support-bot", "session_id": i}, "session_id"),
    (
        "/v1/memories/forget",
        lambda w, i: {"agent_id": "support-bot", "ids": [w["memory"], i]},
        "ids.1",
    ),
    (
        "/v1/memories/consolidate",
        lambda w, i: {"agent_id": "support-bot", "memory_ids": [w["memory"], i]},
        "memory_ids.1",
    ),
]


@pytest.mark.parametrize("bad_id", [BEYOND, 2**64, 0, -1])
@pytest.mark.parametrize(("path", "body", "field"), ID_BODIES)
def test_an_id_out_of_range_in_a_body_is_invalid_input(api, world, path, body, field, bad_id):
    before = snapshot()
    assert_refused(api.post(path, body(world, bad_id)), 400, "invalid_input", field)
    assert snapshot() == before


@pytest.mark.parametrize("bad_id", [str(BEYOND), "0", "-1"])
def test_an_id_out_of_range_in_a_query_is_invalid_input(api, world, bad_id):
    response = api.get("/v1/agents/support-bot/memories", session_id=bad_id)
    assert_refused(response, 400, "invalid_input", "session_id")


PATH_IDS = [
    ("get", "/v1/memories/{}", None, "memory_not_found"),
    ("patch", "/v1/memories/{}", {"content": "x"}, "memory_not_found"),
    ("delete", "/v1/memories/{}", None, "memory_not_found"),
    ("get", "/v1/memories/{}/feedback", None, "memory_not_found"),
    ("post", "/v1/memories/{}/feedback", {"kind": "flag"}, "memory_not_found"),
    ("get", "/v1/sessions/{}", None, "session_not_found"),
    ("get", "/v1/sessions/{}/memories", None, "session_not_found"),
    ("post", "/v1/sessions/{}/touch", None, "session_not_found"),
    ("post", "/v1/sessions/{}/end", {}, "session_not_found"),
    ("get", "/v1/facts/{}", None, "fact_not_found"),
    ("post", "/v1/facts/{}/resolve", {"action": "reject"}, "fact_not_found"),
    ("delete", "/v1/facts/{}", None, "fact_not_found"),
]


@pytest.mark.parametrize("bad_id", [BEYOND, 2**64, 10**40])
@pytest.mark.parametrize(("method", "path", "body", "code"), PATH_IDS)
def test_an_id_out_of_range_in_a_path_names_nothing(api, world, method, path, body, code, bad_id):
    """A path names a resource: one no row can be is not found, like any unknown id."""
    before = snapshot()
    if body is None:
        response = getattr(api.client, method)(path.format(bad_id), headers=api.headers)
    else:
        response = send(api, method, path.format(bad_id), json.dumps(body))
    assert_refused(response, 404, code)
    assert snapshot() == before


def cursor_for(text: str) -> str:
    return base64.urlsafe_b64encode(text.encode()).decode().rstrip("=")


@pytest.mark.parametrize("last_id", [str(BEYOND), "0", "-5", "9" * 5000])
@pytest.mark.parametrize(
    ("path", "params"),
    [
        ("/v1/agents/support-bot/memories", {}),
        ("/v1/facts", {"agent_id": "support-bot"}),
        ("/v1/memories/{memory}/feedback", {}),
        ("/v1/sessions/{session}/memories", {}),
    ],
)
def test_a_cursor_no_server_made_is_invalid_input(api, world, path, params, last_id):
    response = api.get(path.format(**world), **params, cursor=cursor_for(f"f{last_id}"))
    assert_refused(response, 400, "invalid_input", "cursor")


# --- NUL characters ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("path", "params", "name"),
    [
        ("/v1/facts", {"agent_id": "support-bot"}, "q"),
        ("/v1/facts", {"agent_id": "support-bot"}, "user"),
        ("/v1/facts", {"agent_id": "support-bot"}, "subject"),
        ("/v1/facts", {"agent_id": "support-bot"}, "predicate"),
        ("/v1/agents/support-bot/memories", {}, "tags"),
        ("/v1/agents/support-bot/memories", {}, "memory_type"),
    ],
)
def test_a_nul_in_a_query_parameter_is_invalid_input(api, world, path, params, name):
    assert_refused(api.get(path, **params, **{name: "a\x00b"}), 400, "invalid_input", name)


@pytest.mark.parametrize("path", ["/v1/memories/{memory}", "/v1/facts/{fact}"])
def test_a_nul_in_a_deletion_reason_deletes_nothing(api, world, path):
    before = snapshot()
    response = api.delete(path.format(**world), reason="gone\x00")
    assert_refused(response, 400, "invalid_input", "reason")
    assert snapshot() == before


def test_a_nul_in_the_context_user_is_invalid_input(api, world):
    body = {"agent_id": "support-bot", "user": "u1\x00", "session_id": world["session"]}
    before = snapshot()
    assert_refused(api.post("/v1/context", body), 400, "invalid_input", "user")
    assert snapshot() == before


# --- requests Django will not read ---------------------------------------------------------


def test_more_query_parameters_than_django_reads_is_a_400(api, world, settings):
    many = "&".join(f"p{i}=1" for i in range(settings.DATA_UPLOAD_MAX_NUMBER_FIELDS + 1))
    response = api.client.get(f"/v1/facts?agent_id=support-bot&{many}", headers=api.headers)
    assert_refused(response, 400, "too_many_parameters")


def test_any_suspicious_request_is_a_400_in_the_error_shape():
    request = RequestFactory().get("/v1/agents")
    response = ninja_api.on_exception(request, SuspiciousOperation("odd header"))
    assert response.status_code == 400
    assert json.loads(response.content)["error"]["code"] == "bad_request"


def test_json_nested_deeper_than_the_parser_goes_is_malformed(api, agent):
    raw = '{"agent_id": "support-bot", "content": "x", "metadata": {"k": ' + "[" * 100_000
    raw += "]" * 100_000 + "}}"
    assert_refused(api.post("/v1/memories", raw=raw), 400, "malformed_json")


# --- a "never" expiry ----------------------------------------------------------------------


def test_an_expiry_past_the_cap_is_stored_at_the_cap(api, agent):
    response = api.post("/v1/memories", memory_body(expires_at="9999-12-31T00:00:00Z"))
    assert response.status_code == 201, response.content
    assert parse_datetime(response.json()["expires_at"]) == MAX_EXPIRES_AT
    assert Memory.objects.get().expires_at == MAX_EXPIRES_AT


def test_a_memory_that_never_expires_survives_every_recall(api, agent):
    body = memory_body(content="The vault code is 4471", expires_at="9999-12-31T00:00:00Z")
    memory_id = api.post("/v1/memories", body).json()["id"]
    query = {"agent_id": "support-bot", "query": "vault code"}
    for _ in range(3):
        response = api.post("/v1/memory/recall", query)
        assert response.status_code == 200, response.content
        assert [hit["id"] for hit in response.json()["items"]] == [memory_id]
    memory = Memory.objects.get(pk=memory_id)
    assert (memory.access_count, memory.expires_at) == (3, MAX_EXPIRES_AT)


def test_spaced_repetition_stops_at_the_cap_whatever_the_count_and_step(agent):
    set_memory_policy(
        agent=agent,
        policy={"spaced_repetition_factor": 100, "base_interval_seconds": 365 * 86400},
        actor="test",
    )
    near, far_below = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="near the cap", expires_at=MAX_EXPIRES_AT - timedelta(days=1)),
            MemoryInput(content="far below it", ttl_seconds=3600),
        ],
    )
    many = 2**31 - 2  # the column is a 32-bit integer on PostgreSQL
    Memory.objects.filter(pk=near.pk).update(access_count=many)
    record_access([near.pk, far_below.pk])
    near.refresh_from_db()
    assert (near.access_count, near.expires_at) == (many + 1, MAX_EXPIRES_AT)
    # Below the cap the deadline moves exactly as before: one access x 100 years.
    before, after = far_below.expires_at, Memory.objects.get(pk=far_below.pk).expires_at
    assert before is not None
    assert after is not None
    assert after - before == timedelta(days=365 * 100)


def test_an_expiry_stored_past_the_cap_comes_back_to_it_on_access(agent):
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content="old", ttl_seconds=60)])
    # As a server without the cap could have written it.
    Memory.objects.filter(pk=memory.pk).update(expires_at=datetime(9999, 12, 31, tzinfo=UTC))
    record_access([memory.pk])
    assert Memory.objects.get(pk=memory.pk).expires_at == MAX_EXPIRES_AT


@pytest.mark.parametrize("ttl", [BEYOND, 10**30, 0, -1])
def test_a_ttl_out_of_range_is_invalid_input(api, world, ttl):
    before = snapshot()
    response = api.post("/v1/memories", memory_body(ttl_seconds=ttl))
    assert_refused(response, 400, "invalid_input", "ttl_seconds")
    assert snapshot() == before


# --- recall racing a delete ----------------------------------------------------------------


def test_loading_the_winners_skips_a_deleted_memory_and_takes_the_next(agent):
    memories = store_memories(agent=agent, items=[MemoryInput(content=f"m{i}") for i in range(4)])
    scored = [(1.0 - i / 10, m.pk, 0.5, 1.0) for i, m in enumerate(memories)]
    delete_memory(memory=memories[0], actor="test")
    winners = load_winners(scored=scored, top_k=2)
    assert [memory.pk for _, memory in winners] == [memories[1].pk, memories[2].pk]
    assert [row for row, _ in winners] == scored[1:3]
    assert len(load_winners(scored=scored, top_k=10)) == 3


def test_recall_skips_a_memory_deleted_between_ranking_and_loading(agent):
    """A real delete, through the product's own service, lands right before recall loads
    its winners: the moment a concurrent client, the expiry pass or dedup could."""
    contents = ["tea at noon", "tea at five", "tea at nine"]
    memories = store_memories(agent=agent, items=[MemoryInput(content=c) for c in contents])
    request = RecallRequest(query="tea", top_k=2, routing="keyword", rerank=False)
    first = recall(agent=agent, request=request).hits[0].memory
    assert first.pk in {m.pk for m in memories}
    deleted: list[int] = []

    def delete_before_the_winners_load(execute, sql, params, many, context):
        # The winners are the one read that joins their sessions (select_related).
        if not deleted and 'LEFT OUTER JOIN "memory_session"' in sql:
            deleted.append(first.pk)
            delete_memory(memory=first, actor="client")
        return execute(sql, params, many, context)

    with connection.execute_wrapper(delete_before_the_winners_load):
        hits = recall(agent=agent, request=request).hits
    assert deleted == [first.pk]
    assert len(hits) == 2
    assert first.pk not in {hit.memory.pk for hit in hits}


# --- a refused request is not session activity ---------------------------------------------

LONG_AGO = datetime(2026, 1, 1, tzinfo=UTC)


@pytest.fixture
def idle_session(agent):
    session = start_session(agent=agent, user="u1")
    store_memories(agent=agent, items=[MemoryInput(content="tea", session_id=session.pk)])
    Session.objects.filter(pk=session.pk).update(last_activity_at=LONG_AGO)
    return session


def last_activity(session) -> datetime:
    return Session.objects.get(pk=session.pk).last_activity_at


@pytest.mark.parametrize("params", [{"limit": 0}, {"limit": 201}, {"cursor": "nonsense"}])
def test_a_refused_page_of_session_memories_is_not_activity(api, idle_session, params):
    response = api.get(f"/v1/sessions/{idle_session.pk}/memories", **params)
    assert_refused(response, 400, "invalid_input")
    assert last_activity(idle_session) == LONG_AGO


@pytest.mark.parametrize(
    ("path", "fields", "field"),
    [
        ("/v1/context", {"query": "tea", "top_k": 0}, "top_k"),
        ("/v1/context", {"query": "tea", "budget_tokens": 10}, "budget_tokens"),
        ("/v1/context", {"query": "tea", "user": "u\x00"}, "user"),
        ("/v1/memory/recall", {"query": "tea", "top_k": 0}, "top_k"),
        (
            "/v1/memory/recall",
            {"query": "tea", "until": "2000-01-01", "since": "2001-01-01"},
            "until",
        ),
    ],
)
def test_a_refused_context_or_recall_is_not_session_activity(
    api, idle_session, path, fields, field
):
    body = {"agent_id": "support-bot", "session_id": idle_session.pk, **fields}
    before = snapshot()
    assert_refused(api.post(path, body), 400, "invalid_input", field)
    assert last_activity(idle_session) == LONG_AGO
    assert snapshot() == before


def test_an_accepted_page_of_session_memories_is_activity(api, idle_session):
    assert api.get(f"/v1/sessions/{idle_session.pk}/memories").status_code == 200
    assert last_activity(idle_session) > timezone.now() - timedelta(minutes=1)


# --- filters bigger than any stored value ---------------------------------------------------


def test_more_tag_filters_than_a_memory_can_have_is_invalid_input(api, world):
    tags = "&".join(f"tags=t{i}" for i in range(999))
    response = api.client.get(f"/v1/agents/support-bot/memories?{tags}", headers=api.headers)
    assert_refused(response, 400, "invalid_input", "tags")


def test_a_fact_search_longer_than_any_value_is_invalid_input(api, world):
    response = api.get("/v1/facts", agent_id="support-bot", q="q" * 100_000)
    assert_refused(response, 400, "invalid_input", "q")
