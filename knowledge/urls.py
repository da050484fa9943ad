"""The person page and an entity's page, mounted twice beside memory's pages: under
/dashboard/memory/ (instance namespace "knowledge") and /app/memory/ (see dewee.dashboard's
APP_MOUNT)."""

from django.urls import path

from knowledge import views_entities, views_people

app_name = "knowledge"

urlpatterns = [
    path("entities/<int:entity_id>/", views_entities.entity_page, name="entity"),
    path("people/", views_people.person_page, name="person"),
    path("people/forget/", views_people.person_forget, name="person_forget"),
    path("people/export/", views_people.person_export, name="person_export"),
]
