"""Background maintenance runs and feedback in the Django admin: records, read-only."""

from django.contrib import admin

from memory.models import MaintenanceRun, MemoryFeedback
from tenancy.admin import ReadOnlyAdmin


@admin.register(MaintenanceRun)
class MaintenanceRunAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "job", "trigger", "status", "duration_ms", "touched", "agent"]
    list_filter = ["job", "status", "trigger"]
    list_select_related = ["agent"]


@admin.register(MemoryFeedback)
class MemoryFeedbackAdmin(ReadOnlyAdmin):
    list_display = [
        "created_at",
        "kind",
        "memory",
        "importance_before",
        "importance_after",
        "actor",
    ]
    list_filter = ["kind"]
    search_fields = ["actor", "note"]
    raw_id_fields = ["memory"]
    list_select_related = ["memory"]
