"""How people share the review of disputed facts: who looks after a dispute and until when
it is put aside (:class:`DisputeTriage`), and what they said about a fact
(:class:`FactComment`).

Both carry the fact's agent, as every table distributed by agent does (dewee.distribution):
on PostgreSQL the key into facts is ``(agent_id, fact_id)``, made by the migration, since
facts are keyed by ``(agent_id, id)`` there (dewee.partitions). Django still deletes along
``fact`` itself, so erasing a fact erases its comments and its triage with it."""

from django.conf import settings
from django.db import models

from facts.models.fact import Fact
from tenancy.models import Agent

COMMENT_MAX_CHARS = 5000


class DisputeTriage(models.Model):
    """A disputed fact's place in the team's work: the member it is assigned to, and the
    time it is snoozed until (the queue hides it until then). One row per fact at most;
    a dispute nobody touched has none."""

    fact = models.ForeignKey(
        Fact, on_delete=models.CASCADE, related_name="triage", db_constraint=False
    )
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    assignee = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    snoozed_until = models.DateTimeField(null=True, blank=True)
    updated_at = models.DateTimeField()
    updated_by = models.CharField(max_length=255, blank=True)

    class Meta:
        constraints = [
            models.UniqueConstraint(fields=["fact", "agent"], name="dispute_triage_one_per_fact")
        ]
        indexes = [
            models.Index(fields=["assignee", "fact"], name="dispute_triage_assignee_idx"),
        ]

    def __str__(self) -> str:
        return f"fact {self.fact_id}: {self.assignee_id or '-'} until {self.snoozed_until}"


class FactComment(models.Model):
    """One message of the thread on a fact, as its author wrote it."""

    fact = models.ForeignKey(
        Fact, on_delete=models.CASCADE, related_name="comments", db_constraint=False
    )
    agent = models.ForeignKey(Agent, on_delete=models.CASCADE, related_name="+")
    author = models.ForeignKey(
        settings.AUTH_USER_MODEL,
        on_delete=models.SET_NULL,
        null=True,
        blank=True,
        related_name="+",
    )
    # The author's name when they wrote it: kept when the login is removed.
    author_name = models.CharField(max_length=255)
    body = models.TextField()
    created_at = models.DateTimeField()

    class Meta:
        ordering = ["created_at", "id"]
        indexes = [models.Index(fields=["fact", "created_at"], name="fact_comment_fact_idx")]

    def __str__(self) -> str:
        return f"{self.author_name} on fact {self.fact_id}"
