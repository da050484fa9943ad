"""Forms of the Members, API keys and audit log pages, and of saving a list's view."""

from datetime import datetime, time, timedelta
from typing import Any

from django import forms
from django.utils import timezone

from dewee.forms import PageForm
from tenancy.models import AuditAction, MemberRole, Scope
from tenancy.preferences import VIEW_NAME_MAX_CHARS, VIEW_PAGE_MAX_CHARS


class WorkspaceForm(forms.Form):
    """The Members page's workspace, among those that exist."""

    workspace = forms.ChoiceField(label="Workspace")

    def __init__(self, data: Any, *, slugs: list[str]) -> None:
        super().__init__(data, label_suffix="")
        field = self.fields["workspace"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(slug, slug) for slug in slugs]


class AddMemberForm(forms.Form):
    """An invitation: an existing account (by username or email), or a new username."""

    login = forms.CharField(
        label="Username or email",
        max_length=254,
        help_text="An account's username or email; a new username creates the account "
        "and gives you a one-time sign-in link for it.",
    )
    email = forms.EmailField(
        label="Email (new account)", required=False, max_length=254, help_text="Optional."
    )
    role = forms.ChoiceField(label="Role", choices=MemberRole.choices, initial=MemberRole.VIEWER)

    def __init__(self, data: Any = None) -> None:
        super().__init__(data, label_suffix="")


class MemberRoleForm(forms.Form):
    role = forms.ChoiceField(label="Role", choices=MemberRole.choices)


class ApiKeyForm(forms.Form):
    """A new API key, as the API keys page asks for it; the services check it again."""

    name = forms.CharField(
        label="Name", max_length=200, help_text="Who uses it, e.g. support-bot in production."
    )
    scopes = forms.MultipleChoiceField(
        label="Scopes",
        choices=Scope.choices,
        widget=forms.CheckboxSelectMultiple,
        initial=[Scope.READ, Scope.WRITE],
        help_text="read: look; write: store and change; admin: erase in bulk, merge, "
        "change policies, run maintenance.",
    )
    agents = forms.CharField(
        label="Agents",
        required=False,
        max_length=30_000,
        help_text="Agent ids separated by commas (they need not exist yet); empty: every agent.",
    )
    expires = forms.CharField(
        label="Expires",
        required=False,
        max_length=64,
        help_text="A duration (90d, 12h, 2w) or a date (2027-01-31); empty: never.",
    )

    def __init__(self, data: Any = None) -> None:
        super().__init__(data, label_suffix="")

    def agent_ids(self) -> list[str]:
        raw = self.cleaned_data["agents"].replace("\n", ",")
        return [part.strip() for part in raw.split(",") if part.strip()]


class AuditFilterForm(PageForm):
    """The audit log's filters (a GET form) and the page's cursor. ``agent`` is offered only
    among the visible agents; the view still loads it through the access helper. Dates are
    days in the server's time zone, both ends included."""

    actor = forms.CharField(
        label="Actor", required=False, max_length=255, help_text="Any part, e.g. ana or key:"
    )
    action = forms.ChoiceField(
        label="Action", required=False, choices=[("", "Any action"), *AuditAction.choices]
    )
    agent = forms.CharField(label="Agent", required=False, widget=forms.Select)
    user = forms.CharField(
        label="User", required=False, max_length=255, help_text="The person it is about."
    )
    since = forms.DateField(
        label="From", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )
    until = forms.DateField(
        label="To", required=False, widget=forms.DateInput(attrs={"type": "date"})
    )

    field_order = ["actor", "action", "agent", "user", "since", "until", "cursor"]

    def __init__(self, data: Any, *, agent_choices: list[Any]) -> None:
        super().__init__(data, label_suffix="")
        self.fields["agent"].widget.choices = [("", "All agents"), *agent_choices]

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        since, until = data.get("since"), data.get("until")
        if since and until and until < since:
            self.add_error("until", "must be on or after From")
        return data

    def day_bounds(self) -> tuple[datetime | None, datetime | None]:
        """From the start of ``since`` to the end of ``until`` (the next day's start)."""
        since, until = self.cleaned_data["since"], self.cleaned_data["until"]
        zone = timezone.get_current_timezone()
        start = datetime.combine(since, time.min, zone) if since else None
        end = datetime.combine(until + timedelta(days=1), time.min, zone) if until else None
        return start, end


class SaveViewForm(forms.Form):
    """Save a list page's filters and order under a name: the page (its URL name), the
    query of the list shown (the page keeps it current, a hidden input of this form) and
    the name typed. The service cleans the name and keeps only the page's own filters."""

    page = forms.CharField(widget=forms.HiddenInput, max_length=VIEW_PAGE_MAX_CHARS)
    query = forms.CharField(widget=forms.HiddenInput, required=False, max_length=8000)
    # Not required and unbounded here: the service says what a name must be, as it says it
    # to every interface.
    name = forms.CharField(
        label="Save this view as",
        required=False,
        strip=False,
        widget=forms.TextInput(
            attrs={
                "maxlength": VIEW_NAME_MAX_CHARS,
                "placeholder": "e.g. Open disputes, oldest first",
            }
        ),
    )

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, label_suffix="", **kwargs)
