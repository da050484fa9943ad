from django.contrib import admin

from memory.models import (
    Agent,
    ApiKey,
    AuditEvent,
    ErasureReceipt,
    Workspace,
    WorkspaceMember,
)


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]


@admin.register(WorkspaceMember)
class WorkspaceMemberAdmin(admin.ModelAdmin):
    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = ["role", "workspace"]
    search_fields = ["user__username", "workspace__slug"]
    autocomplete_fields = ["workspace"]
    raw_id_fields = ["user"]


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    list_display = ["agent_id", "workspace", "name", "created_at"]
    list_filter = ["workspace"]
    search_fields = ["agent_id", "name"]


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    list_display = ["name", "workspace", "prefix", "created_at", "last_used_at", "revoked_at"]
    list_filter = ["workspace"]
    readonly_fields = ["prefix", "key_hash", "created_at", "last_used_at", "revoked_at"]

    def has_add_permission(self, request: object) -> bool:
        # Keys are created with `dewee keys create`, which shows the secret once.
        return False


class ReadOnlyAdmin(admin.ModelAdmin):
    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id", "agent"]
    list_filter = ["action", "target_type"]
    search_fields = ["actor", "target_id"]


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyAdmin):
    list_display = ["id", "agent_ref", "scope", "counts", "actor", "created_at"]
