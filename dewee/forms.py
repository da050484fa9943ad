"""Forms every dashboard page shares."""

from typing import Any

from django import forms

from dewee.errors import InvalidInput
from dewee.pagination import decode_cursor


class PageForm(forms.Form):
    """The cursor of a paged list (dewee.pagination), checked before any query."""

    cursor = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_cursor(self) -> str:
        cursor = self.cleaned_data["cursor"]
        if cursor:
            try:
                decode_cursor(cursor)
            except InvalidInput as exc:
                raise forms.ValidationError(exc.message) from None
        return cursor


class CursorForm(PageForm):
    """An agent among the visible ones, and the page's cursor. ``agent`` is only offered
    among the visible agents; the view still loads it through the access helper, so a
    hand-typed agent of another workspace is a 404."""

    agent = forms.CharField(label="Agent", widget=forms.Select)

    field_order = ["agent", "cursor"]

    def __init__(self, data: Any, *, agent_choices: list[Any]) -> None:
        """``agent_choices`` as ``dewee.dashboard.agent_choices`` gives them (grouped by
        workspace where every workspace is visible)."""
        super().__init__(data, label_suffix="")
        self.fields["agent"].widget.choices = agent_choices
        # A picker that offers "all agents" (its value "") may be left on it.
        self.fields["agent"].required = not agent_choices or agent_choices[0][0] != ""
