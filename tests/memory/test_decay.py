"""The decay pass: curves and type speeds against hand-computed values, idempotence, access
restarting decay, the floor, dry runs, snapshots, and `dewee memory decay`.

Expected values are worked out by hand from the formulas (half-life 168 h, floor 0.01):
t = age_hours x speed / 168, importance = max(min(base, 0.01), base x curve(t)).
"""

import json
import re
import threading
import time
from datetime import UTC, datetime, timedelta

import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection, connections, transaction
from django.utils import timezone

from dewee.cli import main
from memory.maintenance.decay_curves import check_decay_settings
from memory.models import ImportanceSnapshot, MaintenanceRun, Memory
from memory.services import (
    MemoryInput,
    decay_pass,
    record_access,
    set_memory_policy,
    store_memories,
)
from tenancy.models import Agent
from tests.factories import make_agent

NOW = datetime(2026, 3, 1, 12, 0, tzinfo=UTC)


def aged(agent, *, base=0.8, hours=0.0, memory_type="episodic", accessed=True, start=NOW):
    """A memory stored through the service whose decay curve started ``hours`` before
    ``start`` (accessed once, unless ``accessed`` is False)."""
    (memory,) = store_memories(
        agent=agent,
        items=[
            MemoryInput(content="Ann moved to Lisbon", importance=base, memory_type=memory_type)
        ],
    )
    Memory.objects.filter(pk=memory.pk).update(
        decay_from=start - timedelta(hours=hours), access_count=1 if accessed else 0
    )
    return memory


def importance(memory) -> float:
    return Memory.objects.get(pk=memory.pk).importance


def only(agent):
    return Agent.objects.filter(pk=agent.pk)


def use_strategy(agent, strategy):
    set_memory_policy(
        agent=agent,
        policy={
            "strategy": dict.fromkeys(("episodic", "semantic", "procedural", "working"), strategy)
        },
        actor="test",
    )


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("memory_type", "hours", "accessed", "expected"),
    [
        # exponential, episodic (speed 1): halves every 168 h
        ("episodic", 0, True, 0.8),
        ("episodic", 84, True, 0.565685425),  # 0.8 x 0.5 ** 0.5
        ("episodic", 168, True, 0.4),
        ("episodic", 336, True, 0.2),
        ("episodic", 504, True, 0.1),
        # semantic (speed 0.5): halves every 336 h
        ("semantic", 168, True, 0.565685425),
        ("semantic", 336, True, 0.4),
        ("semantic", 672, True, 0.2),
        # procedural (speed 0.3): halves every 560 h
        ("procedural", 168, True, 0.649801917),  # 0.8 x 0.5 ** 0.3
        ("procedural", 560, True, 0.4),
        # working (speed 3): halves every 56 h
        ("working", 56, True, 0.4),
        ("working", 112, True, 0.2),
        # never accessed: 1.5 x faster (episodic halves every 112 h, working every 37.33 h)
        ("episodic", 112, False, 0.4),
        ("episodic", 224, False, 0.2),
        ("episodic", 168, False, 0.282842712),  # 0.8 x 0.5 ** 1.5
        ("working", 56, False, 0.282842712),  # t = 56 x 3 x 1.5 / 168 = 1.5
    ],
)
def test_exponential_decay_by_type_speed_and_access(agent, memory_type, hours, accessed, expected):
    memory = aged(agent, hours=hours, memory_type=memory_type, accessed=accessed)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(expected, abs=1e-6)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("strategy", "hours", "expected"),
    [
        # linear: 1 - t / 2, zero (so the floor) from two half-lives
        ("linear", 84, 0.6),
        ("linear", 168, 0.4),
        ("linear", 252, 0.2),
        ("linear", 336, 0.01),
        ("linear", 1000, 0.01),
        # step_function: 0.5 ** floor(t), away from the steps themselves
        ("step_function", 100, 0.8),
        ("step_function", 167, 0.8),
        ("step_function", 170, 0.4),
        ("step_function", 335, 0.4),
        ("step_function", 340, 0.2),
        # power_law: 1 / (1 + t)
        ("power_law", 84, 0.533333333),
        ("power_law", 168, 0.4),
        ("power_law", 336, 0.266666667),
        ("power_law", 504, 0.2),
        # logarithmic: 1 - log2(1 + t) / 2, zero at t = 3
        ("logarithmic", 84, 0.566015),  # 0.8 x (1 - 0.5849625 / 2)
        ("logarithmic", 168, 0.4),
        ("logarithmic", 336, 0.166015),  # 0.8 x (1 - 1.5849625 / 2)
        ("logarithmic", 504, 0.01),
        # flat: never
        ("flat", 168, 0.8),
        ("flat", 100_000, 0.8),
    ],
)
def test_each_strategy_follows_its_curve(agent, strategy, hours, expected):
    use_strategy(agent, strategy)
    memory = aged(agent, hours=hours)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(expected, abs=1e-6)


@pytest.mark.django_db
def test_type_speed_applies_to_other_strategies(agent):
    use_strategy(agent, "linear")
    semantic = aged(agent, hours=168, memory_type="semantic")  # t = 0.5: 0.8 x 0.75
    working = aged(agent, hours=28, memory_type="working")  # t = 0.5
    fresh = aged(agent, hours=84, accessed=False)  # t = 0.75: 0.8 x 0.625
    decay_pass(agents=only(agent), now=NOW)
    assert importance(semantic) == pytest.approx(0.6, abs=1e-6)
    assert importance(working) == pytest.approx(0.6, abs=1e-6)
    assert importance(fresh) == pytest.approx(0.5, abs=1e-6)


@pytest.mark.django_db
def test_server_strategy_setting_applies_to_agents_without_a_choice(agent, settings):
    settings.DEWEE_DECAY_STRATEGY = "power_law"
    memory = aged(agent, hours=336)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(0.266666667, abs=1e-6)


@pytest.mark.django_db
def test_agents_with_their_own_strategy_decay_by_it_in_the_same_pass(agent, workspace):
    keeper = make_agent(workspace, "keeper")
    set_memory_policy(agent=keeper, policy={"strategy": {"episodic": "flat"}}, actor="test")
    kept = aged(keeper, hours=336)
    kept_working = aged(keeper, hours=56, memory_type="working")  # not chosen: exponential
    faded = aged(agent, hours=336)
    result = decay_pass(now=NOW)
    assert importance(kept) == pytest.approx(0.8)
    assert importance(kept_working) == pytest.approx(0.4, abs=1e-6)
    assert importance(faded) == pytest.approx(0.2, abs=1e-6)
    assert result.touched == 2


@pytest.mark.django_db
def test_a_pass_is_idempotent(agent):
    memories = [aged(agent, hours=h, accessed=h % 2 == 0) for h in (0, 13, 168, 777)]
    first = decay_pass(agents=only(agent), now=NOW)
    values = [importance(m) for m in memories]
    second = decay_pass(agents=only(agent), now=NOW)
    assert first.touched == 3  # the one at age 0 is already where its curve is
    assert second.touched == 0
    assert [importance(m) for m in memories] == values


@pytest.mark.django_db
def test_a_pass_every_minute_ends_where_one_pass_ends(agent, workspace):
    once = make_agent(workspace, "once")
    setups = [(0.8, 5, "episodic", True), (0.6, 100, "working", False), (0.3, 40, "semantic", True)]
    minutely = [aged(agent, base=b, hours=h, memory_type=t, accessed=a) for b, h, t, a in setups]
    single = [aged(once, base=b, hours=h, memory_type=t, accessed=a) for b, h, t, a in setups]
    for minute in range(1, 121):
        decay_pass(agents=only(agent), now=NOW + timedelta(minutes=minute))
    decay_pass(agents=only(once), now=NOW + timedelta(minutes=120))
    assert [importance(m) for m in minutely] == pytest.approx(
        [importance(m) for m in single], abs=1e-12
    )
    # 0.8 x 0.5 ** (7 / 168): no compounding of the 120 small steps
    assert importance(minutely[0]) == pytest.approx(0.777226, abs=1e-6)


@pytest.mark.django_db
def test_small_batches_reach_every_memory(agent, settings):
    settings.DEWEE_DECAY_BATCH_SIZE = 2
    memories = [aged(agent, hours=168) for _ in range(5)]
    result = decay_pass(agents=only(agent), now=NOW)
    assert result.touched == 5
    assert [importance(m) for m in memories] == pytest.approx([0.4] * 5, abs=1e-6)


@pytest.mark.django_db
def test_an_access_restarts_decay_from_the_current_importance(agent):
    use_strategy(agent, "linear")
    memory = aged(agent, hours=84)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(0.6, abs=1e-6)
    record_access([memory.pk], now=NOW)
    stored = Memory.objects.get(pk=memory.pk)
    assert stored.decay_base == pytest.approx(0.6, abs=1e-6)
    assert stored.decay_from == NOW
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(0.6, abs=1e-6)
    # 84 h after the access: 0.6 x 0.75 (without the restart it would be 0.8 x 0.5)
    decay_pass(agents=only(agent), now=NOW + timedelta(hours=84))
    assert importance(memory) == pytest.approx(0.45, abs=1e-6)


@pytest.mark.django_db
def test_the_first_access_ends_the_faster_decay_of_unused_memories(agent):
    memory = aged(agent, hours=112, accessed=False)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(0.4, abs=1e-6)
    record_access([memory.pk], now=NOW)
    decay_pass(agents=only(agent), now=NOW + timedelta(hours=168))
    assert importance(memory) == pytest.approx(0.2, abs=1e-6)


@pytest.mark.django_db
def test_the_floor_holds_and_a_base_below_it_is_not_raised(agent):
    old = aged(agent, hours=50_000)
    tiny = aged(agent, base=0.005, hours=50_000)
    zero = aged(agent, base=0.0, hours=168)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(old) == pytest.approx(0.01)
    assert importance(tiny) == pytest.approx(0.005)
    assert importance(zero) == 0.0


@pytest.mark.django_db
def test_floor_setting(agent, settings):
    settings.DEWEE_DECAY_MIN_IMPORTANCE = 0.3
    memory = aged(agent, hours=336)
    decay_pass(agents=only(agent), now=NOW)
    assert importance(memory) == pytest.approx(0.3)


@pytest.mark.django_db
def test_decay_never_deletes_nor_raises_above_the_base(agent):
    memories = [aged(agent, hours=h) for h in (0, 10_000, 100_000)]
    # A pass "before" the curves started (a clock behind) keeps them at their base.
    decay_pass(agents=only(agent), now=NOW - timedelta(hours=200_000))
    assert [importance(m) for m in memories] == pytest.approx([0.8, 0.8, 0.8])
    decay_pass(agents=only(agent), now=NOW + timedelta(days=3650))
    assert Memory.objects.filter(agent=agent).count() == 3
    assert all(importance(m) == pytest.approx(0.01) for m in memories)


@pytest.mark.django_db
def test_a_pass_over_one_agent_leaves_the_others_alone(agent, other_agent):
    mine = aged(agent, hours=168)
    theirs = aged(other_agent, hours=168)
    result = decay_pass(agents=only(agent), now=NOW)
    assert importance(mine) == pytest.approx(0.4, abs=1e-6)
    assert importance(theirs) == pytest.approx(0.8)
    assert result.by_workspace == {agent.workspace_id: {"touched": 1, "memories": 1, "changed": 1}}
    assert not ImportanceSnapshot.objects.filter(agent=other_agent).exists()


@pytest.mark.django_db
def test_a_dry_run_reports_the_change_and_writes_nothing(agent):
    memories = [aged(agent, base=0.9, hours=168) for _ in range(3)] + [aged(agent, base=0.55)]
    result = decay_pass(agents=only(agent), now=NOW, dry_run=True)
    assert result.touched == 3
    assert dict(result.counts) == {"memories": 4, "changed": 3}
    # 0.9 -> 0.45 (band 4); 0.55 stays in band 5
    assert result.before == [0, 0, 0, 0, 0, 1, 0, 0, 0, 3]
    assert result.after == [0, 0, 0, 0, 3, 1, 0, 0, 0, 0]
    assert [importance(m) for m in memories] == [0.9, 0.9, 0.9, 0.55]
    assert not ImportanceSnapshot.objects.exists()


@pytest.mark.django_db
def test_a_pass_records_the_distribution_per_agent(agent, other_agent):
    aged(agent, base=0.95)
    aged(agent, base=0.9, hours=168)  # 0.45
    aged(agent, base=0.5, hours=168)  # 0.25
    aged(agent, base=0.05, hours=168)  # 0.025
    aged(other_agent, base=0.7)
    result = decay_pass(now=NOW)
    assert result.before == [1, 0, 0, 0, 0, 1, 0, 1, 0, 2]
    assert result.after == [1, 0, 1, 0, 1, 0, 0, 1, 0, 1]
    snapshot = ImportanceSnapshot.objects.get(agent=agent)
    assert snapshot.taken_at == NOW
    assert snapshot.buckets == [1, 0, 1, 0, 1, 0, 0, 0, 0, 1]
    assert snapshot.total == 4
    assert snapshot.mean == pytest.approx((0.95 + 0.45 + 0.25 + 0.025) / 4, abs=1e-6)
    other = ImportanceSnapshot.objects.get(agent=other_agent)
    assert (other.buckets, other.total, other.mean) == ([0, 0, 0, 0, 0, 0, 0, 1, 0, 0], 1, 0.7)


@pytest.mark.django_db
def test_snapshots_are_kept_for_ninety_days(agent, other_agent):
    aged(agent)
    aged(other_agent)
    for days in (100, 91, 89):
        decay_pass(agents=Agent.objects.filter(pk=other_agent.pk), now=NOW - timedelta(days=days))
        decay_pass(agents=Agent.objects.filter(pk=agent.pk), now=NOW - timedelta(days=days))
    decay_pass(agents=Agent.objects.filter(pk=agent.pk), now=NOW)
    kept = ImportanceSnapshot.objects.filter(agent=agent).values_list("taken_at", flat=True)
    assert sorted(kept) == [NOW - timedelta(days=89), NOW]
    # Another agent's history is pruned only by passes over that agent.
    assert ImportanceSnapshot.objects.filter(agent=other_agent).count() == 3


@pytest.mark.django_db
def test_an_unknown_strategy_setting_is_refused_clearly(agent, settings):
    settings.DEWEE_DECAY_STRATEGY = "sideways"
    errors = check_decay_settings()
    assert [e.id for e in errors] == ["dewee.E101"]
    assert "sideways" in errors[0].msg
    with pytest.raises(ImproperlyConfigured, match="DEWEE_DECAY_STRATEGY"):
        decay_pass(now=NOW)


@pytest.mark.django_db
@pytest.mark.parametrize(
    ("name", "value", "code"),
    [
        ("DEWEE_DECAY_HALF_LIFE_HOURS", 0, "dewee.E102"),
        ("DEWEE_DECAY_MIN_IMPORTANCE", 1.5, "dewee.E103"),
        ("DEWEE_DECAY_BATCH_SIZE", 0, "dewee.E104"),
    ],
)
def test_other_bad_decay_settings_are_refused_before_a_pass(agent, settings, name, value, code):
    setattr(settings, name, value)
    assert [e.id for e in check_decay_settings()] == [code]
    aged(agent)
    with pytest.raises(ImproperlyConfigured, match=name):
        decay_pass(now=NOW)


def test_sane_decay_settings_pass_the_check():
    assert check_decay_settings() == []


# --- the CLI ---


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.django_db(transaction=True)
def test_cli_decay_with_json_and_dry_run(capsys, agent, other_agent):
    now = timezone.now()
    memories = [aged(agent, base=0.9, hours=168, start=now) for _ in range(2)]
    # Its curve starts tomorrow (a clock ahead): it stays exactly at its base.
    aged(agent, base=0.3, hours=-24, start=now)
    theirs = aged(other_agent, base=0.9, hours=168, start=now)

    code, out, _ = run(capsys, "memory", "decay", "--agent", "support-bot", "--dry-run", "--json")
    assert code == 0
    report = json.loads(out)
    assert report == {
        "agent_id": "support-bot",
        "dry_run": True,
        "memories": 3,
        "changed": 2,
        "before": [0, 0, 0, 1, 0, 0, 0, 0, 0, 2],
        "after": [0, 0, 0, 1, 2, 0, 0, 0, 0, 0],
    }
    assert [importance(m) for m in memories] == [0.9, 0.9]

    code, out, _ = run(capsys, "memory", "decay", "--agent", "support-bot", "--json")
    assert code == 0
    assert json.loads(out)["changed"] == 2
    assert [importance(m) for m in memories] == pytest.approx([0.45, 0.45], abs=1e-4)
    assert importance(theirs) == 0.9

    code, out, _ = run(capsys, "memory", "decay", "--agent", "support-bot")
    assert code == 0
    lines = out.splitlines()
    # The two decayed ones may move a hair further in the milliseconds since.
    assert re.fullmatch(r"Changed the importance of [0-2] of 3 memories of support-bot\.", lines[0])
    assert lines[1].split() == ["IMPORTANCE", "BEFORE", "AFTER"]
    assert lines[6].split() == ["0.4-0.5", "2", "2"]
    # Each run is recorded for the Maintenance page, the dry one marked as such.
    runs = MaintenanceRun.objects.order_by("id").values_list("trigger", "dry_run", "agent_id")
    assert list(runs) == [
        ("cli", True, agent.pk),
        ("cli", False, agent.pk),
        ("cli", False, agent.pk),
    ]


@pytest.mark.django_db(transaction=True)
def test_cli_decay_of_an_unknown_agent_fails(capsys, agent):
    code, _, err = run(capsys, "memory", "decay", "--agent", "nobody")
    assert code == 1
    assert "nobody" in err


@pytest.mark.django_db(transaction=True)
def test_on_postgresql_a_pass_gives_way_to_a_recall_instead_of_deadlocking(agent):
    if connection.vendor != "postgresql":
        pytest.skip("row locks: PostgreSQL only (SQLite has one writer at a time)")
    # The batch updates episodic memories first, then semantic ones.
    first = aged(agent, hours=168)
    second = aged(agent, hours=336, memory_type="semantic")
    holding = threading.Event()
    errors: list[Exception] = []

    def access_in_other_order() -> None:
        # An access update that holds the semantic row, then wants the episodic one the
        # pass has written meanwhile: a lock cycle.
        try:
            with transaction.atomic():
                list(Memory.objects.select_for_update().filter(pk=second.pk))
                holding.set()
                time.sleep(0.2)
                list(Memory.objects.select_for_update().filter(pk=first.pk))
        except Exception as exc:
            errors.append(exc)
        finally:
            connections.close_all()

    other = threading.Thread(target=access_in_other_order)
    other.start()
    holding.wait(5)
    result = decay_pass(agents=only(agent), now=NOW)
    other.join()
    assert errors == []
    assert result.touched == 2
    assert importance(first) == pytest.approx(0.4, abs=1e-6)
    assert importance(second) == pytest.approx(0.4, abs=1e-6)
