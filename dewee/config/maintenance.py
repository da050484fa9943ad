"""The worker's passes over memory: decay, expiry, idle sessions and their summaries, facts
that expire, and AutoPilot's deduplication and consolidation."""

import os

from dewee.config.environment import env_bool

# Decay and maintenance (issue: memory that ages). Intervals are in seconds.
DEWEE_DECAY_STRATEGY = os.environ.get("DEWEE_DECAY_STRATEGY", "exponential")
DEWEE_DECAY_HALF_LIFE_HOURS = float(os.environ.get("DEWEE_DECAY_HALF_LIFE_HOURS", 168))
DEWEE_DECAY_MIN_IMPORTANCE = float(os.environ.get("DEWEE_DECAY_MIN_IMPORTANCE", 0.01))
DEWEE_DECAY_INTERVAL_SECS = int(os.environ.get("DEWEE_DECAY_INTERVAL_SECS", 3600))
DEWEE_DECAY_BATCH_SIZE = int(os.environ.get("DEWEE_DECAY_BATCH_SIZE", 20_000))
DEWEE_EXPIRY_INTERVAL_SECS = int(os.environ.get("DEWEE_EXPIRY_INTERVAL_SECS", 300))
DEWEE_SESSION_IDLE_TIMEOUT_SECS = int(os.environ.get("DEWEE_SESSION_IDLE_TIMEOUT_SECS", 4 * 3600))
DEWEE_SESSION_SWEEP_INTERVAL_SECS = int(os.environ.get("DEWEE_SESSION_SWEEP_INTERVAL_SECS", 300))
# Ends expired facts, for the agents whose memory policy sets end_expired_facts.
DEWEE_FACT_FRESHNESS_INTERVAL_SECS = int(os.environ.get("DEWEE_FACT_FRESHNESS_INTERVAL_SECS", 3600))
# A dotted path to a callable (list of texts -> summary text) for deployments with an LLM.
DEWEE_SESSION_SUMMARISER = os.environ.get(
    "DEWEE_SESSION_SUMMARISER", "memory.sessions.summaries.extractive_summary"
)
# For memory.sessions.summaries.http_summary: where it POSTs the texts, and how long it waits.
DEWEE_SUMMARISER_URL = os.environ.get("DEWEE_SUMMARISER_URL", "")
DEWEE_SUMMARISER_TIMEOUT_SECS = float(os.environ.get("DEWEE_SUMMARISER_TIMEOUT_SECS", 30))
DEWEE_AUTOPILOT_ENABLED = env_bool("DEWEE_AUTOPILOT_ENABLED", True)
DEWEE_AUTOPILOT_DEDUP_INTERVAL_SECS = int(
    os.environ.get("DEWEE_AUTOPILOT_DEDUP_INTERVAL_SECS", 6 * 3600)
)
DEWEE_AUTOPILOT_CONSOLIDATE_INTERVAL_SECS = int(
    os.environ.get("DEWEE_AUTOPILOT_CONSOLIDATE_INTERVAL_SECS", 12 * 3600)
)
