"""Facts in the Django admin: read-only records; every change goes through the services."""

from collections.abc import Callable

from django import forms
from django.contrib import admin, messages
from django.contrib.admin import helpers
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse
from django.template.response import TemplateResponse
from django.utils.html import format_html_join

from dewee.errors import DeweeError
from facts import services
from facts.models import Fact, FactSource
from tenancy.admin_common import AgentListFilter, WorkspaceListFilter, admin_actor
from tenancy.validation import REASON_MAX_CHARS


class FactSourceInline(admin.TabularInline):
    model = FactSource
    extra = 0
    can_delete = False
    fields = ("kind", "reference", "operator", "excerpt", "verification", "confidence")
    readonly_fields = fields

    def has_add_permission(self, request: HttpRequest, obj: object = None) -> bool:
        return False


class DeleteReasonForm(forms.Form):
    reason = forms.CharField(max_length=REASON_MAX_CHARS, widget=forms.Textarea(attrs={"rows": 3}))


def _apply(
    request: HttpRequest,
    queryset: QuerySet[Fact],
    verb: str,
    operation: Callable[..., Fact],
    **kwargs: str,
) -> None:
    """Run one service per selected fact; each failure is reported, not fatal."""
    done, failed = 0, []
    for fact in queryset.select_related("agent__workspace"):
        try:
            operation(fact=fact, actor=admin_actor(request), **kwargs)
            done += 1
        except DeweeError as exc:
            failed.append(f"fact {fact.pk}: {exc.message}")
    if done:
        messages.success(request, f"{verb} {done} fact(s).")
    for failure in failed:
        messages.error(request, failure)


@admin.action(description="Accept selected disputed facts", permissions=["change"])
def accept_facts(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    _apply(request, queryset, "Accepted", services.resolve_fact, action=services.Resolution.ACCEPT)


@admin.action(description="Reject selected disputed facts", permissions=["change"])
def reject_facts(modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet) -> None:
    _apply(request, queryset, "Rejected", services.resolve_fact, action=services.Resolution.REJECT)


@admin.action(description="Delete selected facts (asks for a reason)", permissions=["change"])
def delete_facts(
    modeladmin: admin.ModelAdmin, request: HttpRequest, queryset: QuerySet
) -> HttpResponse | None:
    form = DeleteReasonForm(request.POST if "confirm" in request.POST else None)
    if form.is_valid():
        _apply(request, queryset, "Deleted", services.delete_fact, **form.cleaned_data)
        return None
    return TemplateResponse(
        request,
        "admin/facts/delete_reason.html",
        {
            **modeladmin.admin_site.each_context(request),
            "title": "Delete facts",
            "facts": queryset,
            "form": form,
            "action_checkbox_name": helpers.ACTION_CHECKBOX_NAME,
            "opts": modeladmin.model._meta,
        },
    )


@admin.register(Fact)
class FactAdmin(admin.ModelAdmin):
    list_display = [
        "id",
        "agent",
        "user_ref",
        "subject",
        "predicate",
        "qualifier",
        "value",
        "status",
        "verification",
        "confidence",
        "recorded_at",
    ]
    list_filter = [
        "status",
        WorkspaceListFilter,
        AgentListFilter,
        "verification",
        "predicate",
        "category",
    ]
    search_fields = ["value", "subject", "predicate", "user_ref", "agent__agent_id"]
    list_select_related = ["agent__workspace"]
    inlines = [FactSourceInline]
    actions = [accept_facts, reject_facts, delete_facts]
    readonly_fields = [f.name for f in Fact._meta.get_fields() if f.concrete and f.name != "id"] + [
        "slot_history"
    ]
    fieldsets = [
        (None, {"fields": ["agent", "user_ref", "subject", "predicate", "qualifier", "value"]}),
        (
            "Trust",
            {"fields": ["status", "verification", "confidence", "category"]},
        ),
        (
            "Time",
            {
                "fields": [
                    "valid_from",
                    "valid_to",
                    "recorded_at",
                    "last_confirmed_at",
                    "believed_from",
                    "believed_until",
                ]
            },
        ),
        ("Last change", {"fields": ["status_changed_by", "status_reason"]}),
        ("History of the slot", {"fields": ["slot_history"]}),
    ]

    def has_add_permission(self, request: HttpRequest) -> bool:
        return False

    def has_change_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # The list's actions (accept, reject, delete through the services) need "change";
        # a fact's own page has nothing to save: it is shown read-only, without Save buttons.
        return obj is None and super().has_change_permission(request)

    def has_delete_permission(self, request: HttpRequest, obj: object = None) -> bool:
        # No hard deletes (and so no bulk "delete selected"): facts are deleted softly, with
        # a reason, by the delete action; erasure is `forget`.
        return False

    @admin.display(description="History")
    def slot_history(self, fact: Fact) -> str:
        rows = Fact.objects.in_slot(fact.slot).order_by("recorded_at", "id")
        return format_html_join(
            "",
            "<div>#{} {} — {} (believed {} → {}; {})</div>",
            (
                (
                    f.pk,
                    f.value,
                    f.status,
                    f.believed_from or "never",
                    f.believed_until or "now",
                    f.status_changed_by or "-",
                )
                for f in rows
            ),
        )
