"""Workspaces, members, agents, keys and the audit log in the Django admin. Every change
goes through the services the other interfaces use."""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from dewee.errors import InvalidInput
from memory.exceptions import InvalidMemoryPolicy
from memory.services.policy import clean_policy, set_memory_policy
from tenancy.audit import operator_actor
from tenancy.exceptions import InvalidAgentId
from tenancy.models import (
    Agent,
    ApiKey,
    AuditEvent,
    ErasureReceipt,
    Scope,
    Workspace,
    WorkspaceMember,
)
from tenancy.services import (
    DEFAULT_KEY_SCOPES,
    add_member,
    change_member_role,
    clean_key_agent_ids,
    clean_key_scopes,
    clean_workspace_slug,
    create_agent,
    create_api_key,
    create_workspace,
    remove_member,
    rename_agent,
    revoke_api_key,
    update_api_key,
)
from tenancy.validation import clean_new_agent_id


def admin_actor(request: HttpRequest) -> str:
    """Who did it, as the audit log records operators."""
    return operator_actor(request.user.get_username())


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


class ApiKeyAdminForm(forms.ModelForm):
    """A key's scopes and agents as people write them; checked here by the services' own
    rules to show a message on the form, and again by the service that saves them."""

    scopes = forms.MultipleChoiceField(
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=sorted(DEFAULT_KEY_SCOPES),
        help_text="read: look; write: store and change; admin: erase in bulk, merge, "
        "change policies, run maintenance.",
    )
    agents = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 3}),
        required=False,
        help_text="Agent ids, one per line or separated by commas; they need not exist yet. "
        "Empty: every agent of the workspace.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        if self.instance.pk is not None:
            self.initial["scopes"] = self.instance.scope_names()
            self.initial["agents"] = "\n".join(self.instance.agent_ids)

    def clean_scopes(self) -> list[str]:
        try:
            return sorted(clean_key_scopes(self.cleaned_data["scopes"]))
        except InvalidInput as exc:
            raise forms.ValidationError(exc.message) from None

    def clean_agents(self) -> list[str]:
        raw = self.cleaned_data["agents"].replace(",", "\n")
        try:
            return clean_key_agent_ids([line.strip() for line in raw.splitlines() if line.strip()])
        except InvalidInput as exc:
            raise forms.ValidationError(exc.message) from None

    def clean_expires_at(self) -> Any:
        expires_at = self.cleaned_data["expires_at"]
        changed = expires_at != self.instance.expires_at
        if expires_at is not None and changed and expires_at <= timezone.now():
            raise forms.ValidationError("must be in the future")
        return expires_at


@admin.action(description="Revoke the selected API keys")
def revoke_keys(modeladmin: Any, request: HttpRequest, queryset: QuerySet) -> Any:
    """Asks first: revoking stops every program that uses the key at once."""
    if request.POST.get("confirm") == "1":
        for key in queryset:
            revoke_api_key(key_id=key.pk, actor=admin_actor(request))
        modeladmin.message_user(request, f"Revoked {len(queryset)} API key(s).")
        return None
    return TemplateResponse(
        request,
        "admin/tenancy/revoke_keys.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Revoke API keys",
            "keys": queryset,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": modeladmin.model._meta,
        },
    )


@admin.register(ApiKey)
class ApiKeyAdmin(admin.ModelAdmin):
    """A key is created by create_api_key, whose secret the next page shows once; scope,
    agent and expiry changes go through update_api_key (audited), revocation through
    revoke_api_key (the action, after a confirmation). Keys are never deleted: their
    audit events name them."""

    form = ApiKeyAdminForm
    list_display = [
        "name",
        "workspace",
        "prefix",
        "scope_list",
        "agent_list",
        "expires_at",
        "last_used_at",
        "revoked_at",
    ]
    list_filter = ["workspace"]
    search_fields = ["name", "prefix"]
    actions = [revoke_keys]

    @admin.display(description="scopes")
    def scope_list(self, key: ApiKey) -> str:
        return ", ".join(key.scope_names())

    @admin.display(description="agents")
    def agent_list(self, key: ApiKey) -> str:
        return ", ".join(key.agent_ids) or "all"

    def get_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return ["workspace", "name", "scopes", "agents", "expires_at"]
        return [
            "workspace",
            "name",
            "prefix",
            "scopes",
            "agents",
            "expires_at",
            "created_at",
            "last_used_at",
            "revoked_at",
        ]

    def get_readonly_fields(self, request: HttpRequest, obj: Any = None) -> Any:
        if obj is None:
            return []
        return ["workspace", "name", "prefix", "created_at", "last_used_at", "revoked_at"]

    def has_delete_permission(self, request: HttpRequest, obj: Any = None) -> bool:
        return False

    def save_model(self, request: HttpRequest, obj: Any, form: Any, change: bool) -> None:
        data = form.cleaned_data
        if change:
            update_api_key(
                key_id=obj.pk,
                actor=admin_actor(request),
                scopes=data["scopes"],
                agent_ids=data["agents"],
                expires_at=data["expires_at"],
            )
            return
        key, secret = create_api_key(
            workspace=data["workspace"],
            name=data["name"],
            actor=admin_actor(request),
            scopes=data["scopes"],
            agent_ids=data["agents"],
            expires_at=data["expires_at"],
        )
        obj.pk, obj.created_at, obj.prefix = key.pk, key.created_at, key.prefix
        obj._secret = secret  # shown once by response_add, never stored

    def response_add(self, request: HttpRequest, obj: Any, post_url_continue: Any = None) -> Any:
        return TemplateResponse(
            request,
            "admin/tenancy/key_secret.html",
            {
                **self.admin_site.each_context(request),
                "title": "API key created",
                "key": obj,
                "secret": obj._secret,
                "opts": self.model._meta,
            },
        )


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


@admin.register(AuditEvent)
class AuditEventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "actor", "action", "target_type", "target_id", "agent"]
    list_filter = ["action", "target_type", WorkspaceListFilter, AgentListFilter]
    search_fields = ["actor", "target_id"]
    list_select_related = ["agent__workspace"]


@admin.register(ErasureReceipt)
class ErasureReceiptAdmin(ReadOnlyAdmin):
    list_display = ["id", "agent_ref", "scope", "counts", "actor", "created_at"]
