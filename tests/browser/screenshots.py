"""Pictures of the main pages for the README: `make screenshots` writes docs/screenshots/.

Not collected by the normal test run (the file name does not start with test_); the Makefile
names it explicitly. It fills a small, realistic workspace through the services, signs an
operator in through the login form and photographs each page (and a memory's neighbourhood
on its own) at 1280 and 390 pixels wide.
"""

from datetime import timedelta
from pathlib import Path

import pytest
from django.utils import timezone
from playwright.sync_api import Page

from facts.models import Fact, Status
from facts.services import (
    Claim,
    SourceInput,
    assert_fact,
    delete_fact,
    forget_facts,
    forget_scope,
    resolve_fact,
)
from memory.models import Memory
from memory.services import (
    MemoryInput,
    decay_pass,
    end_session,
    start_session,
    store_memories,
)
from memory.services.maintenance import JOBS, run_maintenance
from memory.services.maintenance_schedules import ensure_schedules
from tenancy.models import Agent, MemberRole, WorkspaceMember
from tenancy.services import invite_member
from tests.factories import make_agent, make_workspace

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
OUT = Path(__file__).resolve().parents[2] / "docs" / "screenshots"
WIDTHS = {"desktop": 1280, "phone": 390}


def _demo_data(django_user_model):
    workspace = make_workspace("acme")
    agent = make_agent(workspace, "support-bot")
    chat = SourceInput(kind="channel_message", reference="slack:C042/1718", excerpt="")
    facts = [
        ("u-ana", "user", "employer", "Acme Rockets", "stated", 0.9),
        ("u-ana", "user", "city", "Lisbon", "confirmed", 1.0),
        ("u-ana", "user", "diet", "vegetarian", "stated", 0.8),
        ("u-ana", "user", "employer", "Globex", "inferred", 0.6),
        ("u-bo", "user", "employer", "Initech", "stated", 1.0),
        ("u-bo", "user", "email", "bo@initech.example", "confirmed", 1.0),
        ("u-bo", "user", "city", "Porto", "stated", 0.9),
        ("u-bo", "user", "city", "Braga", "stated", 0.7),
    ]
    for user, subject, predicate, value, verification, confidence in facts:
        assert_fact(
            agent=agent,
            claim=Claim(
                user=user,
                subject=subject,
                predicate=predicate,
                value=value,
                verification=verification,
                confidence=confidence,
            ),
            source=SourceInput(kind=chat.kind, reference=chat.reference, excerpt=f"…{value}…"),
            actor="demo",
        )
    session = start_session(agent=agent, user="u-ana")
    _, globex = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=text, session_id=session.pk, importance=importance, tags=tags)
            for text, importance, tags in [
                ("Ana asked to move her dentist appointment to Friday 14 June 2024", 0.6, []),
                ("Ana mentioned she started at Globex last month", 0.8, ["work"]),
            ]
        ],
    )
    end_session(session=session, summary="Ana rescheduled the dentist; now works at Globex")
    assert_fact(
        agent=agent,
        claim=Claim(
            user="u-ana",
            subject="user",
            predicate="employer",
            value="Globex",
            verification="inferred",
            confidence=0.6,
        ),
        source=SourceInput(kind="memory_document", memory_id=globex.pk),
        actor="demo",
    )
    bo = start_session(agent=agent, user="u-bo")
    store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content="Bo prefers email (bo@initech.example) over calls", session_id=bo.pk
            ),
            MemoryInput(
                content="To reset a password: Settings, then Security, then Reset",
                memory_type="procedural",
                importance=0.3,
                tags=["howto"],
            ),
        ],
    )
    move = start_session(agent=agent, user="u-ana")
    store_memories(
        agent=agent,
        items=[
            MemoryInput(content=text, session_id=move.pk)
            for text in [
                "Ana: the Globex team moves to the Lisbon office in March",
                "Ana: I'm flying to Lisbon with Bo on 3 March",
                "Bo suggested a hotel near the Lisbon office",
                "Ana asked Globex HR to cover the relocation",
            ]
        ],
    )
    for username, email, role in [
        ("carla", "carla@acme.example", MemberRole.MANAGER),
        ("dev", "dev@acme.example", MemberRole.VIEWER),
    ]:
        user = django_user_model.objects.create_user(username=username, email=email)
        WorkspaceMember.objects.create(user=user, workspace=workspace, role=role)
    return agent, globex


def _maintenance_history(agent) -> None:
    """A week of hourly-ish decay passes over a few dozen memories of mixed types, then one
    real run of every job, so the Maintenance page shows what an operator would see."""
    kinds = ["episodic", "semantic", "procedural", "working"]
    store_memories(
        agent=agent,
        items=[
            MemoryInput(
                content=f"Ticket {n}: customer asked about invoice {1000 + n}",
                memory_type=kinds[n % 4],
                importance=0.35 + (n % 7) / 10,
            )
            for n in range(40)
        ],
    )
    start = timezone.now() - timedelta(days=8)
    Memory.objects.filter(agent=agent).update(decay_from=start, created_at=start)
    for step in range(0, 8 * 24, 6):
        decay_pass(agents=Agent.objects.filter(pk=agent.pk), now=start + timedelta(hours=step))
    ensure_schedules()
    for job in JOBS:
        run_maintenance(job=job)


def _audit_history(agent) -> None:
    """A day's work for the audit log: a dispute settled, a fact deleted, an invitation
    and a subject forgotten (which leaves a receipt)."""
    disputed = Fact.objects.get(agent=agent, status=Status.DISPUTED, value="Braga")
    resolve_fact(fact=disputed, action="accept", actor="operator:carla")
    current = Fact.objects.get(agent=agent, status=Status.CURRENT, predicate="diet")
    delete_fact(fact=current, actor="operator:carla", reason="said in jest")
    invite_member(workspace=agent.workspace, username="erin", role="viewer", actor="operator:ops")
    assert_fact(
        agent=agent,
        claim=Claim(user="u-bo", subject="initech", predicate="hq", value="Ohio"),
        source=SourceInput(kind="conversation_summary", reference="conv-9", excerpt="…"),
        actor="demo",
    )
    forget_facts(agent=agent, scope=forget_scope(subject="initech"), actor="operator:ops")


def _shoot(page: Page, name: str) -> None:
    OUT.mkdir(parents=True, exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.screenshot(path=str(OUT / f"{name}-{label}.png"), full_page=True)


def _shoot_part(page: Page, name: str, selector: str) -> None:
    """One part of a page (its own picture, at both widths)."""
    OUT.mkdir(parents=True, exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.locator(selector).screenshot(path=str(OUT / f"{name}-{label}.png"))


def _shoot_review(page: Page, url: str) -> None:
    """The queue with its side panel showing the first dispute (a wide screen), the queue
    alone on a phone, and the panel as its own page there."""
    OUT.mkdir(parents=True, exist_ok=True)
    for label, width in WIDTHS.items():
        page.set_viewport_size({"width": width, "height": 900})
        page.goto(f"{url}/dashboard/review/")
        if page.locator("#review-panel").is_visible():
            page.keyboard.press("j")
            page.locator("#dispute-panel").wait_for()
        page.screenshot(path=str(OUT / f"review-queue-{label}.png"), full_page=True)
    page.locator(".review-item a.panel-link").first.click()
    page.wait_for_load_state()
    _shoot(page, "review-panel")


def test_screenshots(live_server, page: Page, django_user_model):
    agent, memory = _demo_data(django_user_model)
    django_user_model.objects.create_user(username="ops", password="pw-ops-123", is_staff=True)
    page.goto(f"{live_server.url}/accounts/login/")
    _shoot(page, "login")
    page.get_by_label("Username").fill("ops")
    page.get_by_label("Password").fill("pw-ops-123")
    page.get_by_role("button", name="Sign in").click()
    page.wait_for_url("**/dashboard/**")
    page.goto(f"{live_server.url}/dashboard/inbox/")
    _shoot(page, "inbox")
    page.goto(f"{live_server.url}/dashboard/facts/")
    _shoot(page, "facts")
    page.goto(f"{live_server.url}/dashboard/search/?q=u-a")
    _shoot(page, "search")
    page.goto(f"{live_server.url}/dashboard/facts/?status=disputed")
    page.locator("#facts-table tbody a").first.click()
    page.wait_for_load_state()
    _shoot(page, "fact-detail")
    _shoot_review(page, live_server.url)
    page.goto(f"{live_server.url}/dashboard/memory/?agent=support-bot")
    _shoot(page, "memories")
    page.goto(f"{live_server.url}/dashboard/memory/?agent=support-bot&q=where+does+Ana+work")
    page.locator("#memories-table details.explain").first.locator("summary").click()
    _shoot(page, "memories-search")
    page.goto(f"{live_server.url}/dashboard/memory/{memory.pk}/")
    _shoot(page, "memory-detail")
    page.goto(f"{live_server.url}/dashboard/memory/{memory.pk}/?depth=2")
    _shoot_part(page, "memory-neighbourhood", "#neighbourhood-section")
    page.goto(f"{live_server.url}/dashboard/memory/entities/?agent=support-bot")
    _shoot(page, "entities")
    page.locator("#entities-table").get_by_role("link", name="Globex", exact=True).click()
    page.wait_for_load_state()
    _shoot(page, "entity")
    page.goto(f"{live_server.url}/dashboard/memory/sessions/?agent=support-bot")
    _shoot(page, "sessions")
    page.locator("#sessions-table a.session-link").last.click()
    page.wait_for_load_state()
    _shoot(page, "session-detail")
    page.goto(f"{live_server.url}/dashboard/memory/people/?user=u-ana")
    _shoot(page, "person")
    page.goto(f"{live_server.url}/dashboard/members/?workspace=acme")
    _shoot(page, "members")
    _maintenance_history(agent)
    page.goto(f"{live_server.url}/dashboard/memory/maintenance/?agent=support-bot")
    _shoot(page, "maintenance")
    _audit_history(agent)
    page.goto(f"{live_server.url}/dashboard/audit/")
    _shoot(page, "audit")
    page.goto(f"{live_server.url}/dashboard/audit/receipts/")
    _shoot(page, "receipts")
    page.goto(f"{live_server.url}/dashboard/changes/")
    _shoot(page, "changes")
    assert (OUT / "facts-desktop.png").stat().st_size > 10_000
