"""Memories, sessions, tags, feedback and the records of background maintenance."""

from datetime import datetime, timedelta

from django.conf import settings
from django.db import models
from django.db.models import Q

from memory.fields import EmbeddingField
from tenancy.models import Agent, Workspace

# The tag of the memory that holds a session's summary (memory.services.session_end).
SUMMARY_TAG = "session-summary"


class MemoryType(models.TextChoices):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    PROCEDURAL = "procedural"
    WORKING = "working"


class SessionState(models.TextChoices):
    ACTIVE = "active"
    ENDED = "ended"


class Session(models.Model):
    """A conversation: groups memories; ends by the client or after an idle timeout."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="sessions")
    user_ref = models.CharField(max_length=255, blank=True, default="")
    metadata = models.JSONField(default=dict, blank=True)
    state = models.CharField(
        max_length=16, choices=SessionState.choices, default=SessionState.ACTIVE
    )
    started_at = models.DateTimeField(auto_now_add=True)
    last_activity_at = models.DateTimeField(auto_now_add=True)
    ended_at = models.DateTimeField(null=True, blank=True)
    ended_reason = models.CharField(max_length=32, blank=True)
    summary = models.TextField(blank=True)
    # None: the server default; 0: never ends by itself.
    idle_timeout_secs = models.PositiveIntegerField(null=True, blank=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["agent", "state", "-id"], name="session_agent_state_idx"),
            # A sessions quota's check reads the agent's sessions past its running count's
            # last id (memory.quotas): a range of this index, whatever the agent's size.
            models.Index(fields=["agent", "id"], name="session_agent_id_idx"),
            # A person's newest sessions across agents (knowledge.person_queries).
            models.Index(fields=["user_ref", "-id"], name="session_user_idx"),
        ]

    def __str__(self) -> str:
        who = f" with {self.user_ref}" if self.user_ref else ""
        return f"session {self.pk}{who} ({self.state})"


def is_expired(expires_at: datetime | None, now: datetime) -> bool:
    """Whether a memory with this deadline is expired at ``now``: it has one and ``now`` has
    reached it. The rule of MemoryQuerySet.expired (live is its negation) for one value: a
    stored memory's (Memory.is_expired) or one given for a new memory."""
    return expires_at is not None and expires_at <= now


class MemoryQuerySet(models.QuerySet["Memory"]):
    def live(self, now: datetime) -> "MemoryQuerySet":
        """Not past their expiry (expired ones wait for the expiry pass to delete them)."""
        return self.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))

    def expired(self, now: datetime) -> "MemoryQuerySet":
        """Past their expiry, waiting for the expiry pass (the partial index
        memory_expiry_idx holds only memories with an expiry)."""
        return self.filter(expires_at__isnull=False, expires_at__lte=now)


class Memory(models.Model):
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="memories")
    session = models.ForeignKey(
        Session, on_delete=models.SET_NULL, null=True, blank=True, related_name="memories"
    )
    # The user this memory is about: given with it, or its session's user; NULL for none.
    # (Nullable, unlike Session.user_ref, so that adding it altered the table in place on
    # SQLite instead of rebuilding it, which would have dropped the keyword index triggers.)
    user_ref = models.CharField(max_length=255, null=True, blank=True)  # noqa: DJ001
    content = models.TextField()
    memory_type = models.CharField(
        max_length=16, choices=MemoryType.choices, default=MemoryType.EPISODIC
    )
    importance = models.FloatField(default=0.5)
    metadata = models.JSONField(default=dict, blank=True)
    # Where the memory came from (message ids, document ids...); a merge keeps the
    # references of everything it absorbed.
    source_refs = models.JSONField(default=list, blank=True)
    ttl_seconds = models.PositiveIntegerField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    access_count = models.PositiveIntegerField(default=0)
    last_accessed_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField()
    updated_at = models.DateTimeField()
    embedding = EmbeddingField(null=True, blank=True)
    embedding_model = models.CharField(max_length=200, blank=True)
    # Decay follows its curve from ``decay_base`` at ``decay_from`` (creation, the last
    # access, feedback or an explicit change of importance), so a pass never compounds.
    # Nullable only so that SQLite adds the columns in place (a table rebuild would drop
    # its full-text triggers); every write sets them.
    decay_base = models.FloatField(null=True, blank=True)
    decay_from = models.DateTimeField(null=True, blank=True)
    # Marked irrelevant by feedback: recall demotes it; importance is left alone.
    flagged_at = models.DateTimeField(null=True, blank=True)
    # Who said or wrote it ("Caroline"): given by the client, or read from a leading
    # "Name: text" (language.entities.speaker_of); NULL for none. Nullable so that SQLite adds
    # the column in place (a table rebuild would drop the keyword index's triggers).
    speaker = models.CharField(max_length=200, null=True, blank=True)  # noqa: DJ001
    # What the memory's client-given parts take, as quotas measure it (memory.quotas.
    # memory_size), kept so that usage is an index-only sum. Nullable: a NOT NULL column
    # would rebuild this table on SQLite and drop its keyword-index triggers.
    stored_bytes = models.PositiveIntegerField(null=True, blank=True)
    metadata_bytes = models.PositiveIntegerField(null=True, blank=True)

    objects = MemoryQuerySet.as_manager()

    class Meta:
        ordering = ["-id"]
        verbose_name_plural = "memories"
        constraints = [
            models.CheckConstraint(
                condition=Q(importance__gte=0) & Q(importance__lte=1),
                name="memory_importance_0_1",
            ),
        ]
        indexes = [
            models.Index(fields=["agent", "-id"], name="memory_agent_idx"),
            models.Index(fields=["agent", "session", "id"], name="memory_agent_session_idx"),
            models.Index(fields=["agent", "created_at"], name="memory_agent_created_idx"),
            # A person's newest memories across agents (knowledge.person_queries). An index
            # only: SQLite adds it without rebuilding the table (which would drop the
            # keyword index's triggers).
            models.Index(fields=["user_ref", "-id"], name="memory_user_idx"),
            models.Index(
                fields=["expires_at"],
                condition=Q(expires_at__isnull=False),
                name="memory_expiry_idx",
            ),
            # Covers quota usage: count and both sums of an agent, or of its memories past an
            # id, without reading their rows.
            models.Index(
                fields=["agent", "id", "stored_bytes", "metadata_bytes"],
                name="memory_agent_usage_idx",
            ),
        ]

    def __str__(self) -> str:
        content = self.content if len(self.content) <= 60 else f"{self.content[:59]}…"
        return f"{self.memory_type} memory {self.pk}: {content}"

    def is_expired(self, now: datetime) -> bool:
        """The test of MemoryQuerySet.expired, for a memory already loaded."""
        return is_expired(self.expires_at, now)


class MemoryTag(models.Model):
    """One tag of a memory. Entity tags read ``entity:<type>:<value>``. A table rather than
    a JSON list so that tag filters are indexed joins on every database."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="tag_rows")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    name = models.CharField(max_length=200)

    class Meta:
        constraints = [
            # With the agent, as a table distributed by agent needs (docs/SCALING.md).
            models.UniqueConstraint(fields=["memory", "name", "agent"], name="memory_tag_unique")
        ]
        indexes = [models.Index(fields=["agent", "name"], name="memory_tag_agent_name_idx")]

    def __str__(self) -> str:
        return self.name


class FeedbackKind(models.TextChoices):
    UPVOTE = "upvote"
    DOWNVOTE = "downvote"
    FLAG = "flag"
    UNFLAG = "unflag"


class MemoryFeedback(models.Model):
    """One vote or flag on a memory, with the importance before and after it."""

    memory = models.ForeignKey(Memory, on_delete=models.CASCADE, related_name="feedback")
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    kind = models.CharField(max_length=16, choices=FeedbackKind.choices)
    actor = models.CharField(max_length=255)
    note = models.CharField(max_length=1000, blank=True)
    importance_before = models.FloatField()
    importance_after = models.FloatField()
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-id"]
        indexes = [
            models.Index(fields=["agent", "created_at"], name="feedback_agent_time_idx"),
            models.Index(fields=["created_at"], name="feedback_time_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.kind} on memory {self.memory_id}"


class MaintenanceJob(models.TextChoices):
    DECAY = "decay"
    EXPIRY = "expiry"
    IDLE_SESSIONS = "idle_sessions", "Idle sessions"
    DEDUP = "dedup", "AutoPilot dedup"
    CONSOLIDATE = "consolidate", "AutoPilot consolidation"
    FACT_FRESHNESS = "fact_freshness", "Expired facts ended"


class RunStatus(models.TextChoices):
    RUNNING = "running"
    SUCCEEDED = "succeeded"
    FAILED = "failed"
    # Its worker stopped mid-run (killed, or the machine went away): no heartbeat came.
    INTERRUPTED = "interrupted"


class RunTrigger(models.TextChoices):
    """What started a run: the worker's schedule, a request handed to the worker (Run now on
    the dashboard, the API's trigger: memory.services.maintenance.queue_maintenance), or a
    command run in a terminal."""

    SCHEDULE = "schedule"
    MANUAL = "manual", "Run now / API"
    CLI = "cli", "CLI"


def heartbeat_limit(now: datetime) -> datetime:
    """Work a worker holds whose last sign of life is older than this has lost its worker:
    DEWEE_RUN_STALE_SECS, a few heartbeats (DEWEE_RUN_HEARTBEAT_SECS) missed."""
    return now - timedelta(seconds=settings.DEWEE_RUN_STALE_SECS)


def silent_workers(now: datetime, *signs: str) -> Q:
    """The heartbeat rule, the one test of whether the worker holding a row of work (a
    maintenance run, a queued job it took) is gone: the row's last sign of life, the first
    of the ``signs`` fields that is set (the last heartbeat, else when the work began), is
    older than heartbeat_limit(now). A row with none of them set is not held by a worker."""
    limit = heartbeat_limit(now)
    rule, unset = Q(), Q()
    for field in signs:
        rule |= unset & Q(**{f"{field}__lt": limit})
        unset &= Q(**{f"{field}__isnull": True})
    return rule


class MaintenanceRunQuerySet(models.QuerySet["MaintenanceRun"]):
    def stale(self, now: datetime) -> "MaintenanceRunQuerySet":
        """Runs still marked running whose heartbeat (or start, before the first beat) is
        older than DEWEE_RUN_STALE_SECS: their worker stopped mid-run."""
        return self.filter(
            Q(status=RunStatus.RUNNING) & silent_workers(now, "heartbeat_at", "started_at")
        )


class MaintenanceRun(models.Model):
    """One run of a background job: what it did, to how many memories, how long it took.
    ``agent`` is set when the run was limited to one agent (the CLI, a Run now of an agent);
    ``counts`` holds the totals and ``by_workspace`` the same split per workspace, so a
    workspace's key sees only its own share."""

    job = models.CharField(max_length=32, choices=MaintenanceJob.choices)
    trigger = models.CharField(
        max_length=16, choices=RunTrigger.choices, default=RunTrigger.SCHEDULE
    )
    status = models.CharField(max_length=16, choices=RunStatus.choices, default=RunStatus.RUNNING)
    agent = models.ForeignKey(
        Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    workspace = models.ForeignKey(
        Workspace, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    dry_run = models.BooleanField(default=False)
    started_at = models.DateTimeField()
    finished_at = models.DateTimeField(null=True, blank=True)
    duration_ms = models.PositiveIntegerField(null=True, blank=True)
    touched = models.PositiveIntegerField(default=0)
    counts = models.JSONField(default=dict, blank=True)
    by_workspace = models.JSONField(default=dict, blank=True)
    error = models.TextField(blank=True)
    # Written every DEWEE_RUN_HEARTBEAT_SECS while the run is going.
    heartbeat_at = models.DateTimeField(null=True, blank=True)

    objects = MaintenanceRunQuerySet.as_manager()

    class Meta:
        ordering = ["-started_at", "-id"]
        indexes = [models.Index(fields=["job", "-started_at"], name="maintenance_job_time_idx")]

    def __str__(self) -> str:
        return f"{self.job} {self.started_at:%Y-%m-%d %H:%M} ({self.status})"

    def is_stale(self, now: datetime) -> bool:
        """The same test as MaintenanceRunQuerySet.stale, for a run already loaded."""
        last_sign = self.heartbeat_at or self.started_at
        return self.status == RunStatus.RUNNING and last_sign < heartbeat_limit(now)


def _lost_jobs(now: datetime) -> Q:
    """Queued longer ago than DEWEE_QUEUED_JOB_STALE_SECS and never started (the queue was
    cleared, say), or taken by a worker that went silent before it started the run (it died
    in between): by the heartbeat rule of runs, with the time it was taken as the last sign
    of life, since the run's heartbeats only begin with the run."""
    long_queued = Q(queued_at__lt=now - timedelta(seconds=settings.DEWEE_QUEUED_JOB_STALE_SECS))
    return long_queued | silent_workers(now, "taken_at")


class QueuedJobQuerySet(models.QuerySet["QueuedJob"]):
    def stale(self, now: datetime) -> "QueuedJobQuerySet":
        """Lost (_lost_jobs), so no longer waiting: neither joined by a trigger of the same
        job and scope nor counted against the workspace's cap."""
        return self.filter(_lost_jobs(now))

    def waiting(self, now: datetime) -> "QueuedJobQuerySet":
        """Not stale: still waiting for the worker to start them."""
        return self.exclude(_lost_jobs(now))


class QueuedJob(models.Model):
    """A maintenance job handed to the worker on request (Run now, the API trigger, the CLI)
    that has not started yet: the ledger of what waits in the shared queue, per workspace.
    At most one waits per job and scope (``all``, ``workspace:<pk>`` or ``agent:<pk>``); the
    job marks its row taken as the worker takes it, and deletes it as its run starts.
    ``workspace`` is the one whose share of the queue it takes: the agent's for an agent's
    job, none for an operator's job over every agent."""

    job = models.CharField(max_length=32, choices=MaintenanceJob.choices)
    scope = models.CharField(max_length=64)
    workspace = models.ForeignKey(
        Workspace, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    task_id = models.CharField(max_length=64, blank=True)
    queued_at = models.DateTimeField()
    # When a worker took it (memory.tasks.run_job); a row taken and still here was not
    # started, and once taken too long ago (the heartbeat rule), its worker died.
    taken_at = models.DateTimeField(null=True, blank=True)

    objects = QueuedJobQuerySet.as_manager()

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["job", "scope"], name="queued_job_once_per_scope")
        ]
        indexes = [models.Index(fields=["workspace", "queued_at"], name="queued_job_workspace_idx")]

    def __str__(self) -> str:
        return f"{self.job} for {self.scope}, queued {self.queued_at:%Y-%m-%d %H:%M:%S}"


class WorkerHeartbeat(models.Model):
    """The worker cluster's sign of life on one host: a scheduled task writes it every
    minute, so a recent beat shows that the scheduler, the queue and a worker all run."""

    host = models.CharField(max_length=255, unique=True)
    pid = models.PositiveIntegerField()
    beat_at = models.DateTimeField()

    def __str__(self) -> str:
        return f"{self.host} at {self.beat_at:%Y-%m-%d %H:%M:%S}"


class ImportanceSnapshot(models.Model):
    """An agent's importance distribution after a decay pass: ``buckets`` counts memories
    in ten bands of 0.1, lowest first. The Maintenance page charts these over time."""

    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    taken_at = models.DateTimeField()
    buckets = models.JSONField()
    total = models.PositiveIntegerField()
    mean = models.FloatField()

    class Meta:
        ordering = ["-taken_at"]
        indexes = [models.Index(fields=["agent", "-taken_at"], name="snapshot_agent_time_idx")]

    def __str__(self) -> str:
        return f"importance of agent {self.agent_id} at {self.taken_at:%Y-%m-%d %H:%M}"
