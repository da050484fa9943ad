"""What the admin pages of every app share: who the operator is, as the audit log names
them; record pages that are only viewed; and list filters by workspace and by agent."""

from typing import Any

from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from tenancy.audit import operator_actor
from tenancy.models import Agent, Workspace


def admin_actor(request: HttpRequest) -> str:
    """Who did it, as the audit log records operators."""
    return operator_actor(request.user.get_username())


class ReadOnlyAdmin(admin.ModelAdmin):
    """Records: viewed, never added, changed or deleted here (no Save or Delete buttons)."""

    def has_add_permission(self, request: object) -> bool:
        return False

    def has_change_permission(self, request: object, obj: object = None) -> bool:
        return False

    def has_delete_permission(self, request: object, obj: object = None) -> bool:
        return False


class WorkspaceListFilter(admin.SimpleListFilter):
    """By the workspace of the row's agent (``agent_path``: how the row reaches it)."""

    title = "workspace"
    parameter_name = "workspace"
    agent_path = "agent"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        return [(str(pk), slug) for pk, slug in Workspace.objects.values_list("pk", "slug")]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None or not value.isdigit():
            return queryset
        return queryset.filter(**{f"{self.agent_path}__workspace_id": int(value)})


class AgentListFilter(admin.SimpleListFilter):
    """By agent, named ``workspace/agent`` (agent ids repeat across workspaces); one query
    for the whole list, not one per agent."""

    title = "agent"
    parameter_name = "agent"
    agent_path = "agent"

    def lookups(self, request: HttpRequest, model_admin: Any) -> list[tuple[str, str]]:
        agents = Agent.objects.select_related("workspace").order_by("workspace__slug", "agent_id")
        return [(str(agent.pk), agent.qualified_id) for agent in agents]

    def queryset(self, request: HttpRequest, queryset: QuerySet) -> QuerySet:
        value = self.value()
        if value is None or not value.isdigit():
            return queryset
        return queryset.filter(**{f"{self.agent_path}_id": int(value)})
