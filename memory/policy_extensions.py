"""Settings of an agent's memory policy that other apps own.

An agent has one policy (``Agent.memory_policy``), set, validated and audited whole by
memory.services.policy. Some of its keys belong to apps that build on memory (the facts
app's freshness half-lives, for one); memory does not know them: each app registers its
keys, how to read their effective values and how to check them when it is ready
(facts.apps), and the policy service asks every registered extension.
"""

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class PolicyExtension:
    # The policy keys this extension owns.
    keys: tuple[str, ...]
    # The stored policy -> every one of its keys' effective values (defaults filled in).
    effective: Callable[[Mapping[str, Any]], dict[str, Any]]
    # A policy being set -> the checked values of its keys present in it; raises
    # memory.exceptions.InvalidMemoryPolicy naming the key at fault.
    clean: Callable[[Mapping[str, Any]], dict[str, Any]]


_extensions: dict[tuple[str, ...], PolicyExtension] = {}


def extend_policy(extension: PolicyExtension) -> None:
    """Register ``extension`` (registering the same keys again replaces it)."""
    _extensions[extension.keys] = extension


def policy_extensions() -> tuple[PolicyExtension, ...]:
    return tuple(_extensions.values())
