"""A memory names the user it is about: given with it, or its session's user."""

import pytest

from memory.models import Memory
from memory.transfer import export_records, import_records
from tenancy.models import Agent
from tests.facts.test_api import assert_error

pytestmark = pytest.mark.django_db


def store(api, **fields):
    return api.post("/v1/memories", {"agent_id": "support-bot", "content": "hi", **fields})


def test_a_memory_keeps_the_user_it_was_stored_for(api, agent):
    stored = store(api, user="ana")
    assert stored.status_code == 201
    assert stored.json()["user"] == "ana"
    read = api.get(f"/v1/memories/{stored.json()['id']}")
    assert read.json()["user"] == "ana"
    assert store(api).json()["user"] is None


def test_a_memory_of_a_session_is_about_the_sessions_user(api, agent):
    session = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "ana"}).json()
    stored = store(api, session_id=session["id"])
    assert stored.json()["user"] == "ana"
    assert store(api, session_id=session["id"], user="ana").json()["user"] == "ana"


def test_a_user_other_than_the_sessions_is_refused_and_nothing_is_stored(api, agent):
    session = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "ana"}).json()
    refused = store(api, session_id=session["id"], user="bob")
    assert_error(refused, 400, "invalid_input")
    assert "user" in refused.json()["error"]["message"]
    assert not Memory.objects.filter(agent=agent).exists()


def test_a_user_that_is_not_text_or_too_long_is_refused(api, agent):
    assert_error(store(api, user=7), 400, "invalid_input")
    assert_error(store(api, user="u" * 256), 413, "too_large")
    assert not Memory.objects.filter(agent=agent).exists()


def test_export_and_import_keep_each_memorys_user(api, agent, workspace):
    store(api, user="ana")
    session = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "bob"}).json()
    store(api, session_id=session["id"])
    store(api)
    records = list(export_records(agent))
    copy = Agent.objects.create(agent_id="copy-bot", workspace=workspace)
    import_records(copy, enumerate(records, start=1))
    users = list(
        Memory.objects.filter(agent=copy).order_by("id").values_list("user_ref", flat=True)
    )
    assert users == ["ana", "bob", None]
