"""Facts' settings: how facts are learned from text (the rules, the clause classifier, or an
LLM), and how long a resolution may be undone."""

import os

from dewee.config.environment import env_bool

# How long after accepting or rejecting a disputed fact its resolver may undo it.
DEWEE_UNDO_SECONDS = int(os.environ.get("DEWEE_UNDO_SECONDS", 30))
# Facts learned from text: "rules" (local, no model, no network) or "llm", an
# OpenAI-compatible chat completions API the operator runs or rents (language.extraction.llm).
DEWEE_FACTS_EXTRACTOR = os.environ.get("DEWEE_FACTS_EXTRACTOR", "rules")
# The learned clause classifier (language/extraction/classifier.py) beside the rules: vetoes a
# statement in a clause it is sure states nothing about the speaker; false: the rules alone.
DEWEE_CLAUSE_CLASSIFIER = env_bool("DEWEE_CLAUSE_CLASSIFIER", True)
DEWEE_FACTS_LLM_URL = os.environ.get("DEWEE_FACTS_LLM_URL", "")
DEWEE_FACTS_LLM_MODEL = os.environ.get("DEWEE_FACTS_LLM_MODEL", "")
DEWEE_FACTS_LLM_API_KEY = os.environ.get("DEWEE_FACTS_LLM_API_KEY", "")
DEWEE_FACTS_LLM_TIMEOUT_SECS = float(os.environ.get("DEWEE_FACTS_LLM_TIMEOUT_SECS", 30))
