"""Privacy's settings: how the worker compacts the database's storage after erasures."""

import os

from dewee.config.environment import env_bool

# Erasure on disk (docs/PRIVACY.md): the worker compacts the database's storage this often
# when anything was erased since the last compaction (0: never; `dewee privacy compact` by
# hand). Full rewrites every table (on PostgreSQL VACUUM FULL, which locks each table while
# it is rewritten; on SQLite VACUUM, which locks the whole database).
DEWEE_COMPACTION_INTERVAL_SECS = int(os.environ.get("DEWEE_COMPACTION_INTERVAL_SECS", 24 * 3600))
DEWEE_COMPACTION_FULL = env_bool("DEWEE_COMPACTION_FULL", False)
# PostgreSQL: ANALYZE first, so that the planner's samples of values are of live rows only.
DEWEE_COMPACTION_ANALYZE = env_bool("DEWEE_COMPACTION_ANALYZE", False)
# PostgreSQL: the default compaction also rewrites (VACUUM FULL) every table whose size with
# its TOAST table and indexes is at most this many MB, so that erased rows leave its table
# files too; each is locked for the short time its rewrite takes. Larger tables get the
# lock-free VACUUM and REINDEX only. 0: rewrite none.
DEWEE_COMPACTION_REWRITE_MAX_MB = int(os.environ.get("DEWEE_COMPACTION_REWRITE_MAX_MB", 8))
