"""Forms of the dashboard's Facts pages: the GET filter form, the action forms and the
text to check."""

from datetime import UTC, datetime, time, timedelta
from typing import Any, cast

from django import forms
from django.utils import timezone

from dewee.errors import InvalidInput
from dewee.forms import CursorForm, ViewerTimeField
from facts.changes import ChangeFilters, ChangeKind, change_filters, decode_change_cursor
from facts.models import KEY_MAX_CHARS, Status
from facts.queries import PREFIX_FIELDS, FactFilters
from facts.services import ForgetScope, Resolution, forget_scope
from facts.services.checking import TEXT_MAX_CHARS
from facts.triage import ASSIGNED_TO_ME, ASSIGNED_TO_NOBODY, SNOOZED_ONLY, SNOOZED_TOO
from tenancy.validation import DB_ID_MAX, REASON_MAX_CHARS

# The Facts tab's view of the value of each slot in force now (FactFilters.in_force), next
# to the recorded statuses: a value handed over to one from a later date is history but in
# force until then.
IN_FORCE = "in_force"


class FactFilterForm(CursorForm):
    """The Facts tab's filters, after the agent and the page's cursor."""

    user = forms.CharField(label="User", required=False, max_length=KEY_MAX_CHARS)
    subject = forms.CharField(label="Subject", required=False, max_length=KEY_MAX_CHARS)
    predicate = forms.CharField(label="Predicate", required=False, max_length=KEY_MAX_CHARS)
    status = forms.ChoiceField(
        label="Status",
        required=False,
        choices=[("", "Any status"), (IN_FORCE, "In force now"), *Status.choices],
    )
    as_of = ViewerTimeField(
        label="As of",
        required=False,
        help_text="The facts recorded then, each with the status it had then.",
    )
    valid_at = ViewerTimeField(
        label="Valid at",
        required=False,
        help_text="Only facts true in the world then: never rejected or deleted ones, and a "
        "replaced value only until it was replaced.",
    )
    q = forms.CharField(label="Value contains", required=False, max_length=200)

    def __init__(self, data: Any, *, agent_choices: list[Any], suggest_url: str = "") -> None:
        """``suggest_url``: the suggestions endpoint that fills each key filter's
        ``<datalist>`` as the person types (with htmx; without it the filters work alike,
        without suggestions)."""
        super().__init__(data, agent_choices=agent_choices)
        if suggest_url:
            for name in PREFIX_FIELDS:
                self.fields[name].widget.attrs |= {
                    "list": f"suggest-{name}",
                    "autocomplete": "off",
                    "hx-get": suggest_url,
                    "hx-trigger": "input changed delay:200ms",
                    "hx-target": f"#suggest-{name}",
                    "hx-include": "#id_agent",
                    "hx-vals": f'{{"field": "{name}"}}',
                    "hx-push-url": "false",
                }
        for name in PREFIX_FIELDS:
            self.fields[name].help_text = "Its start, any case."

    def filters(self) -> FactFilters:
        data = self.cleaned_data
        return FactFilters(
            user=data["user"] or None,
            subject=data["subject"] or None,
            predicate=data["predicate"] or None,
            statuses=[data["status"]] if data["status"] not in ("", IN_FORCE) else [],
            in_force=data["status"] == IN_FORCE,
            as_of=data["as_of"],
            valid_at=data["valid_at"],
            search=data["q"] or None,
            prefix=True,
        )


class SuggestForm(forms.Form):
    """What a filter's suggestions are asked for: the key, its start, and the agent picked
    (empty: all the viewer sees)."""

    field = forms.ChoiceField(choices=[(name, name) for name in PREFIX_FIELDS])
    q = forms.CharField(required=False, max_length=KEY_MAX_CHARS)
    agent = forms.CharField(required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # htmx sends the filter's input under its own name (``user=an``): no script renames it.
        if not data.get("q") and data.get("field"):
            data["q"] = self.data.get(data["field"], "").strip()[:KEY_MAX_CHARS]
        return data


class ResolveForm(forms.Form):
    action = forms.ChoiceField(choices=[(r.value, r.value) for r in Resolution])
    reason = forms.CharField(required=False, max_length=REASON_MAX_CHARS)


class ReasonForm(forms.Form):
    """An optional reason, kept in the audit event (confirm or end a stale fact)."""

    reason = forms.CharField(required=False, max_length=REASON_MAX_CHARS)


class RestoreForm(ReasonForm):
    """Restoring a deleted fact: an optional reason, and the box ticked to confirm."""

    confirm = forms.BooleanField(
        required=True, error_messages={"required": "Tick the box to confirm the restore."}
    )


class DeleteForm(forms.Form):
    label_suffix = ""

    reason = forms.CharField(
        label="Reason",
        max_length=REASON_MAX_CHARS,
        widget=forms.Textarea(attrs={"rows": 2}),
        help_text="Kept with the record: say why this fact is wrong or must not be used.",
    )


class ForgetForm(forms.Form):
    """Erasure of every fact about one user, one subject, or one subject of one user,
    confirmed by typing the user's name (or the subject's, when no user is given)."""

    agent = forms.CharField(widget=forms.HiddenInput)
    user = forms.CharField(required=False, widget=forms.HiddenInput, max_length=KEY_MAX_CHARS)
    subject = forms.CharField(required=False, widget=forms.HiddenInput, max_length=KEY_MAX_CHARS)
    confirmation = forms.CharField(label="Type it again to confirm", required=False)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        # The hidden field of the other scope comes back empty: empty means not given.
        try:
            data["scope"] = forget_scope(
                user=data.get("user") or None, subject=data.get("subject") or None
            )
        except InvalidInput as exc:
            raise forms.ValidationError(exc.message) from None
        return data

    def scope(self) -> ForgetScope:
        return self.cleaned_data["scope"]

    def target(self) -> str:
        scope = self.scope()
        return scope.user if scope.user is not None else str(scope.subject)

    def confirmed(self) -> bool:
        """Checked after the preview is shown, so an empty confirmation is not an error."""
        if self.cleaned_data.get("confirmation") == self.target():
            return True
        self.add_error("confirmation", f"Type {self.target()!r} exactly to erase.")
        return False


class CheckTextForm(forms.Form):
    """Text to check against the facts an agent holds about a user, for the preview and for
    applying it. The form only carries the fields: the limits and their messages are
    ``check_text``'s own, shown on the field they name (:meth:`add_domain_error`), so the
    dashboard says exactly what the API and the CLI say."""

    agent = forms.CharField(required=False, strip=False, widget=forms.HiddenInput)
    user = forms.CharField(
        label="User",
        required=False,
        strip=False,
        widget=forms.TextInput(attrs={"required": True, "maxlength": KEY_MAX_CHARS}),
        help_text="Whose words these are: the user the facts are about.",
    )
    text = forms.CharField(
        label="Text",
        required=False,
        strip=False,
        widget=forms.Textarea(attrs={"rows": 4, "required": True, "maxlength": TEXT_MAX_CHARS}),
        help_text="What the user said, in their own words.",
    )

    def __init__(self, data: Any = None, **kwargs: Any) -> None:
        super().__init__(data, label_suffix="", **kwargs)

    def add_domain_error(self, error: InvalidInput) -> None:
        field = "agent" if error.field == "agent_id" else error.field
        self.add_error(field if field in self.fields else None, error.message)


CHANGES_DEFAULT_DAYS = 7


class ChangesForm(forms.Form):
    """The Changes page's filters: an agent (or every visible one), a user, the window
    (the last CHANGES_DEFAULT_DAYS days unless given), a kind, and the page's cursor."""

    agent = forms.CharField(label="Agent", required=False, widget=forms.Select)
    user = forms.CharField(label="User", required=False, max_length=KEY_MAX_CHARS)
    since = ViewerTimeField(
        label="Since",
        required=False,
        help_text=f"The last {CHANGES_DEFAULT_DAYS} days if empty.",
    )
    until = ViewerTimeField(
        label="Until",
        required=False,
        help_text="Now if empty.",
    )
    kind = forms.ChoiceField(
        label="Kind",
        required=False,
        choices=[("", "Every kind"), *((k.value, k.value.capitalize()) for k in ChangeKind)],
    )
    cursor = forms.CharField(required=False, widget=forms.HiddenInput)

    def __init__(self, data: Any, *, agent_choices: list[Any]) -> None:
        super().__init__(data, label_suffix="")
        self.fields["agent"].widget.choices = [("", "All agents"), *agent_choices]

    def clean_cursor(self) -> str:
        cursor = self.cleaned_data["cursor"]
        if cursor:
            try:
                decode_change_cursor(cursor)
            except InvalidInput as exc:
                raise forms.ValidationError(exc.message) from None
        return cursor

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if self.errors:
            return data
        now = timezone.now()
        try:
            data["filters"] = change_filters(
                since=data["since"] or now - timedelta(days=CHANGES_DEFAULT_DAYS),
                until=data["until"],
                now=now,
                user=data["user"] or None,
                kind=data["kind"],
            )
        except InvalidInput as exc:
            self.add_error(exc.field if exc.field in self.fields else None, exc.message)
        return data

    def filters(self) -> ChangeFilters:
        return self.cleaned_data["filters"]


AGE_CHOICES = [("", "Any age"), ("1", "Older than 1 day"), ("7", "Older than 7 days")]
AGE_CHOICES += [("30", "Older than 30 days")]
ASSIGNED_CHOICES = [("", "Anyone"), (ASSIGNED_TO_ME, "Me"), (ASSIGNED_TO_NOBODY, "Nobody")]
SNOOZED_CHOICES = [("", "Hidden"), (SNOOZED_ONLY, "Only snoozed"), (SNOOZED_TOO, "Shown too")]


class ReviewFilterForm(forms.Form):
    """The review queue's filters. ``workspace`` is offered only where every workspace is
    visible; ``agent`` among the visible agents (the view loads it through the access
    helper: another workspace's is a 404)."""

    workspace = forms.ChoiceField(label="Workspace", required=False)
    agent = forms.CharField(label="Agent", required=False, widget=forms.Select)
    predicate = forms.CharField(
        label="Predicate",
        required=False,
        max_length=KEY_MAX_CHARS,
        help_text="Starts with, any case.",
    )
    age = forms.ChoiceField(label="Waiting", required=False, choices=AGE_CHOICES)
    before = forms.DateField(
        label="Recorded before",
        required=False,
        widget=forms.DateInput(attrs={"type": "date"}, format="%Y-%m-%d"),
    )
    assigned = forms.ChoiceField(label="Assigned to", required=False, choices=ASSIGNED_CHOICES)
    snoozed = forms.ChoiceField(label="Snoozed", required=False, choices=SNOOZED_CHOICES)

    def __init__(
        self, data: Any, *, workspaces: list[str] | None, agent_choices: list[Any]
    ) -> None:
        """``workspaces``: the slugs to offer, or None to drop the field (members)."""
        super().__init__(data, label_suffix="")
        if workspaces is None:
            del self.fields["workspace"]
        else:
            choices = [("", "All workspaces"), *((slug, slug) for slug in workspaces)]
            cast(forms.ChoiceField, self.fields["workspace"]).choices = choices
        self.fields["agent"].widget.choices = [("", "All agents"), *agent_choices]

    def recorded_before(self, now: datetime) -> datetime | None:
        """The earlier of the age's cut-off and the date's start (UTC)."""
        data = self.cleaned_data
        limits = []
        if data["age"]:
            limits.append(now - timedelta(days=int(data["age"])))
        if data["before"]:
            limits.append(datetime.combine(data["before"], time.min, tzinfo=UTC))
        return min(limits, default=None)


# A bulk action or an undo never names more facts than a queue page shows, with room.
BULK_MAX_FACTS = 1000


class FactIdsField(forms.Field):
    """Fact ids, from checkboxes or hidden inputs that repeat one name."""

    widget = forms.MultipleHiddenInput

    def to_python(self, value: Any) -> list[int]:
        values = value or []
        if len(values) > BULK_MAX_FACTS:
            raise forms.ValidationError(f"Choose at most {BULK_MAX_FACTS} facts at a time.")
        try:
            ids = [int(v) for v in values]
        except (TypeError, ValueError):
            raise forms.ValidationError("Fact ids are numbers.") from None
        if any(not 1 <= i <= DB_ID_MAX for i in ids):
            raise forms.ValidationError("Not a fact id.")
        return list(dict.fromkeys(ids))

    def validate(self, value: Any) -> None:
        if self.required and not value:
            raise forms.ValidationError("Select at least one disputed fact.")


class BulkResolveForm(ResolveForm):
    """Accept or reject the selected disputes. ``confirm`` is set by the confirmation step
    (or by htmx, after the browser's own confirmation); ``next`` carries the queue's filters
    back."""

    fact = FactIdsField(required=False)
    # Every dispute the queue's filters (carried in ``next``) match, the oldest first, up to
    # BULK_MAX_FACTS, instead of the ticked ones.
    matching = forms.BooleanField(required=False)
    confirm = forms.BooleanField(required=False)
    next = forms.CharField(required=False, max_length=2000)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("matching") and not data.get("fact"):
            raise forms.ValidationError("Select at least one disputed fact.")
        return data


class UndoForm(forms.Form):
    fact = FactIdsField()
    next = forms.CharField(required=False, max_length=2000)
