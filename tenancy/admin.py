"""Workspaces, members, agents, keys (their pages: tenancy.key_admin) and the audit log in
the Django admin. Every change goes through the services the other interfaces use."""

from typing import Any

from django import forms
from django.contrib import admin
from django.db.models import QuerySet
from django.http import HttpRequest

from dewee.errors import InvalidInput
from memory.exceptions import InvalidMemoryPolicy
from memory.services.policy import clean_policy, set_memory_policy
from tenancy.admin_common import AgentListFilter, ReadOnlyAdmin, WorkspaceListFilter, admin_actor
from tenancy.exceptions import InvalidAgentId
from tenancy.key_admin import ApiKeyAdmin
from tenancy.models import Agent, ApiKey, AuditEvent, ErasureReceipt, Workspace, WorkspaceMember
from tenancy.services import (
    add_member,
    change_member_role,
    clean_workspace_slug,
    create_agent,
    create_workspace,
    remove_member,
    rename_agent,
)
from tenancy.validation import clean_new_agent_id

WORKSPACE_NO_DELETE_NOTE = (
    "Workspaces are not deleted here: a deletion would take the workspace's audit log and "
    "erasure receipts with it, and its agents are never deleted. To empty a workspace, "
    "revoke its API keys (`dewee keys revoke KEY_ID`), remove its members (the dashboard's "
    "Members page), and forget what its agents hold: their memories "
    "(POST /v1/memories/forget) and their facts (POST /v1/facts/forget, or "
    "`dewee memory facts forget --agent AGENT_ID --user USER --yes`)."
)


class WorkspaceAdminForm(forms.ModelForm):
    # No Meta: the admin builds the form for Workspace with the fields it shows.
    def clean_slug(self) -> str:
        # Checked here to show the message on the form; create_workspace checks it again.
        try:
            return clean_workspace_slug(self.cleaned_data["slug"])
        except InvalidInput as exc:
            raise forms.ValidationError(exc.message.removeprefix(f"{exc.field}: ")) from None


@admin.register(Workspace)
class WorkspaceAdmin(admin.ModelAdmin):
    """A new workspace is made by create_workspace, as by the CLI; its slug cannot be
    changed afterwards (no service changes one: see clean_workspace_slug), only its name.
    Workspaces cannot be deleted here (see WORKSPACE_NO_DELETE_NOTE)."""

    form = WorkspaceAdminForm
    list_display = ["slug", "name", "created_at"]
    search_fields = ["slug", "name"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        return ["slug"] if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            obj.save(update_fields=["name"])
            return
        workspace = create_workspace(slug=obj.slug, name=obj.name)
        obj.pk, obj.name, obj.created_at = workspace.pk, workspace.name, workspace.created_at

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        fields = self.get_fields(request, obj)
        return [(None, {"fields": fields, "description": WORKSPACE_NO_DELETE_NOTE})]


@admin.register(WorkspaceMember)
class WorkspaceMemberAdmin(admin.ModelAdmin):
    """Adds, role changes and removals go through the same services as the dashboard's
    Members page."""

    list_display = ["user", "workspace", "role", "created_at"]
    list_filter = ["role", "workspace"]
    search_fields = ["user__username", "workspace__slug"]
    autocomplete_fields = ["workspace"]
    raw_id_fields = ["user"]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        # Moving a membership to another person or workspace is a removal and an add.
        return ["user", "workspace"] if obj is not None else []

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        if change:
            change_member_role(member=obj, role=obj.role, actor=admin_actor(request))
            return
        member = add_member(
            workspace=obj.workspace, user=obj.user, role=obj.role, actor=admin_actor(request)
        )
        obj.pk, obj.created_at = member.pk, member.created_at

    def delete_model(self, request: HttpRequest, obj: Any) -> None:
        remove_member(member=obj, actor=admin_actor(request))

    def delete_queryset(self, request: HttpRequest, queryset: QuerySet) -> None:
        for member in queryset:
            remove_member(member=member, actor=admin_actor(request))


POLICY_HELP = (
    "Changed as PUT /v1/agents/{agent_id}/memory_policy changes it: checked whole, and "
    "audited with you as the operator."
)
NO_DELETE_NOTE = (
    "Agents are not deleted here: a deletion would take their memories, sessions and facts "
    "without the audit events and erasure receipts that forgetting leaves, and no command "
    "erases a whole agent. To erase what an agent holds, forget its memories "
    "(POST /v1/memories/forget) and its facts (POST /v1/facts/forget, or "
    "`dewee memory facts forget --agent AGENT_ID --user USER --yes`)."
)


class AgentAdminForm(forms.ModelForm):
    # No Meta: the admin builds the form for Agent with the fields it shows.
    def clean_metadata(self) -> Any:
        metadata = self.cleaned_data["metadata"]
        if self.instance.pk is None and not isinstance(metadata, dict | None):
            # create_agent refuses it too; checked here to show the message on the form.
            raise forms.ValidationError("must be an object")
        return metadata

    def clean_agent_id(self) -> str:
        # Checked here to show the message on the form; create_agent or rename_agent checks
        # it again.
        agent_id = self.cleaned_data["agent_id"]
        renamed = self.instance.pk is not None
        if renamed and agent_id == self.instance.agent_id:
            return agent_id  # an older agent keeps its id, '/' and all, until renamed
        try:
            agent_id = clean_new_agent_id(agent_id)
        except InvalidAgentId as exc:
            raise forms.ValidationError(exc.message) from None
        if renamed:
            others = Agent.objects.in_workspace(self.instance.workspace)
            if others.exclude(pk=self.instance.pk).with_id(agent_id) is not None:
                raise forms.ValidationError("This workspace already has an agent with this id.")
        return agent_id

    def clean_memory_policy(self) -> dict[str, Any]:
        # Checked here to show the message on the form; set_memory_policy checks it again.
        try:
            return clean_policy(self.cleaned_data["memory_policy"])
        except InvalidMemoryPolicy as exc:
            raise forms.ValidationError(exc.message) from None


@admin.register(Agent)
class AgentAdmin(admin.ModelAdmin):
    """Where an operator renames an agent, e.g. one whose id holds a '/' (accepted before
    new ids were refused one), which some of the API's paths cannot name. A new agent is
    made by create_agent, a rename goes through rename_agent (audited; keys limited to the
    old id follow it), a policy change through set_memory_policy. What the server keeps
    for itself (the embedding model, the vectors' version) and the workspace (moving an
    agent would hand it to another workspace's keys) are shown, not edited. Agents cannot
    be deleted here (see NO_DELETE_NOTE)."""

    form = AgentAdminForm
    list_display = ["agent_id", "workspace", "name", "created_at"]
    list_filter = ["workspace"]
    search_fields = ["agent_id", "name"]
    list_select_related = ["workspace"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        # A new agent has what create_agent takes, and a policy; the rest starts empty.
        if obj is None:
            return ["workspace", "agent_id", "name", "metadata", "memory_policy"]
        return super().get_fields(request, obj)

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> list[str]:
        if obj is None:
            return []
        return ["workspace", "embedding_model", "embedding_dim", "memory_version"]

    def get_fieldsets(self, request: HttpRequest, obj: Any = None) -> Any:
        return [(None, {"fields": self.get_fields(request, obj), "description": NO_DELETE_NOTE})]

    def get_form(
        self, request: HttpRequest, obj: Any = None, change: bool = False, **kwargs: Any
    ) -> Any:
        form = super().get_form(request, obj, change, **kwargs)
        if "memory_policy" in form.base_fields:
            form.base_fields["memory_policy"].help_text = POLICY_HELP
        return form

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        policy = obj.memory_policy
        if change:
            # Only the plain fields are saved here: the id and the policy have services.
            obj.save(update_fields=[f for f in ("name", "metadata") if f in form.changed_data])
            agent = rename_agent(agent=obj, agent_id=obj.agent_id, actor=admin_actor(request))
            obj.agent_id, obj.memory_policy = agent.agent_id, agent.memory_policy
        else:
            agent = create_agent(
                workspace=obj.workspace, agent_id=obj.agent_id, name=obj.name, metadata=obj.metadata
            )
            obj.pk, obj.created_at = agent.pk, agent.created_at
        if policy != agent.memory_policy:
            set_memory_policy(agent=agent, policy=policy, actor=admin_actor(request))


admin.site.register(ApiKey, ApiKeyAdmin)


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id", "agent"]
    list_filter = ["action", "target_type", WorkspaceListFilter, AgentListFilter]
    search_fields = ["actor", "target_id"]
    list_select_related = ["agent__workspace"]


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyAdmin):
    list_display = ["id", "agent_ref", "scope", "counts", "actor", "created_at"]
