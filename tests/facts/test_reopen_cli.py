"""`dewee memory facts reopen`, through the CLI's entry point."""

import json

import pytest

from dewee.cli import main
from facts.services import resolve_fact
from tenancy.models import AuditAction, AuditEvent
from tests.factories import make_agent, make_workspace, refreshed, state

pytestmark = pytest.mark.django_db(transaction=True)


def test_reopen_a_rejected_fact_and_refuse_it_twice(capsys):
    agent = make_agent(make_workspace(), "A")
    state(agent, "Acme")
    fact = state(agent, "Globex", verification="inferred").fact
    resolve_fact(fact=fact, action="reject", actor="operator:mia")
    argv = ["memory", "facts", "reopen", "--agent", "A", str(fact.pk), "--reason", "again"]
    assert main([*argv, "--json"]) == 0
    out, _err = capsys.readouterr()
    assert json.loads(out)["status"] == "disputed"
    assert refreshed(fact).status == "disputed"
    assert AuditEvent.objects.get(action=AuditAction.FACT_REOPEN).details["reason"] == "again"
    assert main(argv) != 0
    _out, err = capsys.readouterr()
    assert "not rejected" in err
