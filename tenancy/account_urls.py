"""A person's own account: invitations' sign-in links and the workspace switcher, under
/accounts/ next to Django's sign-in pages."""

from django.urls import path

from tenancy import account_views

urlpatterns = [
    path("invite/<str:uid>/<str:token>/", account_views.invite_accept, name="invite_accept"),
    path("invite/password/", account_views.invite_password, name="invite_password"),
    path("workspace/", account_views.switch_workspace, name="switch_workspace"),
]
