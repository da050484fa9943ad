"""The forms of the review shared by a team: assign a dispute, snooze it, comment on a fact."""

from datetime import datetime, timedelta
from typing import Any

from django import forms

from dewee.forms import ViewerTimeField
from facts.models import COMMENT_MAX_CHARS

# Snoozes one button away, in days; any other time is typed in the viewer's zone.
SNOOZE_DAYS = [("1", "1 day"), ("3", "3 days"), ("7", "1 week"), ("30", "30 days")]


class AssignForm(forms.Form):
    """``assignee``: a user id among ``choices`` (the people who may settle), or empty."""

    assignee = forms.TypedChoiceField(
        label="Assigned to", required=False, coerce=int, empty_value=None
    )

    def __init__(self, data: Any = None, *, choices: list[tuple[int, str]], **kwargs: Any):
        super().__init__(data, label_suffix="", **kwargs)
        field = self.fields["assignee"]
        assert isinstance(field, forms.TypedChoiceField)
        field.choices = [("", "Nobody"), *choices]


class SnoozeForm(forms.Form):
    """Snooze for ``days`` (a button), until ``until`` (typed), or ``wake`` now."""

    days = forms.ChoiceField(choices=SNOOZE_DAYS, required=False)
    until = ViewerTimeField(label="Until", required=False)
    wake = forms.BooleanField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        chosen = [bool(data.get("days")), data.get("until") is not None, bool(data.get("wake"))]
        if sum(chosen) != 1:
            raise forms.ValidationError("Choose how long to snooze, a time, or wake it now.")
        return data

    def snoozed_until(self, now: datetime) -> datetime | None:
        """The time asked for (None: wake it now)."""
        data = self.cleaned_data
        if data["wake"]:
            return None
        if data["days"]:
            return now + timedelta(days=int(data["days"]))
        until = data["until"]
        assert isinstance(until, datetime)
        return until


class CommentForm(forms.Form):
    body = forms.CharField(
        label="Comment",
        max_length=COMMENT_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 3}),
    )

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, label_suffix="", **kwargs)
