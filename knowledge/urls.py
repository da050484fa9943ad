"""The pages that read memory and facts together: the first page and the inbox, the person
page, an entity's page and the one search box. Mounted twice: under /dashboard/ (instance
namespace "knowledge", for staff) and /app/ (see dewee.dashboard's APP_MOUNT, for workspace
members); a person's and an entity's pages sit beside memory's under memory/."""

from django.urls import path

from knowledge import views_entities, views_inbox, views_people, views_search

app_name = "knowledge"

urlpatterns = [
    path("", views_inbox.start, name="start"),
    path("inbox/", views_inbox.inbox_page, name="inbox"),
    path("search/", views_search.search_page, name="search"),
    path("memory/entities/<int:entity_id>/", views_entities.entity_page, name="entity"),
    path("memory/people/", views_people.person_page, name="person"),
    path("memory/people/forget/", views_people.person_forget, name="person_forget"),
    path("memory/people/export/", views_people.person_export, name="person_export"),
]
