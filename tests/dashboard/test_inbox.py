"""The inbox, the first page of staff and managers: what needs a person now (disputes per
agent, facts to re-confirm, failed jobs, quotas over their limit), each linked to the page
that settles it; viewers start on the Facts list; reading it writes nothing."""

from datetime import timedelta

import pytest
from django.utils import timezone

from facts.models import Fact
from memory.models import MaintenanceRun, RunStatus
from memory.services import MemoryInput, store_memories
from tenancy.models import AuditEvent
from tenancy.quotas import QuotaLimit, set_quotas
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

INBOX = "/app/inbox/"


def dispute(agent, value: str, **overrides) -> Fact:
    return state(agent, value, verification="inferred", **overrides).fact


def test_staff_and_managers_start_on_the_inbox_and_viewers_on_the_facts(
    staff_client, manager_client, viewer_client
):
    assert staff_client.get("/dashboard/", follow=True).redirect_chain[-1][0] == (
        "/dashboard/inbox/"
    )
    assert manager_client.get("/app/", follow=True).redirect_chain[-1][0] == INBOX
    assert viewer_client.get("/app/", follow=True).redirect_chain[-1][0] == "/app/facts/"


def test_an_empty_inbox_says_nothing_needs_you(manager_client, agent):
    page = manager_client.get(INBOX)
    assert page.context["inbox"].empty
    assert "Nothing needs you now." in page.text


def test_disputes_are_counted_per_agent_oldest_or_newest_first(
    manager_client, workspace, agent, other_agent
):
    second = make_agent(workspace, "sales-bot")
    state(agent, "Acme")
    early = dispute(agent, "Globex")
    state(agent, "Paris", predicate="city")
    dispute(agent, "Rome", predicate="city")
    state(second, "Acme")
    late = dispute(second, "Initech")
    Fact.objects.filter(pk=early.pk).update(recorded_at=timezone.now() - timedelta(days=3))
    Fact.objects.filter(pk=late.pk).update(recorded_at=timezone.now() + timedelta(minutes=1))
    state(other_agent, "Hooli")
    dispute(other_agent, "Umbrella")  # another workspace's: not counted here

    page = manager_client.get(INBOX)
    inbox = page.context["inbox"]
    assert inbox.disputes_total == 3
    assert [(d["agent_id"], d["count"]) for d in inbox.disputes] == [
        ("support-bot", 2),
        ("sales-bot", 1),
    ]
    assert 'href="/app/review/?agent=sales-bot"' in page.text
    newest = manager_client.get(INBOX, {"order": "newest"}).context["inbox"]
    assert [d["agent_id"] for d in newest.disputes] == ["sales-bot", "support-bot"]


def test_stale_facts_failed_jobs_and_quotas_over_their_limit_are_listed(
    manager_client, workspace, agent
):
    fact = state(agent, "Acme").fact
    Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=timezone.now() - timedelta(days=3000))
    MaintenanceRun.objects.create(
        job="decay",
        status=RunStatus.FAILED,
        started_at=timezone.now() - timedelta(hours=2),
        error="OperationalError: database is locked\nTraceback...",
    )
    MaintenanceRun.objects.create(
        job="expiry", status=RunStatus.FAILED, started_at=timezone.now() - timedelta(days=9)
    )
    set_quotas(
        workspace=workspace, agent=agent, limits={"memories": QuotaLimit(1, "soft")}, actor="t"
    )
    store_memories(agent=agent, items=[MemoryInput(content="one"), MemoryInput(content="two")])

    page = manager_client.get(INBOX)
    inbox = page.context["inbox"]
    assert inbox.reconfirm == 1
    assert [(r["job"], r["error"]) for r in inbox.failed] == [
        ("decay", "OperationalError: database is locked")
    ]  # the one of nine days ago is past the week
    assert [(r.workspace, r.agent_id) for r in inbox.quotas] == [("acme", "support-bot")]
    assert "memories 2 of 1 (soft)" in page.text
    assert not inbox.empty


def test_a_hard_quota_near_its_limit_is_a_warning(manager_client, workspace, agent):
    hard = {"memories": QuotaLimit(10)}
    set_quotas(workspace=workspace, agent=agent, limits=hard, actor="t")
    store_memories(agent=agent, items=[MemoryInput(content=f"m{n}") for n in range(8)])
    assert manager_client.get(INBOX).context["inbox"].quotas == []  # 80%: not yet
    store_memories(agent=agent, items=[MemoryInput(content="m9")])
    page = manager_client.get(INBOX)
    assert [r.agent_id for r in page.context["inbox"].quotas] == ["support-bot"]
    assert "memories 9 of 10 (hard, near" in page.text


def test_reading_the_inbox_writes_nothing(manager_client, staff_client, agent):
    state(agent, "Acme")
    dispute(agent, "Globex")
    before = (
        list(Fact.objects.values_list("id", "access_count", "last_accessed_at")),
        AuditEvent.objects.count(),
    )
    manager_client.get(INBOX)
    staff_client.get("/dashboard/inbox/", {"order": "newest"})
    after = (
        list(Fact.objects.values_list("id", "access_count", "last_accessed_at")),
        AuditEvent.objects.count(),
    )
    assert after == before
