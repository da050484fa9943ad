"""Point-in-time answers are exact (issue 24): over random sequences of asserting values,
accepting, rejecting, undoing, reopening, deleting, restoring and ending, the as-of view at
any time T answers what the facts were right after the last event before T (a replay of the
events up to T), and never shows two current values in one slot.

Each step is timed: ``before`` and ``after`` bracket every write the step makes (the services
read the clock inside). Right after a step the live statuses are the truth for any T from
``after`` until the next step's ``before``; at the end of the sequence every such T is asked
again through the as-of query (FactFilters(as_of=T)), so later events had every chance to
rewrite the past."""

from dataclasses import dataclass
from datetime import datetime

import pytest
from django.db import transaction
from django.utils import timezone
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, precondition, rule, run_state_machine_as_test

from dewee.errors import DeweeError
from facts.models import Fact, Status
from facts.queries import FactFilters, filter_facts
from facts.services import (
    delete_fact,
    end_fact,
    reopen_fact,
    resolve_fact,
    restore_fact,
    undo_resolution,
)
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)

VALUES = ("Acme", "Globex", "Initech", "Umbrella")
TRUST = ("inferred", "stated", "confirmed")
ACTOR = "ann"


@dataclass(frozen=True)
class Step:
    name: str
    after: datetime
    statuses: dict[int, str]


def _statuses(agent) -> dict[int, str]:
    return dict(Fact.objects.filter(agent=agent).values_list("id", "status"))


def _as_of(agent, moment: datetime) -> dict[int, str]:
    facts = filter_facts(agent, FactFilters(as_of=moment))
    return {f.pk: getattr(f, "status_then") for f in facts}  # noqa: B009


class History(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.agent = make_agent(make_workspace())
        self.steps: list[Step] = []
        self.starts: list[datetime] = []

    def _pick(self, data, status: str) -> Fact | None:
        facts = list(Fact.objects.filter(agent=self.agent, status=status).order_by("id"))
        return data.draw(st.sampled_from(facts)) if facts else None

    def _step(self, name: str, action) -> None:
        self.starts.append(timezone.now())
        try:
            with transaction.atomic():
                action()
        except DeweeError:
            pass  # refused: nothing written, still a step in time
        self.steps.append(Step(name, timezone.now(), _statuses(self.agent)))

    @rule(value=st.sampled_from(VALUES), trust=st.sampled_from(TRUST))
    def assert_value(self, value: str, trust: str) -> None:
        self._step(
            f"assert {value} ({trust})", lambda: state(self.agent, value, verification=trust)
        )

    @rule(data=st.data(), accept=st.booleans())
    def settle(self, data, accept: bool) -> None:
        fact = self._pick(data, Status.DISPUTED)
        if fact is not None:
            action = "accept" if accept else "reject"
            self._step(
                f"{action} {fact.pk}",
                lambda: resolve_fact(fact=fact, action=action, actor=ACTOR),
            )

    @rule(data=st.data(), latest=st.booleans())
    def undo(self, data, latest: bool) -> None:
        # Mostly the fact settled last (an undo is asked right after the decision), else any.
        settled = Fact.objects.filter(agent=self.agent).exclude(status_changed_by="test")
        fact = settled.order_by("-id").first() if latest else self._pick(data, Status.CURRENT)
        if fact is not None:
            self._step(f"undo {fact.pk}", lambda: undo_resolution(fact=fact, actor=ACTOR))

    @rule(data=st.data())
    def reopen(self, data) -> None:
        fact = self._pick(data, Status.REJECTED)
        if fact is not None:
            self._step(f"reopen {fact.pk}", lambda: reopen_fact(fact=fact, actor=ACTOR))

    @rule(data=st.data(), status=st.sampled_from([Status.CURRENT, Status.HISTORY, Status.DISPUTED]))
    def delete(self, data, status: str) -> None:
        fact = self._pick(data, status)
        if fact is not None:
            self._step(f"delete {fact.pk}", lambda: delete_fact(fact=fact, actor=ACTOR))

    @rule(data=st.data())
    def restore(self, data) -> None:
        fact = self._pick(data, Status.DELETED)
        if fact is not None:
            self._step(f"restore {fact.pk}", lambda: restore_fact(fact=fact, actor=ACTOR))

    @rule(data=st.data())
    def end(self, data) -> None:
        fact = self._pick(data, Status.CURRENT)
        if fact is not None:
            self._step(f"end {fact.pk}", lambda: end_fact(fact=fact, actor=ACTOR))

    def teardown(self) -> None:
        self.the_past_reads_as_it_was()
        super().teardown()

    @precondition(lambda self: self.steps)
    @rule()
    def the_past_reads_as_it_was(self) -> None:
        for index, step in enumerate(self.steps):
            # Any time from just after this step until just before the next one.
            ends = self.starts[index + 1] if index + 1 < len(self.starts) else timezone.now()
            for moment in (step.after, step.after + (ends - step.after) / 2):
                seen = _as_of(self.agent, moment)
                names = [s.name for s in self.steps[: index + 1]]
                assert seen == step.statuses, (moment, names)
                assert list(seen.values()).count(Status.CURRENT) <= 1, (moment, names)


def test_as_of_answers_what_a_replay_answers_at_every_time():
    run_state_machine_as_test(
        History,
        settings=settings(
            max_examples=40,
            stateful_step_count=14,
            deadline=None,
            derandomize=True,
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
            suppress_health_check=list(HealthCheck),
        ),
    )


def test_an_undone_accept_leaves_one_current_value_at_every_time(agent):
    """The case the property found first, spelled out: between an accept and its undo the
    accepted value was the one believed, the replaced one history; after the undo, the
    other way round."""
    acme = state(agent, "Acme", verification="confirmed").fact
    globex = state(agent, "Globex", verification="stated").fact
    disputed = timezone.now()
    resolve_fact(fact=globex, action="accept", actor=ACTOR)
    accepted = timezone.now()
    undo_resolution(fact=globex, actor=ACTOR)
    undone = timezone.now()
    assert _as_of(agent, accepted) == {acme.pk: "history", globex.pk: "current"}
    assert _as_of(agent, undone) == {acme.pk: "current", globex.pk: "disputed"}
    assert _as_of(agent, disputed) == {acme.pk: "current", globex.pk: "disputed"}
