"""Forms every dashboard page shares."""

from datetime import UTC, datetime
from typing import Any

from django import forms
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.pagination import check_cursor


class PageForm(forms.Form):
    """The cursor of a paged list (dewee.pagination), checked before any query."""

    cursor = forms.CharField(required=False, widget=forms.HiddenInput)

    def clean_cursor(self) -> str:
        cursor = self.cleaned_data["cursor"]
        if cursor:
            try:
                check_cursor(cursor)
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


class ViewerTimeField(forms.Field):
    """A moment typed as the pages show times: in the viewer's zone (the one every time on
    the page is shown in, dewee.middleware.viewer_time_zone), so that a time copied from a
    row finds that row. Accepted: ``2026-05-04 14:03``, with seconds, with the zone's name
    as the page writes it (``2026-05-04 14:03:09 CEST``), the ``T`` of ISO 8601; or any
    other zone given explicitly: ``UTC``/``Z`` or an offset (``+02:00``). Shown back in the
    viewer's zone with its offset, so that a copied link means the same moment to anyone."""

    widget = forms.TextInput(
        attrs={
            "class": "time-input",
            "size": "25",
            "placeholder": "YYYY-MM-DD HH:MM",
            "spellcheck": "false",
            "autocomplete": "off",
        }
    )
    default_error_messages = {
        "invalid": "Enter a date and time such as 2026-05-04 14:03 (your time zone), "
        "or with UTC or an offset such as +02:00.",
    }

    def to_python(self, value: Any) -> datetime | None:
        text = str(value or "").strip()
        if not text:
            return None
        moment = _aware(text) or _with_zone_name(text)
        try:
            # Compared in UTC: a time that falls outside the years 1 to 9999 there is refused.
            moment = moment.astimezone(UTC) if moment is not None else None
        except OverflowError:
            moment = None
        if moment is None:
            raise forms.ValidationError(self.error_messages["invalid"])
        return moment

    def prepare_value(self, value: Any) -> Any:
        if isinstance(value, datetime):
            return timezone.localtime(value).isoformat(sep=" ", timespec="seconds")
        return value


def _aware(text: str) -> datetime | None:
    """ISO 8601 (a space for the T, Z for UTC); naive means the viewer's zone."""
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        return timezone.make_aware(moment, timezone.get_current_timezone())
    return moment


def _with_zone_name(text: str) -> datetime | None:
    """``<time> UTC``/``GMT``, or ``<time> <the viewer's zone as the pages name it>``."""
    head, _, name = text.rpartition(" ")
    if not head or not name.isalpha():
        return None
    try:
        naive = datetime.fromisoformat(head)
    except ValueError:
        return None
    if naive.tzinfo is not None:
        return None
    if name.upper() in ("UTC", "GMT", "Z"):
        return naive.replace(tzinfo=UTC)
    local = timezone.make_aware(naive, timezone.get_current_timezone())
    return local if local.tzname() == name else None
