"""Forms of the Members page."""

from typing import Any

from django import forms

from tenancy.models import MemberRole


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
