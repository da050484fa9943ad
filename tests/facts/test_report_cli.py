"""`dewee memory facts report` and `stats`, through the CLI's entry point."""

import json
from datetime import timedelta

import pytest
from django.utils import timezone

from dewee.cli import main
from facts.models import Fact
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def aged(fact: Fact, days: float) -> None:
    Fact.objects.filter(pk=fact.pk).update(last_confirmed_at=timezone.now() - timedelta(days=days))


def facts_of_two_users(agent):
    state(agent, "Acme")  # fresh
    aged(state(agent, "Paris", predicate="city").fact, 500)  # stale
    aged(state(agent, "Rome", predicate="city", user="u2").fact, 1000)  # expired
    state(agent, "Globex", verification="inferred")  # contradicts Acme


def test_report_counts_and_lists_with_json(capsys, agent):
    facts_of_two_users(agent)
    code, out, err = run(capsys, "memory", "facts", "report", "--agent", "support-bot", "--json")
    assert code == 0, err
    data = json.loads(out)
    assert data["counts"] == {
        "active": 3,
        "fresh": 1,
        "aging": 0,
        "stale": 1,
        "expired": 1,
        "contradicted": 1,
    }
    assert [f["value"] for f in data["facts"]] == ["Rome", "Paris", "Acme"]
    assert data["average_freshness"] == pytest.approx(
        sum(f["freshness"] for f in data["facts"]) / 3, abs=1e-3
    )
    code, out, _ = run(
        capsys, "memory", "facts", "report", "--agent", "support-bot", "--user", "u2", "--json"
    )
    assert json.loads(out)["counts"]["active"] == 1


def test_report_prints_counts_and_a_table(capsys, agent):
    facts_of_two_users(agent)
    code, out, _ = run(capsys, "memory", "facts", "report", "--agent", "support-bot")
    assert code == 0
    lines = out.splitlines()
    assert lines[0] == "active: 3  fresh: 1  aging: 0  stale: 1  expired: 1  contradicted: 1"
    assert lines[1].startswith("average freshness: 0.")
    assert lines[3].split() == ["KEY", "VALUE", "SCORE", "LABEL", "DAYS", "LEFT"]
    assert lines[4].startswith("u2:user.city")
    assert "expired" in lines[4]
    acme = next(line for line in lines if "Acme" in line)
    assert acme.split()[-1] == "180"


def test_report_of_an_unknown_agent_fails(capsys, agent):
    code, _, err = run(capsys, "memory", "facts", "report", "--agent", "nobody")
    assert code != 0
    assert "not found" in err.lower()


def test_stats_per_agent(capsys, agent):
    facts_of_two_users(agent)
    other = make_agent(make_workspace("globex"), "globex-bot")
    state(other, "Initech")
    code, out, err = run(capsys, "memory", "facts", "stats", "--json")
    assert code == 0, err
    rows = {row["agent_id"]: row for row in json.loads(out)["agents"]}
    assert rows["support-bot"]["total"] == 4
    assert (rows["support-bot"]["current"], rows["support-bot"]["disputed"]) == (3, 1)
    assert rows["support-bot"]["needs_reconfirmation"] == 2
    assert (rows["globex-bot"]["total"], rows["globex-bot"]["needs_reconfirmation"]) == (1, 0)
    code, out, _ = run(capsys, "memory", "facts", "stats")
    assert "support-bot" in out
    assert out.splitlines()[0].split()[:3] == ["WORKSPACE", "AGENT", "TOTAL"]
