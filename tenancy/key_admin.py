"""API keys in the Django admin: created by create_api_key (the secret shown once),
changed by update_api_key, revoked by revoke_api_key after a confirmation."""

from typing import Any

from django import forms
from django.contrib import admin
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest
from django.template.response import TemplateResponse
from django.utils import timezone

from dewee.errors import InvalidInput
from tenancy.admin_common import admin_actor
from tenancy.models import ApiKey, Scope
from tenancy.services import (
    DEFAULT_KEY_SCOPES,
    clean_key_agent_ids,
    clean_key_scopes,
    create_api_key,
    revoke_api_key,
    update_api_key,
)


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
