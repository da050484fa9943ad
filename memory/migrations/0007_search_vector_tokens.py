from django.db import migrations

from dewee.migration_ops import RunSQLOn

# Split text on anything that is not a letter, digit or underscore before PostgreSQL's parser
# sees it, as SQLite's unicode61 tokenizer and the query side do: otherwise "INC-40213" is
# indexed as 'inc' and the signed number '-40213', and a search for 40213 misses it.
TOKENS = "regexp_replace(content, '[^[:alnum:]_]+', ' ', 'g')"


class Migration(migrations.Migration):
    dependencies = [("memory", "0006_memory_fillfactor")]

    operations = [
        RunSQLOn(
            "postgresql",
            [
                "DROP INDEX IF EXISTS memory_search_idx",
                "ALTER TABLE memory_memory DROP COLUMN search_vector",
                "ALTER TABLE memory_memory ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
                f"(to_tsvector('english', {TOKENS})) STORED",
                "CREATE INDEX memory_search_idx ON memory_memory USING gin (search_vector)",
            ],
            [
                "DROP INDEX IF EXISTS memory_search_idx",
                "ALTER TABLE memory_memory DROP COLUMN search_vector",
                "ALTER TABLE memory_memory ADD COLUMN search_vector tsvector GENERATED ALWAYS AS "
                "(to_tsvector('english', content)) STORED",
                "CREATE INDEX memory_search_idx ON memory_memory USING gin (search_vector)",
            ],
        ),
    ]
