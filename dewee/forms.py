"""Forms every dashboard page shares."""

from typing import Any

from django import forms

from dewee.errors import InvalidInput
from dewee.pagination import decode_cursor


class CursorForm(forms.Form):
    """An agent among the visible ones, and the page's cursor. ``agent`` is only offered
    among the visible agents; the view still loads it through the access helper, so a
    hand-typed agent of another workspace is a 404."""

    agent = forms.CharField(label="Agent", widget=forms.Select)
    cursor = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, data: Any, *, agent_ids: list[str]) -> None:
        super().__init__(data, label_suffix="")
        self.fields["agent"].widget.choices = [(a, a) for a in agent_ids]

    def clean_cursor(self) -> str:
        cursor = self.cleaned_data["cursor"]
        if cursor:
            try:
                decode_cursor(cursor)
            except InvalidInput as exc:
                raise forms.ValidationError(exc.message) from None
        return cursor
