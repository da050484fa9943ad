"""The dashboard's "Check text" page: a preview that writes nothing, then Apply as its own
step for those who may change facts, through the same check_text as the API and the CLI."""

import pytest
from django.test import Client

from facts.models import Fact, FactSource, SourceKind, Status
from facts.services.checking import TEXT_MAX_CHARS
from tenancy.models import AuditEvent, MemberRole
from tests.dashboard.conftest import member, signed_in
from tests.factories import refreshed, state

pytestmark = pytest.mark.django_db

SEED = "I just moved to Surabaya for my new job at Anthropic"
CHECK = "/dashboard/facts/check/"
PREVIEW = "/dashboard/facts/check/preview/"
APPLY = "/dashboard/facts/check/apply/"
HTMX = {"HX-Request": "true"}


@pytest.fixture
def staff_client(django_user_model) -> Client:
    return signed_in(django_user_model.objects.create_user(username="ops", is_staff=True))


@pytest.fixture
def manager_client(django_user_model, workspace) -> Client:
    return signed_in(member(django_user_model, workspace, MemberRole.MANAGER, "mia"))


@pytest.fixture
def viewer_client(django_user_model, workspace) -> Client:
    return signed_in(member(django_user_model, workspace, MemberRole.VIEWER, "vic"))


def seed(agent) -> tuple[Fact, Fact]:
    employer = state(agent, "Google", user="ana").fact
    city = state(agent, "Jakarta", user="ana", predicate="city").fact
    return employer, city


def form(text: str = SEED, **overrides: str) -> dict[str, str]:
    return {"agent": "support-bot", "user": "ana", "text": text, **overrides}


def counts() -> tuple[int, int, int]:
    return Fact.objects.count(), FactSource.objects.count(), AuditEvent.objects.count()


def test_the_facts_tab_links_to_check_text_for_its_agent_and_user(staff_client, agent):
    page = staff_client.get("/dashboard/facts/", {"agent": "support-bot", "user": "ana"})
    # Staff see every workspace: links name the agent with its workspace.
    assert f'href="{CHECK}?agent=acme/support-bot&amp;user=ana"' in page.text
    response = staff_client.get(CHECK, {"agent": "support-bot", "user": "ana"})
    assert response.status_code == 200
    assert "<!doctype html>" in response.text
    assert 'name="agent" value="acme/support-bot"' in response.text
    assert 'name="user" value="ana"' in response.text
    assert f'action="{PREVIEW}"' in response.text


def test_preview_lists_both_contradictions_and_writes_nothing(staff_client, agent):
    employer, city = seed(agent)
    before = counts()
    response = staff_client.post(PREVIEW, form())
    assert response.status_code == 200
    page = response.text
    assert "Google → <strong>Anthropic</strong>" in page
    assert "Jakarta → <strong>Surabaya</strong>" in page
    assert "<q>for my new job at Anthropic</q>" in page
    assert "<q>I just moved to Surabaya</q>" in page
    assert f'href="/dashboard/facts/{employer.pk}/">fact {employer.pk}</a>' in page
    assert f'href="/dashboard/facts/{city.pk}/">fact {city.pk}</a>' in page
    assert "The text adds no fact." in page
    assert "Apply these changes" in page
    assert f'action="{APPLY}"' in page
    assert counts() == before
    assert (refreshed(employer).status, refreshed(city).status) == (Status.CURRENT,) * 2


def test_apply_supersedes_both_facts_citing_the_operator_and_the_evidence(staff_client, agent):
    employer, city = seed(agent)
    response = staff_client.post(APPLY, form())
    assert response.status_code == 200
    current = {f.predicate: f for f in Fact.objects.filter(agent=agent, user_ref="ana").current()}
    assert (current["employer"].value, current["city"].value) == ("Anthropic", "Surabaya")
    assert (refreshed(employer).status, refreshed(city).status) == (Status.HISTORY,) * 2
    for predicate, evidence in [
        ("employer", "for my new job at Anthropic"),
        ("city", "I just moved to Surabaya"),
    ]:
        source = FactSource.objects.get(fact=current[predicate])
        assert (source.kind, source.operator, source.excerpt) == (
            SourceKind.OPERATOR,
            "ops",
            evidence,
        )
        assert f'href="/dashboard/facts/{current[predicate].pk}/">' in response.text
    assert response.text.count('<td data-label="Outcome">superseded</td>') == 2
    assert {refreshed(employer).status_changed_by, current["city"].status_changed_by} == {
        "operator:ops"
    }


def test_manager_applies_in_the_members_mount(manager_client, agent):
    employer, _city = seed(agent)
    response = manager_client.post(APPLY.replace("/dashboard/", "/app/", 1), form())
    assert response.status_code == 200
    assert "/dashboard/" not in response.text
    new = Fact.objects.get(agent=agent, predicate="employer", status=Status.CURRENT)
    assert f'href="/app/facts/{new.pk}/">Anthropic</a>' in response.text
    assert refreshed(employer).status == Status.HISTORY
    assert FactSource.objects.filter(kind=SourceKind.OPERATOR, operator="mia").count() == 2


def test_viewer_may_preview_but_applying_is_403_and_changes_nothing(viewer_client, agent):
    employer, city = seed(agent)
    preview = viewer_client.post(PREVIEW.replace("/dashboard/", "/app/", 1), form())
    assert preview.status_code == 200
    assert "Google → <strong>Anthropic</strong>" in preview.text
    assert "Apply these changes" not in preview.text
    assert "a workspace manager can apply this" in preview.text
    before = counts()
    response = viewer_client.post(APPLY.replace("/dashboard/", "/app/", 1), form())
    assert response.status_code == 403
    assert counts() == before
    assert (refreshed(employer).status, refreshed(city).status) == (Status.CURRENT,) * 2


@pytest.mark.parametrize("url", [PREVIEW, APPLY])
@pytest.mark.parametrize(
    ("fields", "message"),
    [
        ({"text": "   "}, "text: must not be empty"),
        (
            {"text": "a" * (TEXT_MAX_CHARS + 1)},
            f"text: is {TEXT_MAX_CHARS + 1} characters; the limit is {TEXT_MAX_CHARS}",
        ),
        ({"user": ""}, "user: must not be empty"),
        ({"user": "u" * 256}, "user: is 256 characters; the limit is 255"),
        ({"agent": " support-bot"}, "agent_id: must not start or end with whitespace"),
    ],
)
def test_bad_input_is_a_400_with_the_domain_message_and_writes_nothing(
    staff_client, agent, url, fields, message
):
    seed(agent)
    before = counts()
    response = staff_client.post(url, form(**fields))
    assert response.status_code == 400
    assert f'role="alert">{message}</' in response.text
    assert "Apply these changes" not in response.text
    assert counts() == before


def test_htmx_gets_the_panel_and_its_errors_not_the_whole_page(staff_client, agent):
    seed(agent)
    preview = staff_client.post(PREVIEW, form(), headers=HTMX)
    assert preview.status_code == 200
    assert preview.text.lstrip().startswith('<section id="check-panel"')
    assert "<!doctype html>" not in preview.text
    assert "Google → <strong>Anthropic</strong>" in preview.text
    assert "HX-Request" in preview["Vary"]
    applied = staff_client.post(APPLY, form(), headers=HTMX)
    assert applied.text.lstrip().startswith('<section id="check-panel"')
    assert "Applied 2 changes to the facts of user ana" in applied.text
    invalid = staff_client.post(PREVIEW, form(text=""), headers=HTMX)
    assert invalid.status_code == 400
    assert invalid.text.lstrip().startswith('<section id="check-panel"')
    assert "text: must not be empty" in invalid.text


def test_without_htmx_the_preview_and_the_result_are_whole_pages(staff_client, agent):
    seed(agent)
    preview = staff_client.post(PREVIEW, form())
    assert "<!doctype html>" in preview.text
    assert "← Facts of support-bot" in preview.text
    applied = staff_client.post(APPLY, form())
    assert "<!doctype html>" in applied.text
    assert 'href="/dashboard/facts/?agent=acme/support-bot&amp;user=ana"' in applied.text


def test_the_apply_form_carries_the_same_agent_user_and_text(staff_client, agent):
    seed(agent)
    text = "  I just moved to Surabaya\nfor my new job at Anthropic  "
    page = staff_client.post(PREVIEW, form(text=text)).text
    apply_form = page[page.index(f'action="{APPLY}"') :]
    assert '<input type="hidden" name="agent" value="acme/support-bot">' in apply_form
    assert '<input type="hidden" name="user" value="ana">' in apply_form
    assert f'<textarea name="text" hidden>\n{text}</textarea>' in apply_form


def test_an_ending_and_a_dated_new_fact_are_shown_as_such(staff_client, agent):
    state(agent, "Google", user="ana")
    ending = staff_client.post(PREVIEW, form("I left Google")).text
    assert "Google → <em>ends</em>" in ending
    dated = staff_client.post(PREVIEW, form("I will start at Canva on 1 July 2030", user="bo"))
    assert "<strong>Canva</strong>" in dated.text
    assert ">2030-07-01</time>" in dated.text
    # A dated change of a held fact says when it takes effect too.
    change = staff_client.post(PREVIEW, form("I will start at Canva on 1 July 2030")).text
    contradicted = change[change.index("check-contradicted") :]
    assert "Google → <strong>Canva</strong>" in contradicted
    assert ">2030-07-01</time>" in contradicted


def test_a_text_that_changes_nothing_offers_no_apply(staff_client, agent):
    seed(agent)
    page = staff_client.post(PREVIEW, form("Do you think I should relocate to Porto?")).text
    assert "The text contradicts no fact." in page
    assert "Apply these changes" not in page


def test_another_workspace_or_unknown_agent_is_404_and_writes_nothing(manager_client, other_agent):
    state(other_agent, "Globex", user="ana")
    before = counts()
    app = "/app/facts/check/"
    assert manager_client.get(app, {"agent": "globex-bot"}).status_code == 404
    theirs = form(agent="globex-bot")
    assert manager_client.post(f"{app}preview/", theirs).status_code == 404
    assert manager_client.post(f"{app}apply/", theirs).status_code == 404
    assert manager_client.post(f"{app}apply/", form(agent="nobody")).status_code == 404
    assert counts() == before


def test_check_pages_answer_only_their_methods(staff_client, agent):
    assert staff_client.post(CHECK, form()).status_code == 405
    assert staff_client.get(PREVIEW).status_code == 405
    assert staff_client.get(APPLY).status_code == 405


def test_with_no_agent_the_check_page_sends_to_the_facts_tab(staff_client, db):
    response = staff_client.get(CHECK)
    assert (response.status_code, response["Location"]) == (302, "/dashboard/facts/")


def test_without_an_agent_named_the_first_visible_one_is_checked(manager_client, agent):
    page = manager_client.get("/app/facts/check/").text
    assert 'name="agent" value="support-bot"' in page
