"""Forms of the Members page."""

from typing import Any

from django import forms

from tenancy.models import MemberRole, Scope


class WorkspaceForm(forms.Form):
    """The Members page's workspace, among those that exist."""

    workspace = forms.ChoiceField(label="Workspace")

    def __init__(self, data: Any, *, slugs: list[str]) -> None:
        super().__init__(data, label_suffix="")
        field = self.fields["workspace"]
        assert isinstance(field, forms.ChoiceField)
        field.choices = [(slug, slug) for slug in slugs]


class AddMemberForm(forms.Form):
    login = forms.CharField(
        label="Username or email",
        max_length=254,
        help_text="Someone who already has an account.",
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
