"""Tenancy and bookkeeping shared by every kind of memory: workspaces, agents, API keys,
the audit log and erasure receipts."""

import uuid

from django.db import models

AGENT_ID_MAX_BYTES = 241
DEFAULT_WORKSPACE_SLUG = "default"


class Workspace(models.Model):
    slug = models.SlugField(max_length=64, unique=True)
    name = models.CharField(max_length=200, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["slug"]

    def __str__(self) -> str:
        return self.slug


class AgentQuerySet(models.QuerySet["Agent"]):
    def in_workspace(self, workspace: Workspace) -> "AgentQuerySet":
        return self.filter(workspace=workspace)


class Agent(models.Model):
    """An agent's memory namespace. ``agent_id`` is unique in the whole deployment."""

    agent_id = models.CharField(max_length=AGENT_ID_MAX_BYTES, unique=True)
    workspace = models.ForeignKey(Workspace, on_delete=models.PROTECT, related_name="agents")
    name = models.CharField(max_length=200, blank=True)
    metadata = models.JSONField(default=dict, blank=True)
    created_at = models.DateTimeField(auto_now_add=True)

    objects = AgentQuerySet.as_manager()

    class Meta:
        ordering = ["agent_id"]

    def __str__(self) -> str:
        return self.agent_id


class ApiKeyQuerySet(models.QuerySet["ApiKey"]):
    def active(self) -> "ApiKeyQuerySet":
        return self.filter(revoked_at__isnull=True)


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

    objects = ApiKeyQuerySet.as_manager()

    class Meta:
        ordering = ["-created_at"]
        verbose_name = "API key"

    def __str__(self) -> str:
        return f"{self.name} ({self.prefix}…)"


class AuditAction(models.TextChoices):
    FACT_RESOLVE = "fact.resolve", "Fact resolved"
    FACT_DELETE = "fact.delete", "Fact deleted"
    FACTS_FORGET = "facts.forget", "Facts forgotten"
    KEY_CREATE = "key.create", "API key created"
    KEY_REVOKE = "key.revoke", "API key revoked"


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
        ordering = ["-created_at", "-id"]
        indexes = [models.Index(fields=["target_type", "target_id"], name="audit_target_idx")]

    def __str__(self) -> str:
        return f"{self.created_at:%Y-%m-%d %H:%M} {self.actor} {self.action} {self.target_id}"


class ErasureReceipt(models.Model):
    """Proof that an erasure happened: scope, counts, who and when, none of the content."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    workspace = models.ForeignKey(Workspace, on_delete=models.CASCADE, related_name="+")
    agent = models.ForeignKey(
        Agent, on_delete=models.SET_NULL, null=True, blank=True, related_name="+"
    )
    agent_ref = models.CharField(max_length=AGENT_ID_MAX_BYTES)
    scope = models.JSONField(help_text="What was erased, e.g. {'user': 'u1'}.")
    counts = models.JSONField()
    actor = models.CharField(max_length=255)
    created_at = models.DateTimeField(auto_now_add=True)

    class Meta:
        ordering = ["-created_at"]

    def __str__(self) -> str:
        return f"erasure {self.id} ({self.agent_ref})"
