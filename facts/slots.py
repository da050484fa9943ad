"""The slot: what a fact is a value of. One agent's (user, subject, predicate, qualifier);
at most one fact of a slot is current, the others are its history, disputes and rejects."""

import hashlib
from dataclasses import astuple, dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from facts.models import Fact

# The Fact fields that hold a slot, in the order of Slot's own fields.
SLOT_FIELDS = ("agent_id", "user_ref", "subject", "predicate", "qualifier")


@dataclass(frozen=True)
class Slot:
    agent_id: int
    # "" when the fact is about no particular user; "" when the slot has one value only.
    user: str
    subject: str
    predicate: str
    qualifier: str = ""

    @classmethod
    def of(cls, fact: "Fact") -> "Slot":
        return cls(
            agent_id=fact.agent_id,
            user=fact.user_ref,
            subject=fact.subject,
            predicate=fact.predicate,
            qualifier=fact.qualifier,
        )

    def lookup(self) -> dict[str, int | str]:
        """The slot as Fact field values: to filter on, or to build a fact of the slot."""
        return dict(zip(SLOT_FIELDS, astuple(self), strict=True))

    def lock_key(self) -> int:
        """A signed 64-bit hash of the slot, as PostgreSQL's advisory locks take it."""
        parts = [str(self.agent_id), self.user, self.subject, self.predicate, self.qualifier]
        digest = hashlib.blake2b("\x1f".join(parts).encode(), digest_size=8).digest()
        return int.from_bytes(digest, "big", signed=True)
