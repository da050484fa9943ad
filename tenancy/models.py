"""Who owns what: workspaces and their members, agents, API keys, the audit log and
erasure receipts. Every other app builds on these; these build on nothing of ours.

The tables keep the names they had when the memory app owned these models
(migration tenancy 0001 moved them without touching a row)."""

import unicodedata
import uuid
from datetime import datetime

from django.conf import settings
from django.db import models
from django.db.models import Q
from django.db.models.fields.json import KeyTransform

AGENT_ID_MAX_BYTES = 241
DEFAULT_WORKSPACE_SLUG = "default"


class Workspace(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memory_workspace"  # created by the memory app; kept when it moved here
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class MemberRole(models.TextChoices):
    MANAGER = "manager"
    VIEWER = "viewer"


class WorkspaceMember(models.Model):
    """A person's place in a workspace: managers may settle, delete and forget facts;
    viewers only read. Staff operators need no membership: they see every workspace."""

    user = models.ForeignKey(
        settings.AUTH_USER_MODEL, on_delete=models.CASCADE, related_name="workspace_memberships"
    )
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="members")
    role = models.CharField(max_length=16, choices=MemberRole.choices, default=MemberRole.VIEWER)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memory_workspacemember"  # created by the memory app; kept when it moved here
        ordering = ["workspace__slug", "user_id"]
        constraints = [
            models.UniqueConstraint(fields=["user", "workspace"], name="workspace_member_unique")
        ]

    def __str__(self) -> str:
        return f"{self.user} in {self.workspace} ({self.role})"


class AgentQuerySet(models.QuerySet["Agent"]):
    def in_workspace(self, workspace: Workspace) -> "AgentQuerySet":
        return self.filter(workspace=workspace)

    def with_id(self, agent_id: str) -> "Agent | None":
        """The agent ``agent_id`` names in one workspace (call it on ``in_workspace``: ids
        are unique per workspace only), however its accents were typed: new ids are stored
        in NFC (tenancy.validation.clean_new_agent_id), so "café" typed as "e" + a
        combining accent finds the agent "café". An agent stored before ids were normalised
        keeps its id as it was typed then: it is found by that id exactly (first), and by
        the id's NFC or NFD form, so "café" typed either way finds it too."""
        found = self.each_with_id(agent_id)
        return found[0] if found else None

    def each_with_id(self, agent_id: str) -> "list[Agent]":
        """In each workspace of this queryset that has one, the agent ``agent_id`` names
        (as ``with_id`` finds it), ordered by workspace slug."""
        forms = list(
            dict.fromkeys(
                [agent_id, *(unicodedata.normalize(form, agent_id) for form in ("NFC", "NFD"))]
            )
        )
        rank = {form: index for index, form in enumerate(forms)}
        best: dict[int, Agent] = {}
        matches = self.filter(agent_id__in=forms)
        for agent in matches.select_related("workspace"):
            held = best.get(agent.workspace_id)
            if held is None or rank[agent.agent_id] < rank[held.agent_id]:
                best[agent.workspace_id] = agent
        return sorted(best.values(), key=lambda agent: agent.workspace.slug)


class Agent(models.Model):
    """An agent's memory namespace. ``agent_id`` is unique within its workspace: two
    workspaces may each have a "support-bot", and neither learns that the other has one.
    Where no workspace is known (staff, the CLI), ``<workspace-slug>/<agent-id>`` names
    one (see ``qualified_id``)."""

    # Indexed on its own too: staff and the CLI look agents up by id across workspaces.
    agent_id = models.CharField(max_length=AGENT_ID_MAX_BYTES, db_index=True)
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="agents")
    name = models.CharField(max_length=200, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)
    # The model that made this agent's vectors; vectors of different models are not
    # comparable, so recall refuses a mismatch until `dewee memory index-all` re-embeds.
    embedding_model = models.CharField(max_length=200, blank=True)
    embedding_dim = models.PositiveIntegerField(null=True, blank=True)
    # Bumped in the same transaction as every change to the agent's vectors, so each
    # process's in-memory vector matrix knows when it is stale.
    memory_version = models.BigIntegerField(default=0)
    # How this agent's memories age: see memory.services.policy (empty: the server defaults).
    memory_policy = models.JSONField(default=dict, blank=True)

    objects = AgentQuerySet.as_manager()

    class Meta:
        db_table = "memory_agent"  # created by the memory app; kept when it moved here
        ordering = ["agent_id", "workspace_id"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "agent_id"],
                name="agent_id_unique_in_workspace",
                violation_error_message="This workspace already has an agent with this id.",
            )
        ]

    def __str__(self) -> str:
        # Agent ids repeat across workspaces: only the qualified id names one (load lists
        # with select_related("workspace")).
        return self.qualified_id

    @property
    def qualified_id(self) -> str:
        """``<workspace-slug>/<agent-id>``: names this agent wherever every workspace is
        visible (slugs hold no '/', so the first '/' ends the slug)."""
        return f"{self.workspace.slug}/{self.agent_id}"


class Scope(models.TextChoices):
    """What an API key may do. ``read``: look (lists, recall, context, checks);
    ``write``: store and change; ``admin``: erase in bulk, merge, change policies and run
    maintenance. Each API operation declares the one it needs (dewee.api_auth)."""

    READ = "read"
    WRITE = "write"
    ADMIN = "admin"


class KeyState(models.TextChoices):
    ACTIVE = "active"
    EXPIRED = "expired"
    REVOKED = "revoked"


class ApiKeyQuerySet(models.QuerySet["ApiKey"]):
    def active(self) -> "ApiKeyQuerySet":
        """Not revoked (an expired key is still found, so that it can be refused as such)."""
        return self.filter(revoked_at__isnull=True)

    def usable(self, now: datetime) -> "ApiKeyQuerySet":
        """Neither revoked nor expired at ``now``."""
        return self.active().filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))


class ApiKey(models.Model):
    """A workspace's key. Only the SHA-256 of the secret is stored: keys are 256-bit random
    tokens, so a fast hash is enough and lets a request find its key with one index probe."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="api_keys")
    name = models.CharField(max_length=200)
    prefix = models.CharField(max_length=16, help_text="The start of the key, for recognising it.")
    key_hash = models.CharField(max_length=64, unique=True)
    created_at = models.DateTimeField(auto_now_add=True)
    last_used_at = models.DateTimeField(null=True, blank=True)
    revoked_at = models.DateTimeField(null=True, blank=True)
    # One column per scope (not a JSON list): each is a plain boolean the database can
    # index, filter and constrain the same way on SQLite and PostgreSQL, and a key with
    # no scope at all is refused by a constraint.
    scope_read = models.BooleanField("read", default=True)
    scope_write = models.BooleanField("write", default=True)
    scope_admin = models.BooleanField("admin", default=False)
    # The agents the key may use, by id in NFC (tenancy.services.clean_key_agent_ids);
    # empty: every agent of its workspace. A listed agent need not exist yet.
    agent_ids = models.JSONField(default=list, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        db_table = "memory_apikey"  # created by the memory app; kept when it moved here
        ordering = ["-created_at"]
        verbose_name = "API key"
        constraints = [
            models.CheckConstraint(
                condition=Q(scope_read=True) | Q(scope_write=True) | Q(scope_admin=True),
                name="api_key_has_a_scope",
            )
        ]

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"

    @property
    def scopes(self) -> frozenset[Scope]:
        held = (self.scope_read, self.scope_write, self.scope_admin)
        return frozenset(scope for scope, has in zip(Scope, held, strict=True) if has)

    def scope_names(self) -> list[str]:
        """The key's scopes in their fixed order (read, write, admin)."""
        return [scope.value for scope in Scope if scope in self.scopes]

    def state(self, now: datetime) -> KeyState:
        if self.revoked_at is not None:
            return KeyState.REVOKED
        if self.expires_at is not None and self.expires_at <= now:
            return KeyState.EXPIRED
        return KeyState.ACTIVE


class AuditAction(models.TextChoices):
    FACT_RESOLVE = "fact.resolve", "Fact resolved"
    FACT_DELETE = "fact.delete", "Fact deleted"
    FACT_END = "fact.end", "Fact ended"
    FACT_RESTORE = "fact.restore", "Fact restored"
    FACT_UNDO = "fact.undo", "Resolution undone"
    FACT_REOPEN = "fact.reopen", "Fact reopened"
    FACT_RECONFIRM = "fact.reconfirm", "Fact re-confirmed"
    FACT_ASSIGN = "fact.assign", "Dispute assigned"
    FACT_SNOOZE = "fact.snooze", "Dispute snoozed"
    FACTS_FORGET = "facts.forget", "Facts forgotten"
    MEMORY_DELETE = "memory.delete", "Memories deleted"
    MEMORY_UPDATE = "memory.update", "Memory edited"
    MEMORY_MERGE = "memory.merge", "Memories merged"
    MEMORY_LINK = "memory.link", "Memories linked"
    MEMORY_UNLINK = "memory.unlink", "Memories unlinked"
    SESSION_DELETE = "session.delete", "Session deleted"
    PERSON_FORGET = "person.forget", "Person erased"
    POLICY_CHANGE = "policy.change", "Memory policy changed"
    AGENT_RENAME = "agent.rename", "Agent renamed"
    MEMBER_ADD = "member.add", "Member added"
    MEMBER_ROLE = "member.role", "Member role changed"
    MEMBER_REMOVE = "member.remove", "Member removed"
    MEMBER_INVITE = "member.invite", "Sign-in link renewed"
    KEY_CREATE = "key.create", "API key created"
    KEY_REVOKE = "key.revoke", "API key revoked"
    KEY_UPDATE = "key.update", "API key changed"
    QUOTA_SET = "quota.set", "Quota changed"


class AuditEvent(models.Model):
    """Who did what to which item, and when. ``details`` never holds erasable content
    beyond what the item itself holds: forgetting an item erases its events too."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, null=True, blank=True, related_name="+"
    )
    actor = models.CharField(max_length=255)
    action = models.CharField(max_length=32, choices=AuditAction.choices)
    target_type = models.CharField(max_length=32)
    target_id = models.CharField(max_length=64, blank=True)
    details = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True, db_index=True)

    class Meta:
        db_table = "memory_auditevent"  # created by the memory app; kept when it moved here
        ordering = ["-created_at", "-id"]
        indexes = [
            models.Index(fields=["target_type", "target_id"], name="audit_target_idx"),
            # The audit log's user filter and a person's erasure find events by the user
            # they are about (details.user); without it, a rare user is a scan of the log.
            models.Index(KeyTransform("user", "details"), name="audit_user_idx"),
            # A workspace's log, newest first, read in index order until a page is full.
            models.Index(fields=["workspace", "-id"], name="audit_workspace_recent_idx"),
        ]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target_id}"


class ErasureReceipt(models.Model):
    """Proof that an erasure happened: scope, counts, who and when, none of the content.
    A user in ``scope`` is held as an HMAC of their id (``user_hmac``, tenancy.receipts),
    never in clear. A person's erasure covers every agent of the workspace: ``agent`` is
    NULL and ``agent_ref`` empty."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    agent_ref = models.CharField(max_length=AGENT_ID_MAX_BYTES, blank=True)
    scope = models.JSONField(
        help_text="What was erased, e.g. {'user_hmac': '…'} or {'subject': 'acme'}."
    )
    counts = models.JSONField()
    actor = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        db_table = "memory_erasurereceipt"  # created by the memory app; kept when it moved here
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"erasure {self.id} ({self.agent_ref})"


class QuotaKind(models.TextChoices):
    """What a quota limits; see memory.quotas for how each is measured."""

    MEMORIES = "memories"
    STORAGE_BYTES = "storage_bytes", "Storage bytes"
    METADATA_BYTES = "metadata_bytes", "Metadata bytes"
    SESSIONS = "sessions"
    FACTS = "facts"
    ENTITIES = "entities"


class QuotaMode(models.TextChoices):
    """What happens to a write that would take usage over the limit: ``hard`` refuses it,
    ``soft`` writes it and warns (the agent or workspace is flagged), ``none`` only shows
    the usage against the limit."""

    HARD = "hard"
    SOFT = "soft"
    NONE = "none"


class Quota(models.Model):
    """One limit of a workspace (``agent`` None: all its agents together) or of one of its
    agents. At most one of each kind per scope."""

    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="quotas")
    agent = models.ForeignKey(
        Agent, on_delete=models.CASCADE, null=True, blank=True, related_name="quotas"
    )
    kind = models.CharField(max_length=16, choices=QuotaKind.choices)
    limit = models.BigIntegerField()
    mode = models.CharField(max_length=8, choices=QuotaMode.choices, default=QuotaMode.HARD)
    updated_at = models.DateTimeField(auto_now=True)
    updated_by = models.CharField(max_length=255, blank=True)
    # The scope's usage of this kind over its rows up to id ``counted_to_id``, kept as they
    # are deleted or grow (null: not yet counted, or dropped by a write it cannot follow);
    # with the rows stored since, the usage, without a count of the scope (memory.quotas).
    counted = models.BigIntegerField(null=True, blank=True, editable=False)
    counted_to_id = models.BigIntegerField(default=0, editable=False)

    class Meta:
        ordering = ["workspace_id", "agent_id", "kind"]
        constraints = [
            models.UniqueConstraint(
                fields=["workspace", "agent", "kind"],
                condition=models.Q(agent__isnull=False),
                name="quota_agent_kind_unique",
            ),
            models.UniqueConstraint(
                fields=["workspace", "kind"],
                condition=models.Q(agent__isnull=True),
                name="quota_workspace_kind_unique",
            ),
            models.CheckConstraint(
                condition=models.Q(limit__gte=0), name="quota_limit_not_negative"
            ),
        ]

    def __str__(self) -> str:
        scope = f"agent {self.agent_id}" if self.agent_id else f"workspace {self.workspace_id}"
        return f"{self.kind} <= {self.limit} ({self.mode}) for {scope}"


# A person's saved views of the dashboard's lists: a model of this app, in a module of its own.
from tenancy.preferences import SavedView as SavedView  # noqa: E402
