"""The dashboard's Facts pages, mounted under /dashboard/."""

from django.urls import path
from django.views.generic import RedirectView

from facts import views

app_name = "facts"

urlpatterns = [
    path("", RedirectView.as_view(pattern_name="facts:list", permanent=False), name="home"),
    path("facts/", views.facts_list, name="list"),
    path("facts/forget/", views.facts_forget, name="forget"),
    path("facts/<int:fact_id>/", views.fact_page, name="detail"),
    path("facts/<int:fact_id>/resolve/", views.fact_resolve, name="resolve"),
    path("facts/<int:fact_id>/delete/", views.fact_delete, name="delete"),
]
