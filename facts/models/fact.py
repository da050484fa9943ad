"""Facts: subject / predicate / qualifier / value about a user, with provenance.

Two clocks: ``valid_from``/``valid_to`` say when the fact holds in the world;
``believed_from``/``believed_until`` say when the agent held it as the current value of its
slot, and ``recorded_at``/``disputed_until`` when it waited for review as a disputed value.
Point-in-time queries ("what did the agent believe at T") use the second clock; "what is
true now" uses the first.
"""

from datetime import datetime, timedelta

from django.db import models
from django.db.models import Case, F, OuterRef, Q, Subquery, Value, When
from django.db.models.functions import Coalesce

from facts.slots import SLOT_FIELDS, Slot
from tenancy.models import Agent

VALUE_MAX_CHARS = 4096
KEY_MAX_CHARS = 255
EXCERPT_MAX_CHARS = 2000
# The subject of a fact about the user themself (their employer, their city): it stands for
# each fact's own user, so the facts of one subject "user" are about many people.
USER_SUBJECT = "user"


class Status(models.TextChoices):
    CURRENT = "current"
    HISTORY = "history"
    DISPUTED = "disputed"
    REJECTED = "rejected"
    DELETED = "deleted"


class Verification(models.TextChoices):
    CONFIRMED = "confirmed"
    STATED = "stated"
    INFERRED = "inferred"


class Category(models.TextChoices):
    EMPLOYMENT = "employment"
    LOCATION = "location"
    CONTACT = "contact"
    PREFERENCE = "preference"
    RELATIONSHIP = "relationship"
    SKILL = "skill"
    BELIEF = "belief"
    FACT = "fact"
    GENERAL = "general"


class SourceKind(models.TextChoices):
    CONVERSATION_SUMMARY = "conversation_summary"
    CHANNEL_MESSAGE = "channel_message"
    MEMORY_DOCUMENT = "memory_document"
    OPERATOR = "operator"


# A fact served to an agent again within this long is not written again: one UPDATE per
# request at most, and none at all for an agent that reads the same facts every turn.
ACCESS_WRITE_INTERVAL = timedelta(minutes=1)


def in_force_at(moment: datetime) -> Q:
    """The facts in force at ``moment``: current facts whose valid window contains it, and
    facts handed over to a value that only holds from later on ("from January I'll be at
    Stripe": Google stays history with ``valid_to`` January, Stripe is current from then;
    until January Google is in force, from then Stripe) or ended on a later date ("my last
    day is June 30"). Of the facts ``valid_at`` ``moment``, those the agent stands by: no
    dispute, and no history value that held only while it was believed. A slot has one
    value in force at any time: the handed-over value's window ends where its successor's
    starts."""
    starts = Q(valid_from__isnull=True) | Q(valid_from__lte=moment)
    current = Q(status=Status.CURRENT) & (Q(valid_to__isnull=True) | Q(valid_to__gt=moment))
    handed_over = Q(status=Status.HISTORY, valid_to__gt=moment)
    return starts & (current | handed_over)


class FactQuerySet(models.QuerySet["Fact"]):
    def current(self) -> "FactQuerySet":
        return self.filter(status=Status.CURRENT)

    def disputed(self) -> "FactQuerySet":
        return self.filter(status=Status.DISPUTED)

    def in_slot(self, slot: Slot) -> "FactQuerySet":
        return self.filter(**slot.lookup())

    def in_outer_slot(self) -> "FactQuerySet":
        """Facts of the slot of the outer query's fact, for a correlated subquery."""
        return self.filter(**{field: OuterRef(field) for field in SLOT_FIELDS})

    def holding_at(self, moment: datetime) -> "FactQuerySet":
        """What the agent knows now to hold in the world at ``moment``, the value of each
        slot in force then (``in_force_at``). Every reader of "what is true now" reads this:
        the check, /v1/context, the current facts of the API, the dashboard and a person's
        page."""
        return self.filter(in_force_at(moment))

    def valid_at(self, moment: datetime, *, status_field: str = "status") -> "FactQuerySet":
        """Facts true in the world at ``moment`` (valid time), as far as the agent knows:

        - current and disputed facts whose valid window holds then (an open end holds
          forever, an open start since ever);
        - history facts within their window, which ends at ``valid_to`` when one is set
          (ended: "I left Dropbox"; or handed over to a value that holds from later on)
          and otherwise when the agent stopped believing them (superseding a value does
          not set its ``valid_to``: the new value holds from then);
        - never rejected or deleted facts: a person refused them.

        ``status_field``: the status to judge by; "status_then" in an as-of list
        (``with_status_at``), where each fact counts with the status it had then."""
        starts = Q(valid_from__isnull=True) | Q(valid_from__lte=moment)
        open_ended = Q(**{f"{status_field}__in": [Status.CURRENT, Status.DISPUTED]}) & (
            Q(valid_to__isnull=True) | Q(valid_to__gt=moment)
        )
        history = Q(**{status_field: Status.HISTORY}) & (
            Q(valid_to__gt=moment) | Q(valid_to__isnull=True, believed_until__gt=moment)
        )
        return self.filter(starts & (open_ended | history))

    def with_status_at(self, moment: datetime) -> "FactQuerySet":
        """Facts recorded by ``moment``, each annotated ``status_then``: the status it had at
        ``moment`` (transaction time), read from its periods (FactPeriod), exact at every
        instant whatever came after (undo, reopen, delete, restore). A fact with no periods
        (written by hand, outside the services) falls back to its columns: current while
        believed, disputed from its recording until settled, otherwise its status now."""
        period = FactPeriod.objects.filter(fact=OuterRef("pk"), started_at__lte=moment).filter(
            Q(ended_at__isnull=True) | Q(ended_at__gt=moment)
        )
        believed_then = Q(believed_from__lte=moment) & (
            Q(believed_until__isnull=True) | Q(believed_until__gt=moment)
        )
        was_disputed = Q(status=Status.DISPUTED) | Q(disputed_until__isnull=False)
        disputed_then = (
            was_disputed
            & (Q(believed_from__isnull=True) | Q(believed_from__gt=moment))
            & (Q(disputed_until__isnull=True) | Q(disputed_until__gt=moment))
        )
        # Recorded by then; a record imported with an earlier belief counts from that.
        existed = Q(recorded_at__lte=moment) | Q(believed_from__lte=moment)
        from_columns = Case(
            When(believed_then, then=Value(Status.CURRENT.value)),
            When(disputed_then, then=Value(Status.DISPUTED.value)),
            default=F("status"),
            output_field=models.CharField(),
        )
        return self.filter(existed).annotate(
            status_then=Coalesce(
                Subquery(period.values("status")[:1]), from_columns, output_field=models.CharField()
            )
        )

    def mark_accessed(self, now: datetime) -> int:
        """Count one access to each of these facts (served to an agent at ``now``), in one
        UPDATE; a fact accessed less than ACCESS_WRITE_INTERVAL ago is skipped."""
        return self.filter(
            Q(last_accessed_at__isnull=True) | Q(last_accessed_at__lte=now - ACCESS_WRITE_INTERVAL)
        ).update(access_count=F("access_count") + 1, last_accessed_at=now)


class Fact(models.Model):
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="facts")
    # The user the fact is about; "" when it is about no particular user. Empty strings
    # rather than NULL keep the slot's unique constraint working on every database.
    user_ref = models.CharField(max_length=KEY_MAX_CHARS, blank=True, default="")
    subject = models.CharField(max_length=KEY_MAX_CHARS)
    predicate = models.CharField(max_length=KEY_MAX_CHARS)
    qualifier = models.CharField(max_length=KEY_MAX_CHARS, blank=True, default="")
    value = models.TextField()

    valid_from = models.DateTimeField(null=True, blank=True)
    valid_to = models.DateTimeField(null=True, blank=True)
    category = models.CharField(max_length=16, choices=Category.choices, default=Category.GENERAL)
    verification = models.CharField(
        max_length=16, choices=Verification.choices, default=Verification.STATED
    )
    confidence = models.FloatField(default=1.0)
    status = models.CharField(max_length=16, choices=Status.choices)

    recorded_at = models.DateTimeField()
    last_confirmed_at = models.DateTimeField()
    believed_from = models.DateTimeField(null=True, blank=True)
    believed_until = models.DateTimeField(null=True, blank=True)
    # When a disputed value stopped waiting (accepted, rejected or deleted); null while it
    # waits, and for a fact that was never disputed.
    disputed_until = models.DateTimeField(null=True, blank=True)
    # When it was last deleted, and last restored: undeleted, or current again because the
    # value that replaced it was erased with its memories (set by the services since these
    # columns came; a deletion before them is dated from its audit event where one is kept).
    deleted_at = models.DateTimeField(null=True, blank=True)
    restored_at = models.DateTimeField(null=True, blank=True)

    # Served to an agent (context, API reads by a key): how often, and last when.
    # A default in the database too: rows written by code that predates the field count 0.
    access_count = models.PositiveIntegerField(default=0, db_default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)

    status_changed_by = models.CharField(max_length=255, blank=True)
    status_reason = models.TextField(blank=True)

    objects = FactQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        constraints = [
            # The fields of a Slot (facts/slots.py), spelled out as the migration has them.
            models.UniqueConstraint(
                fields=["agent", "user_ref", "subject", "predicate", "qualifier"],
                condition=Q(status="current"),
                name="fact_one_current_per_slot",
            ),
            models.CheckConstraint(
                condition=Q(confidence__gte=0) & Q(confidence__lte=1),
                name="fact_confidence_0_1",
            ),
            models.CheckConstraint(
                condition=Q(valid_to__isnull=True)
                | Q(valid_from__isnull=True)
                | Q(valid_to__gte=models.F("valid_from")),
                name="fact_valid_window_ordered",
            ),
            models.CheckConstraint(condition=Q(status__in=Status.values), name="fact_status_known"),
        ]
        indexes = [
            models.Index(fields=["agent", "status", "-id"], name="fact_agent_status_idx"),
            # A facts quota's check reads the agent's facts past its running count's last
            # id (memory.quotas): a range of this index, whatever the agent's size.
            models.Index(fields=["agent", "id"], name="fact_agent_id_idx"),
            models.Index(
                fields=["agent", "user_ref", "subject", "predicate", "-id"],
                name="fact_agent_user_slot_idx",
            ),
            models.Index(fields=["agent", "subject", "-id"], name="fact_agent_subject_idx"),
            models.Index(fields=["agent", "predicate", "-id"], name="fact_agent_predicate_idx"),
            models.Index(fields=["agent", "believed_from"], name="fact_agent_believed_idx"),
            # A person's page reads their facts across agents by the person first.
            models.Index(fields=["user_ref", "status"], name="fact_user_status_idx"),
            # "What changed between T1 and T2" (facts.changes) reads one range per kind of
            # change; the columns set only for some facts get partial indexes.
            models.Index(fields=["agent", "recorded_at"], name="fact_agent_recorded_idx"),
            *(
                models.Index(
                    fields=["agent", column],
                    condition=Q(**{f"{column}__isnull": False}),
                    name=name,
                )
                for column, name in (
                    ("believed_until", "fact_agent_believed_until_idx"),
                    ("disputed_until", "fact_agent_disputed_until_idx"),
                    ("deleted_at", "fact_agent_deleted_at_idx"),
                    ("restored_at", "fact_agent_restored_at_idx"),
                )
            ),
            # The review queue, oldest dispute first over every visible agent: walked in
            # order until a page is found, instead of sorting every disputed fact.
            models.Index(
                fields=["recorded_at", "id"],
                condition=Q(status="disputed"),
                name="fact_disputed_oldest_idx",
            ),
            # Its re-confirmation section, the longest unconfirmed current facts first.
            models.Index(
                fields=["last_confirmed_at", "id"],
                condition=Q(status="current"),
                name="fact_current_confirmed_idx",
            ),
        ]

    def __str__(self) -> str:
        """``employer of ana = Acme (current)``: about its user when its subject is the
        user placeholder, else about its subject."""
        about = self.user_ref if self.subject == USER_SUBJECT and self.user_ref else self.subject
        predicate = f"{self.predicate}[{self.qualifier}]" if self.qualifier else self.predicate
        return f"{predicate} of {about} = {self.value} ({self.status})"

    def in_force(self, moment: datetime) -> bool:
        """Whether this fact is in force at ``moment`` (``in_force_at``, in Python)."""
        if self.valid_from is not None and self.valid_from > moment:
            return False
        if self.status == Status.CURRENT:
            return self.valid_to is None or self.valid_to > moment
        return (
            self.status == Status.HISTORY and self.valid_to is not None and (self.valid_to > moment)
        )

    @property
    def slot(self) -> Slot:
        return Slot.of(self)


class Change(models.TextChoices):
    """What began a period of a fact's status (``FactPeriod.change``)."""

    RECORDED = "recorded"  # stored: current or disputed from the start
    SUPERSEDED = "superseded"  # replaced by another value of its slot
    ENDED = "ended"  # said to end ("I left Dropbox")
    CALLED_OFF = "called_off"  # a change to come, called off
    ACCEPTED = "accepted"
    REJECTED = "rejected"
    CORROBORATED = "corroborated"  # a disputed value that more evidence made current
    UNDONE = "undone"  # an accept or a reject taken back: waiting again
    RESUMED = "resumed"  # current again: what replaced it was undone or called off
    REOPENED = "reopened"
    DELETED = "deleted"
    RESTORED = "restored"
    REPLACED_BY_ERASED = "replaced_by_erased"  # current again: its successor was erased


class FactPeriod(models.Model):
    """One stretch of transaction time in which a fact had one status: the agent's record
    of its belief, exact at every instant. A fact's periods follow each other without gaps
    from its recording; the last is open (``ended_at`` null). ``started_known`` false: a
    change older than this record whose time is unknown (a deletion before deletions were
    dated), counted from the earliest it can have happened, the end of the period before."""

    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="periods")
    # The fact's agent, repeated: the periods of one agent are read in one range.
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    status = models.CharField(max_length=16, choices=Status.choices)
    change = models.CharField(max_length=24, choices=Change.choices)
    started_at = models.DateTimeField()
    started_known = models.BooleanField(default=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    actor = models.CharField(max_length=255, blank=True)

    class Meta:
        ordering = ["fact_id", "id"]
        constraints = [
            models.UniqueConstraint(
                # With the agent, as a table distributed by agent needs (docs/SCALING.md).
                fields=["fact", "agent"],
                condition=Q(ended_at__isnull=True),
                name="fact_one_open_period",
            ),
            models.CheckConstraint(
                condition=Q(status__in=Status.values), name="fact_period_status_known"
            ),
        ]
        indexes = [
            models.Index(fields=["fact", "started_at"], name="fact_period_fact_idx"),
            models.Index(fields=["agent", "started_at"], name="fact_period_agent_idx"),
        ]

    def __str__(self) -> str:
        return f"fact {self.fact_id}: {self.status} ({self.change}) from {self.started_at}"


class FactSource(models.Model):
    """One piece of provenance: where (and from whom) the agent learned a fact."""

    fact = models.ForeignKey(Fact, on_delete=models.CASCADE, related_name="sources")
    # The fact's agent, kept on the source too: the memory it names is found by (agent,
    # memory), which is the key of a memories table partitioned by agent (dewee.partitions).
    # No index of its own: nothing looks sources up by agent alone.
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+", db_index=False)
    kind = models.CharField(max_length=32, choices=SourceKind.choices)
    reference = models.CharField(max_length=KEY_MAX_CHARS, blank=True)
    excerpt = models.TextField(blank=True)
    operator = models.CharField(max_length=KEY_MAX_CHARS, blank=True)
    # The stored memory the fact was learned from, when there is one: deleting that memory
    # erases the facts learned only from it.
    memory = models.ForeignKey(
        "memory.Memory",
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="fact_sources",
    )
    verification = models.CharField(max_length=16, choices=Verification.choices)
    confidence = models.FloatField()
    recorded_at = models.DateTimeField()

    class Meta:
        ordering = ["recorded_at", "id"]

    def __str__(self) -> str:
        return f"{self.kind}:{self.reference or self.operator}"
