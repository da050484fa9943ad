"""The `dewee memory facts` commands, through the CLI's entry point."""

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from dewee.cli import main
from facts.models import Fact, FactSource
from tenancy.models import Agent, AuditEvent, ErasureReceipt, Workspace
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)
ROOT = Path(__file__).resolve().parents[2]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


def test_assert_creates_the_agent_in_the_default_workspace_with_the_operator_as_source(
    capsys, monkeypatch
):
    monkeypatch.setenv("DEWEE_OPERATOR", "ann")
    data = run_json(
        capsys,
        "memory",
        "facts",
        "assert",
        "--agent",
        "A",
        "--user",
        "U",
        "--subject",
        "user",
        "--predicate",
        "employer",
        "--value",
        "Acme",
    )
    assert data["outcome"] == "created"
    assert data["fact"]["value"] == "Acme"
    assert Agent.objects.get(agent_id="A").workspace.slug == "default"
    source = FactSource.objects.get()
    assert (source.kind, source.operator) == ("operator", "ann")


def test_full_lifecycle_session(capsys):
    run_json(
        capsys,
        "memory",
        "facts",
        "assert",
        "--agent",
        "A",
        "--user",
        "U",
        "--subject",
        "user",
        "--predicate",
        "employer",
        "--value",
        "Acme",
    )
    disputed = run_json(
        capsys,
        "memory",
        "facts",
        "assert",
        "--agent",
        "A",
        "--user",
        "U",
        "--subject",
        "user",
        "--predicate",
        "employer",
        "--value",
        "Globex",
        "--verification",
        "inferred",
        "--confidence",
        "0.6",
    )
    assert disputed["outcome"] == "disputed"
    fact_id = str(disputed["fact"]["id"])

    listed = run_json(capsys, "memory", "facts", "list", "--agent", "A", "--status", "disputed")
    assert [f["value"] for f in listed["items"]] == ["Globex"]

    detail = run_json(capsys, "memory", "facts", "get", "--agent", "A", fact_id)
    assert [h["value"] for h in detail["history"]] == ["Acme", "Globex"]

    resolved = run_json(
        capsys, "memory", "facts", "resolve", "--agent", "A", fact_id, "--action", "accept"
    )
    assert resolved["status"] == "current"

    code, out, _err = run(capsys, "memory", "facts", "list", "--agent", "A")
    assert code == 0
    header = out.splitlines()[0].split()
    assert header[:3] == ["ID", "USER", "SUBJECT"]
    assert "Globex" in out
    assert "history" in out

    deleted = run_json(
        capsys, "memory", "facts", "delete", "--agent", "A", fact_id, "--yes", "--reason", "wrong"
    )
    assert deleted["status"] == "deleted"

    receipt = run_json(capsys, "memory", "facts", "forget", "--agent", "A", "--user", "U", "--yes")
    assert receipt["counts"]["facts"] == 2
    assert not Fact.objects.exists()
    assert ErasureReceipt.objects.count() == 1


def test_delete_and_forget_refuse_without_yes(capsys):
    agent = make_agent(make_workspace(), "A")
    fact = state(agent, "Acme").fact
    code, _, err = run(capsys, "memory", "facts", "delete", "--agent", "A", str(fact.pk))
    assert code == 2
    assert "--yes" in err
    code, _out, err = run(capsys, "memory", "facts", "forget", "--agent", "A", "--user", "u1")
    assert code == 2
    assert "1 facts" in err
    assert "--yes" in err
    code, _out, err = run(capsys, "memory", "facts", "forget", "--agent", "A", "--yes")
    assert code == 1
    assert "give a user, a subject, or both" in err
    code, _out, err = run(
        capsys, "memory", "facts", "forget", "--agent", "A", "--user", "u1", "--subject", "user"
    )
    assert "subject 'user' of user 'u1'" in err
    assert Fact.objects.get().status == "current"
    assert not AuditEvent.objects.exists()


def test_domain_errors_exit_1_with_one_line(capsys):
    code, out, err = run(capsys, "memory", "facts", "get", "--agent", "nobody", "1")
    assert code == 1
    assert err.strip().count("\n") == 0
    assert "not found" in err
    agent = make_agent(make_workspace(), "A")
    fact = state(agent, "Acme").fact
    code, out, err = run(
        capsys,
        "memory",
        "facts",
        "resolve",
        "--agent",
        "A",
        str(fact.pk),
        "--action",
        "accept",
        "--json",
    )
    assert code == 1
    assert json.loads(out)["error"]["code"] == "fact_not_disputed"


def test_a_fact_of_another_agent_is_not_found(capsys):
    ws = make_workspace()
    make_agent(ws, "A")
    other = state(make_agent(ws, "B"), "Acme").fact
    code, _, err = run(capsys, "memory", "facts", "get", "--agent", "A", str(other.pk))
    assert code == 1
    assert "not found" in err.lower()


def test_usage_errors_exit_2(capsys):
    with pytest.raises(SystemExit) as exit_info:
        main(["memory", "facts", "resolve", "--agent", "A", "1", "--action", "maybe"])
    assert exit_info.value.code == 2
    with pytest.raises(SystemExit) as exit_info:
        main(["memory", "facts", "list"])
    assert exit_info.value.code == 2


def test_bad_values_are_domain_errors_and_write_nothing(capsys):
    code, _, err = run(
        capsys,
        "memory",
        "facts",
        "assert",
        "--agent",
        "A",
        "--subject",
        "user",
        "--predicate",
        "employer",
        "--value",
        "Acme",
        "--confidence",
        "nan",
    )
    assert code == 1
    assert "confidence" in err
    code, _, err = run(capsys, "memory", "facts", "list", "--agent", "A", "--as-of", "soon")
    assert code == 1
    assert not Fact.objects.exists()


ASSERT_NEW_AGENT = [
    "memory",
    "facts",
    "assert",
    "--agent",
    "new-bot",
    "--subject",
    "user",
    "--predicate",
    "employer",
]


@pytest.mark.parametrize(
    ("bad", "field"),
    [
        (["--value", "Acme", "--confidence", "1.5"], "confidence"),
        (["--value", "   "], "value"),
        (["--value", "x" * 4097], "value"),
        (["--value", "Acme", "--valid-from", "soon"], "valid_from"),
        (["--value", "Acme", "--valid-from", "2030-01-01", "--valid-to", "2020-01-01"], "valid"),
    ],
)
def test_a_refused_assert_on_a_new_agent_writes_nothing_not_even_the_agent(capsys, bad, field):
    workspaces = list(Workspace.objects.values_list("slug", flat=True))
    code, _, err = run(capsys, *ASSERT_NEW_AGENT, *bad)
    assert code == 1
    assert field in err
    assert not Agent.objects.filter(agent_id="new-bot").exists()
    assert list(Workspace.objects.values_list("slug", flat=True)) == workspaces
    assert not Fact.objects.exists()
    assert not AuditEvent.objects.exists()
    code, _, err = run(capsys, *ASSERT_NEW_AGENT, "--value", "Acme")
    assert code == 0, err
    assert Agent.objects.filter(agent_id="new-bot").exists()


def test_workspaces_agents_and_keys_commands(capsys):
    run_json(capsys, "workspaces", "create", "acme")
    agent = run_json(capsys, "agents", "create", "bot", "--workspace", "acme")
    assert agent["workspace"] == "acme"
    key = run_json(capsys, "keys", "create", "--workspace", "acme", "--name", "prod")
    assert key["key"].startswith("dw_")
    listed = run_json(capsys, "keys", "list")
    assert "key" not in listed[0]
    assert listed[0]["prefix"] == key["prefix"]
    code, _, err = run(capsys, "workspaces", "create", "acme")
    assert code == 1
    assert "already exists" in err
    revoked = run_json(capsys, "keys", "revoke", str(key["id"]))
    assert revoked["revoked_at"] is not None


def test_installed_console_script_runs_the_readme_session(tmp_path):
    """The `dewee` executable itself, on a fresh embedded database of its own (the
    in-process tests above cover the configured edition)."""
    env = {**os.environ, "DEWEE_VAR_DIR": str(tmp_path), "DEWEE_OPERATOR": "ann"}
    env.pop("DATABASE_URL", None)
    bindir = Path(sys.executable).parent
    subprocess.run([sys.executable, str(ROOT / "manage.py"), "migrate", "-v0"], env=env, check=True)

    def dewee(*args, check=True):
        return subprocess.run(
            [str(bindir / "dewee"), *args], env=env, capture_output=True, text=True, check=check
        )

    dewee(
        "memory",
        "facts",
        "assert",
        "--agent",
        "A",
        "--user",
        "U",
        "--subject",
        "user",
        "--predicate",
        "employer",
        "--value",
        "Acme",
    )
    out = dewee("memory", "facts", "list", "--agent", "A", "--json").stdout
    assert json.loads(out)["items"][0]["value"] == "Acme"
    refused = dewee("memory", "facts", "forget", "--agent", "A", "--user", "U", check=False)
    assert refused.returncode == 2
    done = dewee("memory", "facts", "forget", "--agent", "A", "--user", "U", "--yes", "--json")
    assert json.loads(done.stdout)["counts"]["facts"] == 1
