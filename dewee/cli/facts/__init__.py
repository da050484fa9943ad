"""``dewee memory facts ...``: the facts lifecycle from a terminal: an agent's facts read
many at a time (listing.py), one fact seen whole and settled (one_fact.py), and what the
operator states: a fact, a user's words to check, what to forget (stating.py)."""

from typing import Any

from dewee.cli.facts import listing, one_fact, stating

__all__ = ["register"]


def register(memory_commands: Any) -> None:
    facts = memory_commands.add_parser("facts", help="Facts an agent holds about users.")
    sub = facts.add_subparsers(dest="facts_command", required=True, metavar="ACTION")
    listing.register(sub)
    one_fact.register(sub)
    stating.register(sub)
