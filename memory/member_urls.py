"""The Members page, for staff operators: mounted only under /dashboard/members/."""

from django.urls import path

from memory import member_views

app_name = "members"

urlpatterns = [
    path("", member_views.members_page, name="list"),
    path("add/", member_views.member_add, name="add"),
    path("<int:member_id>/role/", member_views.member_role, name="role"),
    path("<int:member_id>/remove/", member_views.member_remove, name="remove"),
]
