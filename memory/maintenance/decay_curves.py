"""How importance fades: the curves, the speed of each memory type, and the SQL that applies
them to many memories at once.

A memory's importance is a pure function of where its curve starts and of the time since::

    t          = age_hours * speed / half_life_hours
    importance = max(min(base, floor), base * curve(t))

``base`` is ``Memory.decay_base`` and the age runs from ``Memory.decay_from`` (falling back to
the last access, then creation, for rows written before those columns existed). Both move
only when the memory is stored, accessed, voted on or given a new importance. A pass reads
nothing else, so running it twice, every minute instead of every hour, or stopping it
halfway and starting again, leaves every memory at the same value. Decay never raises
importance above ``base``, never lowers it below the floor (a base already below the
floor stays where it is), and never deletes.

The curves, all but ``flat`` at one half at t = 1:

=============  ================================  ==========================================
exponential    0.5 ** t                          the default: halves every half-life
linear         max(0, 1 - t / 2)                 reaches the floor after two half-lives
step_function  0.5 ** floor(t)                   halves once per whole half-life
power_law      1 / (1 + t)                       a long tail: a third left after two
logarithmic    max(0, 1 - log2(1 + t) / 2)       reaches the floor at t = 3
flat           1                                 never decays
=============  ================================  ==========================================
"""

import math
from typing import Any

from django.conf import settings
from django.core import checks
from django.db import connection

from memory.models import MemoryType

STRATEGIES = ("exponential", "linear", "step_function", "power_law", "logarithmic", "flat")

# How fast each type fades relative to the half-life: what happened (episodic) at the
# half-life, what is known (semantic) and how to do things (procedural) slower, scratch
# notes (working) three times as fast.
TYPE_SPEED = {
    MemoryType.EPISODIC: 1.0,
    MemoryType.SEMANTIC: 0.5,
    MemoryType.PROCEDURAL: 0.3,
    MemoryType.WORKING: 3.0,
}
# A memory never recalled since it was stored has shown no use yet: it fades half again as
# fast until its first access (which also restarts its curve at normal speed).
NEVER_ACCESSED_SPEEDUP = 1.5

# Where the curve of a memory starts: its own start, else (rows older than the decay
# columns) its last access, else its creation.
DECAY_START = "COALESCE(decay_from, last_accessed_at, created_at)"
DECAY_BASE = "COALESCE(decay_base, importance)"
# 0.5 ** 1000 is far below any floor, and PostgreSQL raises on a power that underflows.
_T_MAX = 1000.0
# A change smaller than this is rounding noise: not written, so a repeat pass writes nothing.
CHANGE_EPSILON = 1e-9


def check_decay_settings(**kwargs: Any) -> list[checks.CheckMessage]:
    """Refuse to start with a decay setting that would make every pass fail or do nonsense."""
    errors: list[checks.CheckMessage] = []
    if settings.DEWEE_DECAY_STRATEGY not in STRATEGIES:
        errors.append(
            checks.Error(
                f"DEWEE_DECAY_STRATEGY is {settings.DEWEE_DECAY_STRATEGY!r}",
                hint=f"Use one of: {', '.join(STRATEGIES)}.",
                id="dewee.E101",
            )
        )
    if not settings.DEWEE_DECAY_HALF_LIFE_HOURS > 0:
        errors.append(checks.Error("DEWEE_DECAY_HALF_LIFE_HOURS must be above 0", id="dewee.E102"))
    if not 0 <= settings.DEWEE_DECAY_MIN_IMPORTANCE <= 1:
        errors.append(
            checks.Error("DEWEE_DECAY_MIN_IMPORTANCE must be between 0 and 1", id="dewee.E103")
        )
    if settings.DEWEE_DECAY_BATCH_SIZE < 1:
        errors.append(checks.Error("DEWEE_DECAY_BATCH_SIZE must be at least 1", id="dewee.E104"))
    return errors


def _greatest() -> str:
    return "GREATEST" if connection.vendor == "postgresql" else "MAX"


def _least() -> str:
    return "LEAST" if connection.vendor == "postgresql" else "MIN"


def _age_hours() -> str:
    """Hours from the curve's start to the ``%s`` parameter (an adapted datetime)."""
    if connection.vendor == "postgresql":
        return f"(EXTRACT(EPOCH FROM (%s - {DECAY_START}))::float8 / 3600.0)"
    # Django keeps SQLite datetimes as UTC text ('YYYY-MM-DD HH:MM:SS[.ffffff]'), which
    # julianday() reads (to the millisecond).
    return f"((julianday(%s) - julianday({DECAY_START})) * 24.0)"


def _curve(strategy: str, t: str) -> str:
    greatest, least = _greatest(), _least()
    curves = {
        "exponential": f"POWER(0.5, {least}({t}, {_T_MAX}))",
        "linear": f"{greatest}(0.0, 1.0 - {t} / 2.0)",
        "step_function": f"POWER(0.5, FLOOR({least}({t}, {_T_MAX})))",
        "power_law": f"(1.0 / (1.0 + {t}))",
        "logarithmic": f"{greatest}(0.0, 1.0 - LN(1.0 + {t}) / {math.log(2)!r} / 2.0)",
        "flat": "1.0",
    }
    return curves[strategy]


def decayed_importance_sql(
    strategy: str, *, memory_type: str, now_param: object
) -> tuple[str, list[Any]]:
    """SQL for the importance a memory of ``memory_type`` has at ``now`` under ``strategy``,
    over the columns of memory_memory, with its parameters (in order)."""
    greatest, least = _greatest(), _least()
    speed = TYPE_SPEED[MemoryType(memory_type)] / settings.DEWEE_DECAY_HALF_LIFE_HOURS
    t = (
        f"({greatest}(0.0, {_age_hours()}) * %s"
        f" * (CASE WHEN access_count = 0 THEN {NEVER_ACCESSED_SPEEDUP} ELSE 1.0 END))"
    )
    floor = float(settings.DEWEE_DECAY_MIN_IMPORTANCE)
    sql = (
        f"{greatest}({least}({DECAY_BASE}, %s), {DECAY_BASE} * {_curve(strategy, t)})"
        if strategy != "flat"
        else DECAY_BASE
    )
    params: list[Any] = [floor, now_param, speed] if strategy != "flat" else []
    return sql, params


def bucket_sql(value: str) -> str:
    """The band of ``value`` (0..1): 0 for [0, 0.1), ..., 9 for [0.9, 1.0]."""
    if connection.vendor == "postgresql":
        return f"LEAST(9, FLOOR(({value}) * 10))::int"
    return f"MIN(9, CAST(({value}) * 10 AS INTEGER))"
