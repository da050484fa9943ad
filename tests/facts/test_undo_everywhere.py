"""Undo through every interface (issue 24): the REST API and the CLI call the dashboard's
service with its rules (own decision, within the window, slot unchanged); what cannot be
undone is refused with the reason, never a 500; and no step rewrites the past: a reopened
fact keeps its rejected stretch, a restored one the view before its deletion."""

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from dewee.cli import main
from facts.models import Change, Fact, FactPeriod, Status
from facts.queries import FactFilters, filter_facts
from facts.services import (
    delete_fact,
    end_fact,
    reconfirm_fact,
    reopen_fact,
    resolve_fact,
    restore_fact,
    undo_resolution,
)
from tenancy.audit import record_event
from tenancy.models import AuditAction, AuditEvent
from tests.conftest import ApiClient
from tests.factories import make_agent, make_key, make_workspace, refreshed, state
from tests.test_openapi_errors import assert_declared_error


def disputed(agent, value="Globex"):
    state(agent, "Acme", verification="confirmed")
    return state(agent, value, verification="stated").fact


def status_as_of(agent, fact, moment):
    facts = filter_facts(agent, FactFilters(as_of=moment))
    return getattr(facts.get(pk=fact.pk), "status_then")  # noqa: B009


def old_style_reconfirmation(agent, fact):
    """A re-confirmation as it was audited before fact.reconfirm: a resolve event."""
    return record_event(
        workspace_id=agent.workspace_id,
        agent=agent,
        actor="ann",
        action=AuditAction.FACT_RESOLVE,
        target_type="fact",
        target_id=str(fact.pk),
        details={"action": "reconfirm", "reason": ""},
    )


def assert_error(response, status, code):
    assert response.status_code == status, response.content
    assert response.json()["error"]["code"] == code


@pytest.mark.django_db
def test_the_api_undoes_its_own_accept(api, agent):
    fact = disputed(agent)
    assert api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "accept"}).status_code == 200
    response = api.post(f"/v1/facts/{fact.pk}/undo", {})
    assert response.status_code == 200, response.content
    body = response.json()
    assert body["status"] == "disputed"
    assert [f["value"] for f in body["history"] if f["status"] == "current"] == ["Acme"]
    assert [p["change"] for p in body["periods"]] == ["recorded", "accepted", "undone"]
    assert AuditEvent.objects.get(action=AuditAction.FACT_UNDO).actor.startswith("key:")


@pytest.mark.django_db
def test_the_api_refuses_an_undo_that_is_not_the_callers_and_checks_scope(
    api, other_api, workspace, agent
):
    fact = disputed(agent)
    api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "reject"})
    someone_else = ApiClient(make_key(workspace, scopes=["read", "write"]))
    openapi = Client().get("/v1/openapi.json").json()
    refused = someone_else.post(f"/v1/facts/{fact.pk}/undo", {})
    assert_declared_error(openapi, "post", "/v1/facts/{fact_id}/undo", refused, 409, "undo_refused")
    reader = ApiClient(make_key(workspace, scopes=["read"]))
    assert_error(reader.post(f"/v1/facts/{fact.pk}/undo", {}), 403, "insufficient_scope")
    assert_error(other_api.post(f"/v1/facts/{fact.pk}/undo", {}), 404, "fact_not_found")
    assert_error(api.post("/v1/facts/999999/undo", {}), 404, "fact_not_found")
    assert refreshed(fact).status == Status.REJECTED  # nothing written by a refusal


@pytest.mark.django_db(transaction=True)
def test_the_cli_undoes_its_own_decision(capsys):
    agent = make_agent(make_workspace(), "A")
    fact = disputed(agent)
    resolve = ["memory", "facts", "resolve", "--agent", "A", str(fact.pk), "--action", "accept"]
    assert main(resolve) == 0
    assert main(["memory", "facts", "undo", "--agent", "A", str(fact.pk), "--json"]) == 0
    out, _err = capsys.readouterr()
    assert json.loads(out[out.index("{") :])["status"] == "disputed"  # after resolve's line
    assert refreshed(fact).status == Status.DISPUTED
    assert main(["memory", "facts", "undo", "--agent", "A", str(fact.pk)]) != 0
    _out, err = capsys.readouterr()
    assert "already undone" in err


@pytest.mark.django_db
def test_undo_after_a_reconfirmation_is_refused_with_its_reason(api, agent):
    fact = disputed(agent)
    api.post(f"/v1/facts/{fact.pk}/resolve", {"action": "accept"})
    reconfirm_fact(fact=refreshed(fact), actor="operator:ann")
    response = api.post(f"/v1/facts/{fact.pk}/undo", {})
    assert_error(response, 409, "undo_refused")
    assert "re-confirmed" in response.json()["error"]["message"]
    assert AuditEvent.objects.filter(action=AuditAction.FACT_RECONFIRM).count() == 1
    assert refreshed(fact).status == Status.CURRENT


@pytest.mark.django_db
def test_a_reconfirmation_logged_as_a_resolve_before_it_had_its_own_action_is_refused(agent):
    fact = disputed(agent)
    resolve_fact(fact=fact, action="accept", actor="ann")
    old_style_reconfirmation(agent, fact)
    with pytest.raises(Exception, match="re-confirmed"):
        undo_resolution(fact=refreshed(fact), actor="ann")


@pytest.mark.django_db
def test_a_reopened_fact_keeps_the_stretch_it_was_rejected(agent):
    fact = disputed(agent)
    resolve_fact(fact=fact, action="reject", actor="ann")
    rejected_at = timezone.now()
    reopen_fact(fact=fact, actor="ann")
    assert status_as_of(agent, fact, rejected_at) == Status.REJECTED
    assert status_as_of(agent, fact, timezone.now()) == Status.DISPUTED
    changes = list(FactPeriod.objects.filter(fact=fact).values_list("change", flat=True))
    assert changes == [Change.RECORDED, Change.REJECTED, Change.REOPENED]


@pytest.mark.django_db
def test_a_restored_fact_keeps_what_the_past_showed(agent):
    fact = state(agent, "Acme").fact
    believed = timezone.now()
    delete_fact(fact=fact, actor="ann")
    deleted = timezone.now()
    restore_fact(fact=refreshed(fact), actor="ann")
    assert status_as_of(agent, fact, believed) == Status.CURRENT
    assert status_as_of(agent, fact, deleted) == Status.DELETED
    assert status_as_of(agent, fact, timezone.now()) == Status.CURRENT
    assert refreshed(fact).recorded_at < believed  # never recorded again


@pytest.mark.django_db
def test_superseded_and_ended_are_kept_apart(agent):
    acme = state(agent, "Acme").fact
    globex = state(agent, "Globex").fact
    end_fact(fact=refreshed(globex), actor="ann")
    last = {f.pk: FactPeriod.objects.filter(fact=f).order_by("id").last() for f in (acme, globex)}
    assert [p.change if p else None for p in last.values()] == [Change.SUPERSEDED, Change.ENDED]


@pytest.mark.django_db
def test_periods_leave_no_gap_and_one_is_open(agent):
    fact = disputed(agent)
    resolve_fact(fact=fact, action="accept", actor="ann")
    undo_resolution(fact=fact, actor="ann")
    for one in Fact.objects.filter(agent=agent):
        periods = list(FactPeriod.objects.filter(fact=one).order_by("id"))
        assert periods[0].started_at == one.recorded_at
        assert [p.ended_at for p in periods[:-1]] == [p.started_at for p in periods[1:]]
        assert periods[-1].ended_at is None
        assert periods[-1].status == one.status
    assert timezone.now() - periods[-1].started_at < timedelta(seconds=30)


def _backfill():
    from importlib import import_module

    from django.apps import apps

    import_module("facts.migrations.0010_fact_periods").backfill(apps, None)


def _legacy(agent, **fields):
    """A fact as rows were written before periods: its columns only."""
    now = timezone.now()
    defaults = {
        "user_ref": "u1",
        "subject": "user",
        "predicate": "employer",
        "value": "Acme",
        "recorded_at": now - timedelta(days=10),
        "last_confirmed_at": now,
    }
    return Fact.objects.create(agent=agent, **{**defaults, **fields})


@pytest.mark.django_db
def test_the_migration_rebuilds_periods_and_marks_an_undated_deletion_unknown(agent):
    now = timezone.now()
    day = timedelta(days=1)
    superseded = _legacy(
        agent,
        status=Status.HISTORY,
        believed_from=now - 10 * day,
        believed_until=now - 5 * day,
    )
    deleted_long_ago = _legacy(
        agent,
        value="Globex",
        status=Status.DELETED,
        recorded_at=now - 9 * day,
        believed_from=now - 9 * day,
        believed_until=now - 8 * day,  # superseded then, deleted some time after: undated
    )
    rejected = _legacy(
        agent,
        value="Initech",
        status=Status.REJECTED,
        recorded_at=now - 4 * day,
        disputed_until=now - 3 * day,
    )
    _backfill()

    def periods(fact):
        return [
            (p.status, p.started_at, p.started_known)
            for p in FactPeriod.objects.filter(fact=fact).order_by("id")
        ]

    assert periods(superseded) == [
        ("current", now - 10 * day, True),
        ("history", now - 5 * day, True),
    ]
    assert periods(deleted_long_ago) == [
        ("current", now - 9 * day, True),
        ("deleted", now - 8 * day, False),  # explicitly unknown, from the earliest it can be
    ]
    assert periods(rejected) == [
        ("disputed", now - 4 * day, True),
        ("rejected", now - 3 * day, True),
    ]
    assert status_as_of(agent, rejected, now - 3.5 * day) == Status.DISPUTED
    assert status_as_of(agent, superseded, now - 6 * day) == Status.CURRENT


@pytest.mark.django_db
def test_the_migration_gives_old_reconfirmations_their_own_action(agent):
    from importlib import import_module

    from django.apps import apps

    fact = state(agent, "Acme").fact
    event = old_style_reconfirmation(agent, fact)
    import_module("tenancy.migrations.0013_reconfirm_events_of_their_own").own_action(apps, None)
    assert AuditEvent.objects.get(pk=event.pk).action == AuditAction.FACT_RECONFIRM
