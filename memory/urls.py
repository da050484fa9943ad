"""The dashboard's Memories, Sessions, Entities list, Maintenance and Quotas pages, mounted twice
like facts.urls: under /dashboard/memory/ (instance namespace "memory") and /app/memory/
(see dewee.dashboard's APP_MOUNT)."""

from django.urls import path

from memory import views, views_entities, views_quotas, views_sessions

app_name = "memory"

urlpatterns = [
    path("", views.memories_list, name="list"),
    path("export/", views.memories_export, name="export"),
    path("sessions/", views_sessions.sessions_list, name="sessions"),
    path("sessions/<int:session_id>/", views_sessions.session_page, name="session"),
    path("maintenance/", views.maintenance, name="maintenance"),
    path("maintenance/run/", views.maintenance_run, name="maintenance-run"),
    path("maintenance/jobs/<str:job>/", views.maintenance_job, name="maintenance-job"),
    path("quotas/", views_quotas.quotas_page, name="quotas"),
    path("quotas/set/", views_quotas.quota_set, name="quota-set"),
    path("entities/", views_entities.entities_list, name="entities"),
    path("<int:memory_id>/", views.memory_page, name="detail"),
    path("<int:memory_id>/edit/", views.memory_edit, name="edit"),
    path("<int:memory_id>/delete/", views.memory_delete, name="delete"),
]
