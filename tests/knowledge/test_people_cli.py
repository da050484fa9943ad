"""`dewee people forget|export|receipts`, through the CLI's entry point."""

import json
import sys

import pytest

from dewee.cli import main
from facts.models import Fact
from memory.models import Memory, Session
from memory.services import MemoryInput, start_session, store_memories
from tenancy.models import ErasureReceipt
from tenancy.receipts import user_digest
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)

USER = "dana-3f9"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def person(workspace, agent):
    session = start_session(agent=agent, user=USER, metadata={"email": "dana@example.org"})
    store_memories(
        agent=agent,
        items=[MemoryInput(content="Dana lives in Porto", session_id=session.pk)],
    )
    state(agent, "Acme", user=USER)
    sales = make_agent(workspace, "sales-bot")
    store_memories(agent=sales, items=[MemoryInput(content="Asked for a quote", user=USER)])
    return session


def test_forget_without_yes_shows_the_counts_and_erases_nothing(capsys, person):
    code, out, err = run(capsys, "people", "forget", USER, "--workspace", "acme")
    assert code == 2
    assert "refusing to erase everything about 'dana-3f9' without --yes" in err
    lines = {line.split()[0]: line.split()[1:] for line in out.splitlines()[2:]}
    # Totals, then support-bot, then sales-bot.
    assert lines["memories"] == ["2", "1", "1"]
    assert lines["sessions"] == ["1", "1", "0"]
    assert lines["facts"] == ["1", "1", "0"]
    assert (Memory.objects.count(), Session.objects.count(), Fact.objects.count()) == (2, 1, 1)
    assert not ErasureReceipt.objects.exists()


def test_forget_at_a_terminal_asks_for_the_user_to_be_typed(capsys, monkeypatch, person):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)
    monkeypatch.setattr("builtins.input", lambda prompt: "dana")
    code, _out, _err = run(capsys, "people", "forget", USER, "--workspace", "acme")
    assert code == 2
    assert Memory.objects.count() == 2

    monkeypatch.setattr("builtins.input", lambda prompt: USER)
    code, out, _err = run(capsys, "people", "forget", USER, "--workspace", "acme")
    assert code == 0
    assert f"user HMAC {user_digest(USER)}" in out
    assert not Memory.objects.exists()


def test_forget_with_yes_erases_every_agents_share_and_prints_the_receipt(capsys, person):
    code, out, err = run(capsys, "people", "forget", USER, "--workspace", "acme", "--yes", "--json")
    assert code == 0, err
    receipt = json.loads(out)
    assert receipt["scope"] == {"user_hmac": user_digest(USER)}
    assert receipt["counts"]["memories"] == 2
    assert set(receipt["by_agent"]) == {"support-bot", "sales-bot"}
    assert (Memory.objects.count(), Session.objects.count(), Fact.objects.count()) == (0, 0, 0)

    code, out, _err = run(capsys, "people", "receipts", USER, "--workspace", "acme", "--json")
    assert [r["id"] for r in json.loads(out)["items"]] == [receipt["id"]]
    code, out, _err = run(capsys, "people", "receipts", "erin", "--workspace", "acme")
    assert "No receipt names this user in this workspace." in out


def test_forget_in_an_unknown_workspace_is_an_error(capsys, person):
    code, _out, err = run(capsys, "people", "forget", USER, "--workspace", "nowhere", "--yes")
    assert code == 1
    assert "dewee: error: No workspace 'nowhere'" in err
    assert Memory.objects.count() == 2


def test_forget_leaves_another_workspaces_same_user(capsys, person):
    other = make_agent(make_workspace("globex"), "globex-bot")
    store_memories(agent=other, items=[MemoryInput(content="Globex note", user=USER)])
    assert run(capsys, "people", "forget", USER, "--workspace", "acme", "--yes")[0] == 0
    assert list(Memory.objects.values_list("content", flat=True)) == ["Globex note"]


def test_export_writes_the_persons_data_to_a_file(capsys, person, tmp_path):
    target = tmp_path / "dana.json"
    code, _out, err = run(
        capsys, "people", "export", USER, "--workspace", "acme", "-o", str(target)
    )
    assert code == 0, err
    data = json.loads(target.read_text(encoding="utf-8"))
    assert sorted(m["content"] for m in data["memories"]) == [
        "Asked for a quote",
        "Dana lives in Porto",
    ]
    assert data["sessions"][0]["metadata"] == {"email": "dana@example.org"}
    assert [f["value"] for f in data["facts"]] == ["Acme"]
    assert Memory.objects.count() == 2


def test_export_to_stdout_is_one_json_document(capsys, person):
    code, out, _err = run(capsys, "people", "export", USER, "--workspace", "acme")
    assert code == 0
    assert json.loads(out)["user"] == USER
