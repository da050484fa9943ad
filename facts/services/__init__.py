"""Writes of the facts app: asserting, checking text, resolving, re-confirming, ending,
deleting, restoring and erasing facts.

Every interface imports from here; each function is the one place its rule lives.
"""

from facts.findings import Action, Finding, Level
from facts.services.access import record_fact_access
from facts.services.asserting import AssertResult, Outcome, assert_fact
from facts.services.bulk import (
    Settled,
    one_accept_per_slot,
    resolve_facts,
    undo_resolutions,
    undo_seconds_left,
)
from facts.services.checking import CheckResult, check_result_to_dict, check_text
from facts.services.claims import Claim, SourceInput
from facts.services.ending import end_fact
from facts.services.erasure import (
    ForgetCoverage,
    ForgetScope,
    count_forgettable,
    erase_facts_in_scope,
    erase_facts_learned_only_from,
    forget_coverage,
    forget_facts,
    forget_scope,
    subject_scope_of,
)
from facts.services.freshness import (
    FRESHNESS_ACTOR,
    end_expired_facts_pass,
    reconfirm_fact,
)
from facts.services.reopening import (
    ReopenOutcome,
    last_resolution,
    reopen_fact,
    undo_resolution,
    undo_window,
)
from facts.services.resolving import Resolution, delete_fact, resolve_fact
from facts.services.restoring import RestoreOutcome, RestoreResult, restore_fact

__all__ = [
    "FRESHNESS_ACTOR",
    "Action",
    "AssertResult",
    "CheckResult",
    "Claim",
    "Finding",
    "ForgetCoverage",
    "ForgetScope",
    "Level",
    "Outcome",
    "ReopenOutcome",
    "Resolution",
    "RestoreOutcome",
    "RestoreResult",
    "Settled",
    "SourceInput",
    "assert_fact",
    "check_result_to_dict",
    "check_text",
    "count_forgettable",
    "delete_fact",
    "end_expired_facts_pass",
    "end_fact",
    "erase_facts_in_scope",
    "erase_facts_learned_only_from",
    "forget_coverage",
    "forget_facts",
    "forget_scope",
    "last_resolution",
    "one_accept_per_slot",
    "reconfirm_fact",
    "record_fact_access",
    "reopen_fact",
    "resolve_fact",
    "resolve_facts",
    "restore_fact",
    "subject_scope_of",
    "undo_resolution",
    "undo_resolutions",
    "undo_seconds_left",
    "undo_window",
]
