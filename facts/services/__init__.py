"""Writes of the facts app: asserting, checking text, resolving, re-confirming, ending,
deleting, restoring and erasing facts.

Every interface imports from here; each function is the one place its rule lives.
"""

from facts.services.asserting import AssertResult, Outcome, assert_fact
from facts.services.checking import (
    Action,
    CheckResult,
    Finding,
    Level,
    check_result_to_dict,
    check_text,
)
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
    "reconfirm_fact",
    "reopen_fact",
    "resolve_fact",
    "restore_fact",
    "subject_scope_of",
    "undo_resolution",
    "undo_window",
]
