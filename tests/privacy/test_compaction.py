"""Erasure on disk: after memories and facts are erased and the storage compacted, none of
their bytes remain in the database's files, on either edition.

The files are read as they are on disk: SQLite's database, -wal and -shm files; on
PostgreSQL the test database's folder under base/ (the server's WAL is shared by every
database of the server and is not promised clean, see docs/PRIVACY.md)."""

import json
import re
import subprocess
import time
import uuid
from collections.abc import Callable
from pathlib import Path

import pytest
from django.db import connection
from django.utils import timezone
from django_q.models import Schedule

from dewee.cli import main
from facts.services import forget_facts, forget_scope
from memory.services import MemoryInput, store_memories
from memory.services.erasure import erase_memories
from memory.services.maintenance_schedules import COMPACTION_SCHEDULE, ensure_schedules
from privacy.compaction import compact_if_erased, compact_storage
from privacy.models import StorageCompaction
from tests.factories import make_agent, make_workspace, state

pytestmark = pytest.mark.django_db(transaction=True)


def _needle() -> str:
    """What the files are searched for: random hex, then a digit so that no stemmer
    shortens it. A marker puts random hex before it (:func:`_marker`): an index may store a
    term after the prefix it shares with the term before it (SQLite's FTS5 does), and a
    shared prefix of that length is too unlikely to hide the needle."""
    return uuid.uuid4().hex[:10] + "0"


def _marker(needle: str) -> str:
    return f"zq{uuid.uuid4().hex[:8]}{needle}"


def _store_and_erase(agent) -> dict[str, str]:
    """Markers in a memory's content, its metadata, its tag, a long memory (TOAST on
    PostgreSQL) and a fact's value; live memories stored before and after share their
    pages. Then the memories are erased and the facts forgotten. Returns kind -> needle."""
    needles = {kind: _needle() for kind in ("content", "metadata", "tag", "long", "fact")}
    live = [MemoryInput(content=f"the weather on day {i} was mild") for i in range(8)]
    store_memories(agent=agent, items=live)
    erased = store_memories(
        agent=agent,
        items=[
            MemoryInput(content=f"Alice said {_marker(needles['content'])} yesterday"),
            MemoryInput(content="a note", metadata={"code": _marker(needles["metadata"])}),
            MemoryInput(content="another note", tags=[_marker(needles["tag"])]),
            MemoryInput(
                content=" ".join(
                    [_marker(needles["long"]), *(uuid.uuid4().hex for _ in range(150))]
                )
            ),
        ],
    )
    store_memories(agent=agent, items=live)
    state(agent, _marker(needles["fact"]), user="erased-user")
    erase_memories(
        agent=agent, memory_ids=[m.pk for m in erased], actor="test", reason="privacy test"
    )
    forget_facts(agent=agent, scope=forget_scope(user="erased-user"), actor="test")
    return needles


def _file_bytes(path: Path) -> bytes:
    """The file's bytes, read by a child process. Opening and closing the test database's
    file here would drop every POSIX lock this process holds on it (SQLite's own connection
    included): a server on the same file would then take itself for the last user, delete the
    WAL and its index at exit, and leave this process's connection with a disk I/O error."""
    read = subprocess.run(["cat", str(path)], capture_output=True)
    if read.returncode != 0 and not path.exists():
        return b""  # deleted by the server since it was listed (pg_internal.init, temp files)
    read.check_returncode()
    return read.stdout


def _found(files: list[Path], needles: dict[str, str]) -> dict[str, list[str]]:
    found: dict[str, list[str]] = {}
    for path in files:
        data = _file_bytes(path)
        for kind, needle in needles.items():
            if needle.encode() in data:
                found.setdefault(kind, []).append(path.name)
    return found


# SQLite ----------------------------------------------------------------------------------


def _sqlite_files() -> list[Path]:
    name = connection.settings_dict["NAME"]
    return [
        Path(f"{name}{suffix}")
        for suffix in ("", "-wal", "-shm")
        if Path(f"{name}{suffix}").exists()
    ]


def _in_full_text_index(needle: str) -> bool:
    with connection.cursor() as cursor:
        cursor.execute("SELECT count(*) FROM memory_fts_data WHERE instr(block, %s) > 0", [needle])
        return bool(cursor.fetchone()[0])


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's files")
def test_sqlite_connections_zero_what_they_delete():
    with connection.cursor() as cursor:
        cursor.execute("PRAGMA secure_delete")
        assert cursor.fetchone()[0] == 1


@pytest.fixture
def fts_without_automerge():
    """FTS5 merges segments by itself as enough of them pile up (automerge, 4 by default),
    which in a test database that other tests have written to may happen during the erase
    and drop the erased words before the compaction. Off for the test, so the words stay
    in their old segment as they do in an index between two merges."""

    def automerge(segments: int) -> None:
        with connection.cursor() as cursor:
            cursor.execute(
                "INSERT INTO memory_fts(memory_fts, rank) VALUES('automerge', %s)", [segments]
            )

    automerge(0)
    yield
    automerge(4)


@pytest.mark.skipif(connection.vendor != "sqlite", reason="SQLite's files")
@pytest.mark.parametrize("full", [False, True])
@pytest.mark.usefixtures("fts_without_automerge")
def test_sqlite_files_keep_nothing_of_erased_data_after_compaction(full):
    agent = make_agent(make_workspace())
    needles = _store_and_erase(agent)
    # A delete only adds a tombstone to the full-text index: the old segment keeps the words.
    assert _in_full_text_index(needles["content"])

    report = compact_storage(full=full)

    assert not _in_full_text_index(needles["content"])
    assert report["wal"] == {"checkpoint": "truncated", "wal_bytes": 0}
    assert _found(_sqlite_files(), needles) == {}
    # What was not erased is still found.
    assert agent.memories.filter(content__contains="weather").count() == 16


# PostgreSQL ------------------------------------------------------------------------------


def _postgres_database_files(*, indexes_only: bool = False) -> list[Path]:
    with connection.cursor() as cursor:
        cursor.execute("SHOW data_directory")
        datadir = Path(cursor.fetchone()[0])
        if indexes_only:
            # Every index of our tables, with their TOAST tables' indexes.
            cursor.execute(
                "SELECT pg_relation_filepath(i.indexrelid) FROM pg_index i "
                "JOIN pg_class t ON t.oid = i.indrelid "
                "WHERE t.relnamespace = 'public'::regnamespace "
                "OR t.oid IN (SELECT reltoastrelid FROM pg_class "
                "WHERE relnamespace = 'public'::regnamespace)"
            )
            paths = [datadir / row[0] for row in cursor.fetchall() if row[0]]
            # A relation over 1 GB goes on in files named <node>.1, <node>.2 ...
            segments = [s for p in paths for s in p.parent.glob(f"{p.name}.*")]
            return [p for p in [*paths, *segments] if p.is_file()]
        cursor.execute("SELECT oid FROM pg_database WHERE datname = current_database()")
        folder = datadir / "base" / str(cursor.fetchone()[0])
        # Column statistics are sampled by ANALYZE, which tests never run (it would change
        # later tests' plans); an autovacuum's ANALYZE may sample test rows at any time, so
        # that catalog's file is left out here (docs/PRIVACY.md says how it is cleared).
        cursor.execute("SELECT pg_relation_filenode('pg_statistic')")
        statistics = str(cursor.fetchone()[0])
    return [p for p in folder.iterdir() if p.is_file() and p.name.split(".")[0] != statistics]


def leaf_tables(table: str) -> set[str]:
    """The tables that hold ``table``'s rows on PostgreSQL: itself, or its partitions."""
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname FROM pg_class WHERE relkind = 'r' "
            "AND coalesce(pg_partition_root(oid), oid) = %s::regclass",
            [table],
        )
        return {name for (name,) in cursor.fetchall()}


def compact_postgres(files: Callable[[], list[Path]], needles: dict[str, str], **options):
    """compact_storage(**options), and once more if the files still hold erased data: a
    transaction open meanwhile in the database keeps the rows it may still see in the
    rewritten files, and the next compaction takes them out (docs/PRIVACY.md). With the
    tables' many partitions that happened in about one run in five under parallel tests.
    Returns the first compaction's report."""
    no_other_snapshots()
    report = compact_storage(**options)
    if _found(files(), needles):
        no_other_snapshots()
        compact_storage(**options)
    return report


def no_other_snapshots(timeout: float = 30.0) -> None:
    """Wait until no other session of this database holds a snapshot (an autovacuum's
    ANALYZE of a new partition, typically): a rewrite keeps the deleted rows such a snapshot
    may still see (docs/PRIVACY.md), and the test would find them."""
    if connection.vendor != "postgresql":
        return
    deadline = time.monotonic() + timeout
    with connection.cursor() as cursor:
        while time.monotonic() < deadline:
            cursor.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() "
                "AND pid <> pg_backend_pid() AND backend_xmin IS NOT NULL"
            )
            if cursor.fetchone()[0] == 0:
                return
            time.sleep(0.1)


def _checkpoint() -> None:
    with connection.cursor() as cursor:
        cursor.execute("CHECKPOINT")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's files")
def test_postgres_indexes_keep_nothing_of_erased_data_after_compaction(settings):
    # Every table over the size the default compaction rewrites: VACUUM and REINDEX only.
    settings.DEWEE_COMPACTION_REWRITE_MAX_MB = 0
    needles = _store_and_erase(make_agent(make_workspace()))
    _checkpoint()
    assert _found(_postgres_database_files(indexes_only=True), needles)

    report = compact_postgres(
        lambda: _postgres_database_files(indexes_only=True), needles, full=False
    )

    assert report["wal"] == {"switch": "done", "checkpoint": "done"}
    assert _found(_postgres_database_files(indexes_only=True), needles) == {}
    # Partitioned by agent: each of the memories' partitions on its own, none rewritten.
    memories = [s for s in report["steps"] if re.fullmatch(r"memory_memory(_p\d+)?", s["table"])]
    assert {s["step"] for s in memories} == {"vacuum", "reindex"}
    assert {s["table"] for s in memories} == leaf_tables("memory_memory")


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's files")
def test_postgres_data_files_keep_nothing_of_erased_data_after_default_compaction():
    agent = make_agent(make_workspace())
    needles = _store_and_erase(agent)
    _checkpoint()
    assert _found(_postgres_database_files(), needles)

    compact_postgres(_postgres_database_files, needles, full=False)

    assert _found(_postgres_database_files(), needles) == {}
    assert agent.memories.filter(content__contains="weather").count() == 16


@pytest.mark.skipif(connection.vendor != "postgresql", reason="PostgreSQL's files")
def test_postgres_data_files_keep_nothing_of_erased_data_after_full_compaction():
    agent = make_agent(make_workspace())
    needles = _store_and_erase(agent)
    _checkpoint()
    assert _found(_postgres_database_files(), needles)

    compact_postgres(_postgres_database_files, needles, full=True)

    assert _found(_postgres_database_files(), needles) == {}
    assert agent.memories.filter(content__contains="weather").count() == 16


# Both editions ---------------------------------------------------------------------------


def test_the_scheduled_job_compacts_only_after_an_erasure():
    agent = make_agent(make_workspace())
    first = compact_if_erased()
    assert "steps" in first
    assert compact_if_erased() == {"skipped": "nothing erased since the last compaction"}

    [memory] = store_memories(agent=agent, items=[MemoryInput(content="to be erased")])
    assert "skipped" in compact_if_erased()  # storing erases nothing
    erase_memories(agent=agent, memory_ids=[memory.pk], actor="test", reason="test")
    assert "steps" in compact_if_erased()
    assert StorageCompaction.objects.filter(trigger="schedule").count() == 2


def test_a_forget_of_facts_is_an_erasure_for_the_schedule():
    agent = make_agent(make_workspace())
    compact_if_erased()
    state(agent, "Acme", user="u9")
    forget_facts(agent=agent, scope=forget_scope(user="u9"), actor="test")
    assert "steps" in compact_if_erased()


def test_the_compaction_schedule_follows_the_settings(settings):
    settings.DEWEE_COMPACTION_INTERVAL_SECS = 6 * 3600
    assert "compaction: every 360 min (new)" in ensure_schedules()
    schedule = Schedule.objects.get(name=COMPACTION_SCHEDULE)
    assert (schedule.func, schedule.minutes) == ("privacy.tasks.compact_after_erasures", 360)
    assert schedule.next_run > timezone.now()

    settings.DEWEE_COMPACTION_INTERVAL_SECS = 0
    assert ensure_schedules() == ["compaction: schedule removed (disabled)"]
    assert not Schedule.objects.filter(name=COMPACTION_SCHEDULE).exists()


def test_compaction_refuses_to_run_inside_a_transaction():
    from django.db import transaction

    with transaction.atomic(), pytest.raises(RuntimeError, match="outside a transaction"):
        compact_storage()
    assert not StorageCompaction.objects.exists()


def test_cli_compacts_and_shows_each_step(capsys):
    assert main(["privacy", "compact"]) == 0
    out = capsys.readouterr().out
    table = "memory_fts" if connection.vendor == "sqlite" else "memory_memory"
    assert any(line.startswith(table) for line in out.splitlines())
    assert "compacted in" in out
    assert StorageCompaction.objects.get().trigger == "cli"


def test_cli_full_compaction_reports_as_json(capsys):
    assert main(["privacy", "compact", "--full", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert report["full"] is True
    assert report["edition"] == connection.vendor
    expected = "vacuum" if connection.vendor == "sqlite" else "vacuum full"
    assert expected in {step["step"] for step in report["steps"]}


def test_the_scheduled_task_follows_the_full_setting(settings):
    from privacy.tasks import compact_after_erasures

    settings.DEWEE_COMPACTION_FULL = True
    report = compact_after_erasures()
    assert report["full"] is True
    assert StorageCompaction.objects.get().trigger == "schedule"
