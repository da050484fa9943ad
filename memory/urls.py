"""The dashboard's Memories, Sessions, Entities list, Maintenance and Quotas pages, mounted twice
like facts.urls: under /dashboard/memory/ (instance namespace "memory") and /app/memory/
(see dewee.dashboard's APP_MOUNT)."""

from django.urls import path

from memory.views import entities, maintenance, memories, quotas, sessions

app_name = "memory"

urlpatterns = [
    path("", memories.memories_list, name="list"),
    path("export/", memories.memories_export, name="export"),
    path("sessions/", sessions.sessions_list, name="sessions"),
    path("sessions/<int:session_id>/", sessions.session_page, name="session"),
    path("maintenance/", maintenance.maintenance, name="maintenance"),
    path("maintenance/run/", maintenance.maintenance_run, name="maintenance-run"),
    path("maintenance/jobs/<str:job>/", maintenance.maintenance_job, name="maintenance-job"),
    path("quotas/", quotas.quotas_page, name="quotas"),
    path("quotas/set/", quotas.quota_set, name="quota-set"),
    path("entities/", entities.entities_list, name="entities"),
    path("<int:memory_id>/", memories.memory_page, name="detail"),
    path("<int:memory_id>/edit/", memories.memory_edit, name="edit"),
    path("<int:memory_id>/delete/", memories.memory_delete, name="delete"),
]
