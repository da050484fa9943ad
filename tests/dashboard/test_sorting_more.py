"""Sortable columns of the audit log and Changes (paged), and of the lists shown whole:
receipts, members, API keys, quotas and a person's facts. (The mechanism and the lists of
facts, memories, sessions and entities: test_sorting.py.)"""

import re
from datetime import UTC, datetime, timedelta

import pytest
from django.utils import timezone

from facts.models import FactPeriod
from facts.services import delete_fact, forget_facts, forget_scope
from memory.services import MemoryInput, store_memories
from tenancy.audit import record_event
from tenancy.models import AuditAction, MemberRole, WorkspaceMember
from tenancy.services import create_api_key
from tests.dashboard.conftest import app, member
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

HTMX = {"HX-Request": "true"}


def header(page: str, label: str) -> str:
    found = re.search(rf'<th scope="col"[^>]*>(?:<a[^>]*>)?{re.escape(label)}\b.*?</th>', page)
    assert found, f"no header {label!r}"
    return found.group(0)


def link_of(th: str) -> str:
    found = re.search(r'href="([^"]*)"', th)
    assert found, f"{th} is not a link"
    return found.group(1).replace("&amp;", "&")


# --- the audit log ---


def test_the_audit_log_sorts_by_actor_and_pages_on(staff_client, agent, monkeypatch):
    monkeypatch.setattr("facts.views_audit.PAGE_SIZE", 2)
    for actor in ["carol", "alice", "dave", "bob"]:
        record_event(
            workspace_id=agent.workspace_id, agent=agent, actor=actor,
            action=AuditAction.POLICY_CHANGE, target_type="agent",
        )  # fmt: skip
    page = staff_client.get("/dashboard/audit/")
    assert [e.actor for e, _ in page.context["rows"]] == ["bob", "dave"]  # newest first
    assert 'aria-sort="descending"' in header(page.text, "When")
    url = link_of(header(page.text, "Actor"))
    first = staff_client.get(url)
    assert [e.actor for e, _ in first.context["rows"]] == ["alice", "bob"]
    assert 'aria-sort="ascending"' in header(first.text, "Actor")
    cursor = first.context["page"]["next_cursor"]
    rest = staff_client.get("/dashboard/audit/", {"sort": "actor", "cursor": cursor}, headers=HTMX)
    assert [e.actor for e, _ in rest.context["rows"]] == ["carol", "dave"]
    oldest = staff_client.get("/dashboard/audit/", {"sort": "when"})
    assert [e.actor for e, _ in oldest.context["rows"]] == ["carol", "alice"]


def test_the_audit_logs_old_cursors_still_page_newest_first(staff_client, agent, monkeypatch):
    monkeypatch.setattr("facts.views_audit.PAGE_SIZE", 2)
    for n in range(3):
        record_event(
            workspace_id=agent.workspace_id, agent=agent, actor=f"a{n}",
            action=AuditAction.POLICY_CHANGE, target_type="agent",
        )  # fmt: skip
    first = staff_client.get("/dashboard/audit/")
    rest = staff_client.get("/dashboard/audit/", {"cursor": first.context["page"]["next_cursor"]})
    assert [e.actor for e, _ in rest.context["rows"]] == ["a0"]


# --- Changes ---


def test_changes_turn_round_to_oldest_first_and_page_on(staff_client, agent, monkeypatch):
    monkeypatch.setattr("facts.views.PAGE_SIZE", 2)
    for i in range(3):
        state(agent, f"v{i}", predicate=f"p{i}")
    start = datetime.now(UTC) - timedelta(hours=3)
    for i, period in enumerate(FactPeriod.objects.order_by("id")):
        FactPeriod.objects.filter(pk=period.pk).update(started_at=start + timedelta(hours=i))
    newest = staff_client.get("/dashboard/changes/")
    assert [r["fact"]["value"] for r in newest.context["rows"]] == ["v2", "v1"]
    assert 'aria-sort="descending"' in header(newest.text, "When")
    url = link_of(header(newest.text, "When"))
    assert "sort=when" in url
    oldest = staff_client.get(url)
    assert [r["fact"]["value"] for r in oldest.context["rows"]] == ["v0", "v1"]
    assert 'aria-sort="ascending"' in header(oldest.text, "When")
    cursor = oldest.context["page"].next_cursor
    assert f"sort=when&amp;cursor={cursor}" in oldest.text
    rest = staff_client.get("/dashboard/changes/", {"sort": "when", "cursor": cursor})
    assert [r["fact"]["value"] for r in rest.context["rows"]] == ["v2"]
    # A cursor of one order does not page the other.
    other = staff_client.get("/dashboard/changes/", {"cursor": cursor})
    assert other.status_code == 400


# --- lists shown whole ---


def test_receipts_sort_by_who_erased(staff_client, agent):
    for actor, user in [("operator:zed", "u1"), ("operator:amy", "u2")]:
        state(agent, f"value of {user}", user=user)
        forget_facts(agent=agent, scope=forget_scope(user=user), actor=actor)
    page = staff_client.get("/dashboard/audit/receipts/")
    assert [r.actor for r in page.context["receipts"]] == ["operator:amy", "operator:zed"]
    by = staff_client.get(link_of(header(page.text, "By")))
    assert [r.actor for r in by.context["receipts"]] == ["operator:amy", "operator:zed"]
    assert 'aria-sort="ascending"' in header(by.text, "By")
    reverse = staff_client.get(link_of(header(by.text, "By")))
    assert [r.actor for r in reverse.context["receipts"]] == ["operator:zed", "operator:amy"]
    oldest = staff_client.get("/dashboard/audit/receipts/", {"sort": "when"})
    assert [r.actor for r in oldest.context["receipts"]] == ["operator:zed", "operator:amy"]


def test_members_sort_by_role_and_keep_the_workspace_picked(
    staff_client, django_user_model, workspace, other_workspace
):
    member(django_user_model, other_workspace, MemberRole.VIEWER, "ann")
    member(django_user_model, other_workspace, MemberRole.MANAGER, "zoe")
    page = staff_client.get("/dashboard/members/", {"workspace": "globex"})
    assert [m.user.username for m in page.context["members"]] == ["ann", "zoe"]
    assert 'aria-sort="ascending"' in header(page.text, "Person")
    url = link_of(header(page.text, "Role"))
    assert "workspace=globex" in url
    assert "sort=role" in url
    by_role = staff_client.get(url, headers=HTMX)
    assert [m.user.username for m in by_role.context["members"]] == ["zoe", "ann"]
    assert '<input type="hidden" name="sort" value="role" form="members-filters">' in by_role.text


def test_an_action_on_the_members_page_links_back_to_the_list_not_to_itself(
    staff_client, django_user_model, workspace
):
    ann = member(django_user_model, workspace, MemberRole.VIEWER, "ann")
    joined = WorkspaceMember.objects.get(user=ann)
    answer = staff_client.post(
        f"/dashboard/members/{joined.pk}/role/", {"role": "manager"}, headers=HTMX
    )
    url = link_of(header(answer.text, "Role"))
    assert url.startswith("/dashboard/members/?")
    assert "workspace=acme" in url


def test_api_keys_sort_by_name_and_by_last_use_with_the_unused_last(staff_client, workspace):
    for name in ["beta", "alpha", "gamma"]:
        create_api_key(workspace=workspace, name=name, actor="t")
    from tenancy.models import ApiKey

    ApiKey.objects.filter(name="gamma").update(last_used_at=timezone.now())
    ApiKey.objects.filter(name="beta").update(last_used_at=timezone.now() - timedelta(days=1))
    page = staff_client.get("/dashboard/keys/")
    assert [k["name"] for k in page.context["keys"]] == ["gamma", "alpha", "beta"]  # newest
    by_name = staff_client.get(link_of(header(page.text, "Key")))
    assert [k["name"] for k in by_name.context["keys"]] == ["alpha", "beta", "gamma"]
    used = staff_client.get(link_of(header(page.text, "Last used")))
    assert [k["name"] for k in used.context["keys"]] == ["gamma", "beta", "alpha"]
    least = staff_client.get(link_of(header(used.text, "Last used")))
    assert [k["name"] for k in least.context["keys"]] == ["beta", "gamma", "alpha"]


def test_quotas_sort_the_agents_by_their_usage(staff_client, workspace):
    for agent_id, count in [("a-bot", 1), ("b-bot", 3), ("c-bot", 2)]:
        agent = make_agent(workspace, agent_id)
        items = [MemoryInput(content=f"{agent_id} {n}") for n in range(count)]
        store_memories(agent=agent, items=items)
    page = staff_client.get("/dashboard/memory/quotas/")
    url = link_of(header(page.text, "memories"))
    most = staff_client.get(url)
    assert [r.agent_id for r in most.context["agents"]] == ["b-bot", "c-bot", "a-bot"]
    assert 'aria-sort="descending"' in header(most.text, "memories")
    by_agent = staff_client.get(link_of(header(most.text, "Agent")))
    assert [r.agent_id for r in by_agent.context["agents"]] == ["a-bot", "b-bot", "c-bot"]


def test_a_persons_facts_sort_by_value_within_each_agent(staff_client, agent):
    for predicate, value in [("city", "Porto"), ("employer", "Acme"), ("drink", "tea")]:
        state(agent, value, user="ana", predicate=predicate)
    page = staff_client.get("/dashboard/memory/people/", {"user": "ana"})
    [group] = page.context["overview"].workspaces[0].agent_facts
    assert [f["predicate"] for f in group.facts] == ["city", "drink", "employer"]
    by_value = staff_client.get(link_of(header(page.text, "Value")), headers=HTMX)
    [group] = by_value.context["overview"].workspaces[0].agent_facts
    assert [f["value"] for f in group.facts] == ["Acme", "Porto", "tea"]
    assert 'aria-sort="ascending"' in header(by_value.text, "Value")


def test_a_managers_sorted_lists_hold_their_workspace_only(manager_client, agent, other_agent):
    record_event(
        workspace_id=other_agent.workspace_id, agent=other_agent, actor="aaa-theirs",
        action=AuditAction.POLICY_CHANGE, target_type="agent",
    )  # fmt: skip
    record_event(
        workspace_id=agent.workspace_id, agent=agent, actor="zzz-ours",
        action=AuditAction.POLICY_CHANGE, target_type="agent",
    )  # fmt: skip
    page = manager_client.get(app("/dashboard/audit/"), {"sort": "actor"})
    assert [e.actor for e, _ in page.context["rows"]] == ["zzz-ours"]
    fact = state(other_agent, "theirs").fact
    delete_fact(fact=fact, actor="x", reason="y")
    changes = manager_client.get(app("/dashboard/changes/"), {"sort": "when"})
    assert all(r["fact"]["agent_id"] == "support-bot" for r in changes.context["rows"])
