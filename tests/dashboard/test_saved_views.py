"""Saved views of the dashboard's lists: the service's rules (a clean name, unique per person
and page, only the page's own filters kept), saving and deleting through the dashboard with
and without JavaScript, each person's views theirs alone, and refusals that write nothing."""

import pytest
from django.test import Client

from dewee.errors import InvalidInput
from tenancy.models import MemberRole, SavedView
from tenancy.preferences import SAVED_VIEWS_MAX, VIEW_NAME_MAX_CHARS
from tenancy.services import clean_view_query, delete_saved_view, save_view
from tests.dashboard.conftest import app, member, signed_in
from tests.factories import state

pytestmark = pytest.mark.django_db

SAVE = "/dashboard/views/save/"
FACTS = "/dashboard/facts/"
FACT_PARAMS = frozenset({"agent", "user", "status", "sort"})


def saved(user) -> list[tuple[str, str, str]]:
    return list(SavedView.objects.filter(user=user).values_list("page", "name", "query"))


# --- the service ---


def test_a_view_keeps_a_trimmed_name_and_only_the_pages_own_filters(staff):
    view = save_view(
        user=staff,
        page="facts:list",
        query="agent=acme%2Fbot&status=disputed&cursor=ZjQy&debug=1&user=&sort=recorded",
        name="  Acme   disputes, oldest first ",
        params=FACT_PARAMS,
    )
    assert (view.name, view.query) == (
        "Acme disputes, oldest first",
        "agent=acme%2Fbot&status=disputed&sort=recorded",
    )


@pytest.mark.parametrize(
    ("name", "message"),
    [("", "Give the view a name."), ("   ", "Give the view a name."), (None, "Give")],
)
def test_a_view_needs_a_name(staff, name, message):
    with pytest.raises(InvalidInput) as refused:
        save_view(user=staff, page="facts:list", query="", name=name, params=FACT_PARAMS)
    assert refused.value.details == {"field": "name"}
    assert message in refused.value.message
    assert saved(staff) == []


def test_a_name_has_a_length_limit(staff):
    longest = "x" * VIEW_NAME_MAX_CHARS
    save_view(user=staff, page="facts:list", query="", name=longest, params=FACT_PARAMS)
    with pytest.raises(InvalidInput) as refused:
        save_view(user=staff, page="facts:list", query="", name=longest + "y", params=FACT_PARAMS)
    assert f"{VIEW_NAME_MAX_CHARS} characters" in refused.value.message


def test_a_name_is_unique_per_person_and_page_in_any_case(staff, manager):
    save_view(user=staff, page="facts:list", query="", name="Mine", params=FACT_PARAMS)
    with pytest.raises(InvalidInput) as refused:
        save_view(user=staff, page="facts:list", query="a=1", name="MINE", params=FACT_PARAMS)
    assert "already have a view named" in refused.value.message
    # Another page, or another person, may use it.
    save_view(user=staff, page="memory:list", query="", name="Mine", params=FACT_PARAMS)
    save_view(user=manager, page="facts:list", query="", name="Mine", params=FACT_PARAMS)
    assert len(saved(staff)) == 2
    assert len(saved(manager)) == 1


def test_a_person_keeps_a_bounded_number_of_views(staff, monkeypatch):
    monkeypatch.setattr("tenancy.services.saved_views.SAVED_VIEWS_MAX", 2)
    for name in ("one", "two"):
        save_view(user=staff, page="facts:list", query="", name=name, params=FACT_PARAMS)
    with pytest.raises(InvalidInput) as refused:
        save_view(user=staff, page="facts:list", query="", name="three", params=FACT_PARAMS)
    assert "delete one" in refused.value.message
    assert len(saved(staff)) == 2
    assert SAVED_VIEWS_MAX >= 50  # enough for real use, small enough for the palette


def test_a_query_too_long_to_keep_is_refused():
    with pytest.raises(InvalidInput) as refused:
        clean_view_query("user=" + "u" * 3000, params={"user"})
    assert refused.value.details == {"field": "query"}


def test_deleting_a_view_deletes_only_it(staff):
    keep = save_view(user=staff, page="facts:list", query="", name="a", params=FACT_PARAMS)
    gone = save_view(user=staff, page="facts:list", query="", name="b", params=FACT_PARAMS)
    delete_saved_view(view=gone)
    assert list(SavedView.objects.values_list("pk", flat=True)) == [keep.pk]


# --- the dashboard ---


def test_saving_without_js_goes_to_the_saved_view_and_lists_it(staff_client, staff, agent):
    state(agent, "Acme")
    page = staff_client.get(FACTS, {"status": "disputed", "sort": "recorded"}).text
    assert 'id="save-view"' in page
    assert (
        '<input type="hidden" name="query" value="status=disputed&amp;sort=recorded" '
        'form="save-view">'
    ) in page
    response = staff_client.post(
        SAVE,
        {
            "page": "facts:list",
            "name": "Disputes, oldest first",
            "query": "status=disputed&sort=recorded&cursor=abc",
        },
    )
    assert response.status_code == 302
    assert response["Location"] == "/dashboard/facts/?status=disputed&sort=recorded"
    assert saved(staff) == [
        ("facts:list", "Disputes, oldest first", "status=disputed&sort=recorded")
    ]
    listed = staff_client.get(response["Location"]).text
    assert "Disputes, oldest first" in listed
    assert 'aria-current="true">Disputes, oldest first</a>' in listed  # the one shown
    other = staff_client.get(FACTS).text
    assert (
        'href="/dashboard/facts/?status=disputed&amp;sort=recorded">Disputes, oldest first</a>'
        in other
    )


def test_a_bad_name_shows_the_form_again_and_saves_nothing(staff_client, staff):
    save_view(user=staff, page="facts:list", query="", name="Taken", params=FACT_PARAMS)
    for name, reason in [("taken", "already have a view named"), ("  ", "Give the view a name")]:
        response = staff_client.post(
            SAVE, {"page": "facts:list", "name": name, "query": "status=current"}
        )
        assert response.status_code == 400
        assert reason in response.text
        assert 'value="status=current"' in response.text  # the filters kept, to try again
    assert saved(staff) == [("facts:list", "Taken", "")]


def test_a_page_that_is_not_a_list_cannot_be_saved(staff_client, staff):
    for page in ("facts:detail", "facts:review", "nope", "admin:index", ""):
        response = staff_client.post(SAVE, {"page": page, "name": "x", "query": ""})
        assert response.status_code == 400
    assert saved(staff) == []


def test_saving_needs_the_csrf_token(staff):
    client = Client(enforce_csrf_checks=True)
    client.force_login(staff)
    response = client.post(SAVE, {"page": "facts:list", "name": "x", "query": ""})
    assert response.status_code == 403
    assert saved(staff) == []


def test_a_viewer_saves_views_too_in_the_app_mount(viewer_client, viewer, agent):
    response = viewer_client.post(
        app(SAVE), {"page": "memory:list", "name": "Mine", "query": "memory_type=semantic"}
    )
    assert response["Location"] == "/app/memory/?memory_type=semantic"
    assert saved(viewer) == [("memory:list", "Mine", "memory_type=semantic")]
    page = viewer_client.get("/app/memory/").text
    assert 'href="/app/memory/?memory_type=semantic">Mine</a>' in page


def test_delete_asks_first_then_deletes_and_goes_back_to_the_list(staff_client, staff):
    view = save_view(
        user=staff, page="facts:list", query="status=current", name="x", params=FACT_PARAMS
    )
    url = f"/dashboard/views/{view.pk}/delete/"
    confirm = staff_client.get(url)
    assert confirm.status_code == 200
    assert "Delete the saved view “x”?" in confirm.text
    assert saved(staff)  # asking deletes nothing
    response = staff_client.post(url)
    assert (response.status_code, response["Location"]) == (302, "/dashboard/facts/")
    assert saved(staff) == []
    assert staff_client.post(url).status_code == 404  # gone


def test_nobody_sees_or_deletes_another_persons_views(
    staff_client, staff, manager_client, manager, django_user_model, workspace
):
    mine = save_view(user=staff, page="facts:list", query="", name="Staff only", params=FACT_PARAMS)
    theirs = save_view(
        user=manager, page="facts:list", query="", name="Managers own", params=FACT_PARAMS
    )
    assert "Managers own" not in staff_client.get(FACTS).text
    assert "Staff only" not in manager_client.get(app(FACTS)).text
    assert "Staff only" not in manager_client.get("/app/views/").text
    for client, view, mount in [(staff_client, theirs, "dashboard"), (manager_client, mine, "app")]:
        url = f"/{mount}/views/{view.pk}/delete/"
        assert client.get(url).status_code == 404
        assert client.post(url).status_code == 404
    another_viewer = signed_in(member(django_user_model, workspace, MemberRole.VIEWER, "vera"))
    assert another_viewer.post(f"/app/views/{theirs.pk}/delete/").status_code == 404
    assert SavedView.objects.count() == 2


def test_the_palette_lists_every_page_of_ones_views(staff_client, staff):
    save_view(
        user=staff, page="facts:list", query="status=disputed", name="Waiting", params=FACT_PARAMS
    )
    save_view(user=staff, page="memory:sessions", query="", name="Talks", params=FACT_PARAMS)
    items = staff_client.get("/dashboard/views/").text
    assert 'href="/dashboard/facts/?status=disputed" data-page="Facts">Waiting</a>' in items
    assert 'href="/dashboard/memory/sessions/" data-page="Sessions">Talks</a>' in items


def test_every_list_page_offers_to_save_its_view(staff_client, agent):
    pages = [
        "/dashboard/facts/",
        "/dashboard/changes/",
        "/dashboard/memory/",
        "/dashboard/memory/sessions/",
        "/dashboard/memory/entities/",
        "/dashboard/audit/",
        "/dashboard/audit/receipts/",
        "/dashboard/members/",
        "/dashboard/keys/",
        "/dashboard/memory/quotas/",
        "/dashboard/memory/people/",
    ]
    for url in pages:
        page = staff_client.get(url).text
        assert 'id="save-view"' in page, url
        assert 'name="query"' in page, url
    assert 'id="save-view"' not in staff_client.get("/dashboard/review/").text


def test_reading_a_list_with_views_writes_nothing(staff_client, staff, agent):
    save_view(user=staff, page="facts:list", query="", name="All", params=FACT_PARAMS)
    before = list(SavedView.objects.values_list("pk", "name", "query", "page"))
    staff_client.get(FACTS)
    staff_client.get("/dashboard/views/")
    staff_client.get(f"/dashboard/views/{SavedView.objects.get().pk}/delete/")
    assert list(SavedView.objects.values_list("pk", "name", "query", "page")) == before
