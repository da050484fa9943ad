from django.db import migrations

from dewee.migration_ops import RunSQLOn

SQLITE = [
    # External-content FTS5 index over memory text, kept in step by triggers, so every
    # writer (ORM, raw SQL, another process) updates it in the same transaction. The agent
    # id is indexed too, so "agent_id:7 AND (...)" narrows to one agent inside the index.
    "CREATE VIRTUAL TABLE memory_fts USING fts5(content, agent_id, content='memory_memory', "
    "content_rowid='id', tokenize='porter unicode61 remove_diacritics 2')",
    "CREATE TRIGGER memory_fts_insert AFTER INSERT ON memory_memory BEGIN "
    "INSERT INTO memory_fts(rowid, content, agent_id) VALUES (new.id, new.content, new.agent_id); "
    "END",
    "CREATE TRIGGER memory_fts_delete AFTER DELETE ON memory_memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content, agent_id) "
    "VALUES ('delete', old.id, old.content, old.agent_id); END",
    "CREATE TRIGGER memory_fts_update AFTER UPDATE OF content ON memory_memory BEGIN "
    "INSERT INTO memory_fts(memory_fts, rowid, content, agent_id) "
    "VALUES ('delete', old.id, old.content, old.agent_id); "
    "INSERT INTO memory_fts(rowid, content, agent_id) VALUES (new.id, new.content, new.agent_id); "
    "END",
]
SQLITE_REVERSE = [
    "DROP TRIGGER IF EXISTS memory_fts_update",
    "DROP TRIGGER IF EXISTS memory_fts_delete",
    "DROP TRIGGER IF EXISTS memory_fts_insert",
    "DROP TABLE IF EXISTS memory_fts",
]

POSTGRES = [
    "ALTER TABLE memory_memory ADD COLUMN search_vector tsvector "
    "GENERATED ALWAYS AS (to_tsvector('english', content)) STORED",
    "CREATE INDEX memory_search_idx ON memory_memory USING gin (search_vector)",
    # HNSW needs a fixed dimension: one partial expression index per dimension in use.
    # 384 is the built-in model's; `dewee memory index-all` adds one for other models.
    "CREATE INDEX memory_embedding_384_idx ON memory_memory USING hnsw "
    "((embedding::vector(384)) vector_cosine_ops) WHERE vector_dims(embedding) = 384",
]
POSTGRES_REVERSE = [
    "DROP INDEX IF EXISTS memory_embedding_384_idx",
    "DROP INDEX IF EXISTS memory_search_idx",
    "ALTER TABLE memory_memory DROP COLUMN IF EXISTS search_vector",
]


class Migration(migrations.Migration):
    dependencies = [("memory", "0003_memories")]

    operations = [
        RunSQLOn("sqlite", SQLITE, SQLITE_REVERSE),
        RunSQLOn("postgresql", POSTGRES, POSTGRES_REVERSE),
    ]
