"""A person's saved views: mounted under /dashboard/views/ (staff) and /app/views/ (members)."""

from django.urls import path

from tenancy import saved_view_views

app_name = "views"

urlpatterns = [
    path("", saved_view_views.views_list, name="list"),
    path("save/", saved_view_views.view_save, name="save"),
    path("<int:view_id>/delete/", saved_view_views.view_delete, name="delete"),
]
