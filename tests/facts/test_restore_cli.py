"""`dewee memory facts restore`, through the CLI's entry point."""

import json

import pytest

from dewee.cli import main
from facts.models import Status
from facts.services import delete_fact
from tenancy.models import AuditAction, AuditEvent
from tests.factories import make_agent, make_workspace, refreshed, state

pytestmark = pytest.mark.django_db(transaction=True)


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_restore_refuses_without_yes_then_restores_with_it(capsys):
    agent = make_agent(make_workspace(), "A")
    fact = delete_fact(fact=state(agent, "Acme").fact, actor="ops")

    code, _out, err = run(capsys, "memory", "facts", "restore", "--agent", "A", str(fact.pk))
    assert code == 2
    assert "--yes" in err
    assert refreshed(fact).status == Status.DELETED

    code, out, err = run(
        capsys, "memory", "facts", "restore", "--agent", "A", str(fact.pk), "--yes", "--json"
    )
    assert code == 0, err
    data = json.loads(out)
    assert (data["outcome"], data["fact"]["status"]) == ("current", "current")
    assert AuditEvent.objects.filter(action=AuditAction.FACT_RESTORE).count() == 1

    code, _out, err = run(
        capsys, "memory", "facts", "restore", "--agent", "A", str(fact.pk), "--yes"
    )
    assert code == 1
    assert "not deleted" in err


def test_restore_of_another_agents_fact_is_not_found(capsys):
    workspace = make_workspace()
    agent = make_agent(workspace, "A")
    make_agent(workspace, "B")
    fact = delete_fact(fact=state(agent, "Acme").fact, actor="ops")
    code, _out, err = run(
        capsys, "memory", "facts", "restore", "--agent", "B", str(fact.pk), "--yes"
    )
    assert code != 0
    assert "not found" in err
    assert refreshed(fact).status == Status.DELETED
