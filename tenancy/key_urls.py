"""The API keys page: mounted under /dashboard/keys/ (operators) and /app/keys/ (members)."""

from django.urls import path

from tenancy import key_views

app_name = "keys"

urlpatterns = [
    path("", key_views.keys_page, name="list"),
    path("create/", key_views.key_create, name="create"),
    path("<int:key_id>/revoke/", key_views.key_revoke, name="revoke"),
]
