"""The CLI's long commands show a progress bar to a person at a terminal, and nothing to a
script: not with --json, not when stderr is a pipe or a file."""

import contextlib
import io
import json

import pytest

from dewee.cli import main
from memory.services import MemoryInput, store_memories

pytestmark = pytest.mark.django_db(transaction=True)


class Terminal(io.StringIO):
    """stderr as a terminal shows it to a person (tqdm asks isatty())."""

    def isatty(self) -> bool:
        return True


def at_terminal(argv: list[str]) -> tuple[int, str]:
    """Run the CLI with stderr on a terminal; what the terminal showed."""
    screen = Terminal()
    # In the test's body: pytest puts its own capture back in place between setup and call.
    with contextlib.redirect_stderr(screen):
        code = main(argv)
    return code, screen.getvalue()


@pytest.fixture
def export_file(agent, tmp_path):
    store_memories(
        agent=agent, items=[MemoryInput(content=f"Ticket {n}: the printer jams") for n in range(30)]
    )
    path = tmp_path / "export.jsonl"
    assert main(["memory", "export", "--agent", agent.agent_id, "--output", str(path)]) == 0
    return path


def test_export_to_a_file_shows_a_bar_and_writes_only_records(agent, tmp_path):
    store_memories(agent=agent, items=[MemoryInput(content=f"Note {n}") for n in range(12)])
    path = tmp_path / "out.jsonl"
    code, shown = at_terminal(["memory", "export", "--agent", agent.agent_id, "-o", str(path)])
    assert code == 0
    assert "exporting" in shown
    assert "/12" in shown
    records = [json.loads(line) for line in path.read_text().splitlines()]
    assert sum(record["kind"] == "memory" for record in records) == 12


def test_import_shows_a_bar_at_a_terminal(export_file, capsys):
    code, shown = at_terminal(["memory", "import", str(export_file), "--agent", "copy-bot"])
    assert code == 0
    assert "importing" in shown
    assert "records" in shown
    assert "%" in shown
    assert "Imported 30 memories" in capsys.readouterr().out


def test_import_with_json_is_quiet_even_at_a_terminal(export_file, capsys):
    argv = ["memory", "import", str(export_file), "--agent", "copy-bot", "--json"]
    assert at_terminal(argv) == (0, "")
    assert json.loads(capsys.readouterr().out)["memories"] == 30


def test_import_without_a_terminal_is_quiet(export_file, capsys):
    assert main(["memory", "import", str(export_file), "--agent", "copy-bot"]) == 0
    out, err = capsys.readouterr()
    assert err == ""
    assert "Imported 30 memories" in out


def test_reindex_shows_a_bar_at_a_terminal_and_not_with_json(agent, capsys):
    store_memories(agent=agent, items=[MemoryInput(content=f"Fact {n}") for n in range(5)])
    code, shown = at_terminal(
        ["memory", "index-all", "--agent", agent.agent_id, "--batch-size", "2"]
    )
    assert code == 0
    assert "re-embedding" in shown
    assert "/5" in shown
    assert "Re-embedded 5 memories" in capsys.readouterr().out
    assert at_terminal(["memory", "index-all", "--agent", agent.agent_id, "--json"]) == (0, "")
    assert json.loads(capsys.readouterr().out)["reindexed"] == 5


def test_graph_rebuild_shows_a_bar_at_a_terminal(agent):
    store_memories(agent=agent, items=[MemoryInput(content="Ana works at Acme in Lisbon")])
    code, shown = at_terminal(["memory", "graph-rebuild", "--agent", agent.agent_id])
    assert code == 0
    assert f"{agent.agent_id}:" in shown
    assert "/1" in shown


def test_dedup_shows_its_merges_at_a_terminal(agent, capsys):
    store_memories(
        agent=agent,
        items=[MemoryInput(content=f"Ticket {n % 3} is open") for n in range(9)],
    )
    argv = ["memory", "dedup", "--agent", agent.agent_id, "--yes"]
    code, shown = at_terminal(argv)
    assert code == 0
    assert "merging" in shown
    assert "/3" in shown
    assert "Merged 6 duplicates into 3 memories" in capsys.readouterr().out


def test_decay_shows_the_memories_it_writes_at_a_terminal(agent, capsys, settings):
    settings.DEWEE_DECAY_BATCH_SIZE = 4
    store_memories(
        agent=agent, items=[MemoryInput(content=f"Visit {n} went well") for n in range(10)]
    )
    code, shown = at_terminal(["memory", "decay", "--agent", agent.agent_id])
    assert code == 0
    assert "decaying" in shown
    assert "/10" in shown
    assert f"of 10 memories of {agent.agent_id}" in capsys.readouterr().out
    # With --json no bar (the run's own log line may still go to stderr).
    code, shown = at_terminal(["memory", "decay", "--agent", agent.agent_id, "--json"])
    assert code == 0
    assert "decaying" not in shown
    assert json.loads(capsys.readouterr().out)["memories"] == 10


def test_autopilot_trigger_shows_the_jobs_it_runs_at_a_terminal(agent, capsys):
    argv = ["memory", "autopilot", "trigger", "--agent", agent.agent_id, "--job", "expiry"]
    argv += ["--job", "decay"]
    code, shown = at_terminal(argv)
    assert code == 0
    assert "running" in shown
    assert "/2" in shown
    out = capsys.readouterr().out
    assert "expiry:" in out
    assert "decay:" in out
