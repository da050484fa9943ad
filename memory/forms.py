"""Forms of the dashboard's Memories, Sessions, Entities and Quotas pages: GET filter forms,
the delete confirmation and the quotas of a scope."""

from typing import Any

from django import forms

from dewee.forms import CursorForm
from memory.graph.entities import ENTITY_QUERY_MAX_CHARS
from memory.graph.neighbourhood import NEIGHBOURHOOD_DEPTHS
from memory.models import EntityType, MaintenanceJob, MemoryType, SessionState
from memory.recall import ALL_USERS, Audience, RecallFilters
from tenancy.models import QuotaKind, QuotaMode
from tenancy.quotas import QUOTA_LIMIT_MAX, QuotaLimit
from tenancy.validation import REASON_MAX_CHARS, USER_MAX_CHARS, clean_user

# The dashboard's user filters match the start of an id, in any case ("AN" finds "ana").
USER_PREFIX_HELP = "Starts with, any case."


class MemoryFilterForm(CursorForm):
    q = forms.CharField(
        label="Search",
        required=False,
        max_length=4000,
        help_text="Ranks memories by recall, best first.",
        widget=forms.TextInput(attrs={"type": "search"}),
    )
    memory_type = forms.ChoiceField(
        label="Type", required=False, choices=[("", "Any type"), *MemoryType.choices]
    )
    tag = forms.CharField(label="Tag", required=False, max_length=200)
    session = forms.IntegerField(label="Session", required=False, min_value=1)
    user = forms.CharField(
        label="User", required=False, max_length=USER_MAX_CHARS, help_text=USER_PREFIX_HELP
    )
    min_importance = forms.FloatField(
        label="Min importance", required=False, min_value=0, max_value=1, step_size=0.05
    )
    max_importance = forms.FloatField(
        label="Max importance", required=False, min_value=0, max_value=1, step_size=0.05
    )

    field_order = [
        "agent",
        "q",
        "memory_type",
        "tag",
        "session",
        "user",
        "min_importance",
        "max_importance",
    ]

    def clean(self) -> dict[str, Any] | None:
        data = super().clean()
        low, high = self.cleaned_data.get("min_importance"), self.cleaned_data.get("max_importance")
        if low is not None and high is not None and high < low:
            self.add_error("max_importance", "Must not be below the min importance.")
        return data

    def filters(self, *, search: bool = False) -> RecallFilters:
        """The list's filters: the user filter matches the start of an id. A search
        (recall) filtered to a user is what recall gives that user: their memories and the
        agent's shared ones, never another user's; unfiltered, an operator searches all."""
        data = self.cleaned_data
        user = data["user"] or None
        audience = ALL_USERS if not (search and user) else Audience(user=clean_user(user))
        return RecallFilters(
            session_id=data["session"],
            tags=[data["tag"]] if data["tag"] else [],
            memory_type=data["memory_type"] or None,
            min_importance=data["min_importance"],
            max_importance=data["max_importance"],
            user=None if search else user,
            audience=audience,
        )


class SessionFilterForm(CursorForm):
    """The Sessions list's filters: the sessions of users whose id starts so, a state."""

    user = forms.CharField(
        label="User", required=False, max_length=USER_MAX_CHARS, help_text=USER_PREFIX_HELP
    )
    state = forms.ChoiceField(
        label="State", required=False, choices=[("", "Any state"), *SessionState.choices]
    )

    field_order = ["agent", "user", "state"]


class EntityFilterForm(CursorForm):
    q = forms.CharField(
        label="Name",
        required=False,
        max_length=ENTITY_QUERY_MAX_CHARS,
        help_text="The start of a name or an alias.",
        widget=forms.TextInput(attrs={"type": "search"}),
    )
    type = forms.ChoiceField(
        label="Type", required=False, choices=[("", "Any type"), *EntityType.choices]
    )

    field_order = ["agent", "q", "type"]


class NeighbourhoodForm(forms.Form):
    """How far the memory page's neighbourhood reaches; 1 when not given."""

    depth = forms.TypedChoiceField(
        choices=[(d, str(d)) for d in NEIGHBOURHOOD_DEPTHS], coerce=int, required=False
    )

    def depth_or_default(self) -> int:
        return self.cleaned_data["depth"] or NEIGHBOURHOOD_DEPTHS[0]


class DeleteMemoryForm(forms.Form):
    confirm = forms.BooleanField(
        label="I understand the facts learned only from this memory are erased too",
        error_messages={"required": "Tick the box to delete this memory."},
    )
    reason = forms.CharField(label="Reason (optional)", required=False, max_length=REASON_MAX_CHARS)

    def __init__(self, data: Any = None) -> None:
        super().__init__(data, label_suffix="")


class EditMemoryForm(forms.Form):
    """The memory page's edit: its importance and the tags a caller gave (one a line, so a
    tag may hold a comma). Entity tags are derived from the text, not edited."""

    importance = forms.FloatField(
        label="Importance",
        min_value=0,
        max_value=1,
        # Decay leaves any value: a step would make the browser refuse the current one.
        widget=forms.NumberInput(attrs={"step": "any"}),
        help_text="0 to 1. Decay starts again from the new value.",
    )
    tags = forms.CharField(
        label="Tags",
        required=False,
        widget=forms.Textarea(attrs={"rows": 3}),
        help_text="One tag a line.",
    )

    def __init__(self, data: Any = None, *, memory: dict[str, Any] | None = None) -> None:
        initial = None
        if memory is not None:
            initial = {"importance": memory["importance"], "tags": "\n".join(memory["tags"])}
        super().__init__(data, initial=initial, label_suffix="")

    def clean_tags(self) -> list[str]:
        lines = self.cleaned_data["tags"].splitlines()
        return list(dict.fromkeys(line.strip() for line in lines if line.strip()))

    def changes(self, memory: dict[str, Any]) -> dict[str, Any]:
        """What differs from ``memory`` (memory_to_dict's shape): an unchanged importance
        is not given, so that a tags-only edit does not restart its decay."""
        data, changes = self.cleaned_data, {}
        if data["importance"] != memory["importance"]:
            changes["importance"] = data["importance"]
        if data["tags"] != memory["tags"]:
            changes["tags"] = data["tags"]
        return changes


class RunJobForm(forms.Form):
    """Run now on the Maintenance page: one of the background jobs."""

    job = forms.ChoiceField(choices=MaintenanceJob.choices)


class QuotaForm(forms.Form):
    """The quotas of one scope: for each kind a limit (blank: none) and its mode."""

    def __init__(self, data: Any = None, *, initial: dict[str, Any] | None = None) -> None:
        super().__init__(data, initial=initial, label_suffix="")
        for kind, label in QuotaKind.choices:
            self.fields[f"{kind}_limit"] = forms.IntegerField(
                label=f"Max {label.lower()}",
                required=False,
                min_value=0,
                max_value=QUOTA_LIMIT_MAX,
                help_text="Blank: no limit.",
            )
            # Not required: a page from before a kind existed sends no mode for it.
            self.fields[f"{kind}_mode"] = forms.ChoiceField(
                label=f"{label} mode",
                choices=QuotaMode.choices,
                initial=QuotaMode.HARD,
                required=False,
            )

        # Given by the "Set below usage anyway" button (memory.quotas.set_quotas).
        self.fields["confirm_below_usage"] = forms.BooleanField(required=False)

    def rows(self) -> list[tuple[forms.BoundField, forms.BoundField]]:
        return [(self[f"{kind}_limit"], self[f"{kind}_mode"]) for kind in QuotaKind.values]

    def limits(self) -> dict[str, QuotaLimit | None]:
        data = self.cleaned_data
        return {
            kind: None
            if data[f"{kind}_limit"] is None
            else QuotaLimit(
                limit=data[f"{kind}_limit"], mode=data[f"{kind}_mode"] or QuotaMode.HARD
            )
            for kind in QuotaKind.values
        }


def quota_form_initial(limits: dict[str, QuotaLimit]) -> dict[str, Any]:
    initial: dict[str, Any] = {}
    for kind, value in limits.items():
        initial |= {f"{kind}_limit": value.limit, f"{kind}_mode": value.mode}
    return initial
