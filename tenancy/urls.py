"""The Members page: mounted under /dashboard/members/ (staff) and /app/members/
(a workspace's managers)."""

from django.urls import path

from tenancy import views

app_name = "members"

urlpatterns = [
    path("", views.members_page, name="list"),
    path("add/", views.member_add, name="add"),
    path("<int:member_id>/role/", views.member_role, name="role"),
    path("<int:member_id>/invite/", views.member_invite, name="invite"),
    path("<int:member_id>/remove/", views.member_remove, name="remove"),
]
