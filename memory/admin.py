"""Memories, sessions, maintenance runs and feedback in the Django admin: records to look
up, read-only; every change goes through the services (the dashboard, the API, the CLI)."""

from django.contrib import admin
from django.urls import reverse
from django.utils.html import format_html

from memory.models import MaintenanceRun, Memory, MemoryFeedback, Session
from tenancy.admin_common import AgentListFilter, ReadOnlyAdmin, WorkspaceListFilter


@admin.register(Memory)
class MemoryAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "agent",
        "memory_type",
        "short_content",
        "importance",
        "user_ref",
        "session",
        "created_at",
    ]
    list_filter = [
        WorkspaceListFilter,
        AgentListFilter,
        "memory_type",
        ("session", admin.EmptyFieldListFilter),
    ]
    search_fields = ["content", "user_ref", "agent__agent_id"]
    list_select_related = ["agent__workspace", "session"]
    # The embedding is hundreds of numbers: of no use to read here.
    fields = [
        "agent",
        "session",
        "user_ref",
        "memory_type",
        "content",
        "importance",
        "metadata",
        "source_refs",
        "ttl_seconds",
        "expires_at",
        "access_count",
        "last_accessed_at",
        "created_at",
        "updated_at",
        "embedding_model",
    ]

    @admin.display(description="content")
    def short_content(self, memory: Memory) -> str:
        return memory.content if len(memory.content) <= 80 else f"{memory.content[:79]}…"


@admin.register(Session)
class SessionAdmin(ReadOnlyAdmin):
    list_display = [
        "id",
        "agent",
        "user_ref",
        "state",
        "started_at",
        "last_activity_at",
        "ended_reason",
        "its_memories",
    ]
    list_filter = [WorkspaceListFilter, AgentListFilter, "state", "ended_reason"]
    search_fields = ["user_ref", "summary", "agent__agent_id"]
    list_select_related = ["agent__workspace"]

    @admin.display(description="memories")
    def its_memories(self, session: Session) -> str:
        url = reverse("admin:memory_memory_changelist")
        return format_html('<a href="{}?session__id__exact={}">memories</a>', url, session.pk)


@admin.register(MaintenanceRun)
class MaintenanceRunAdmin(ReadOnlyAdmin):
    list_display = ["started_at", "job", "trigger", "status", "duration_ms", "touched", "agent"]
    list_filter = ["job", "status", "trigger"]
    list_select_related = ["agent__workspace"]


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
