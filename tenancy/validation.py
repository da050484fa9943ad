"""Checks on user-supplied strings and numbers that every service shares."""

import json
import math
import re
import unicodedata
from datetime import UTC, datetime

from dewee.errors import InvalidInput, TooLarge
from tenancy.exceptions import InvalidAgentId
from tenancy.models import AGENT_ID_MAX_BYTES


def clean_text(value: object, *, field: str, max_chars: int, required: bool = True) -> str:
    """A stripped string without NUL (PostgreSQL cannot store it), within ``max_chars``."""
    if not isinstance(value, str):
        raise InvalidInput(field, "must be a string")
    text = value.strip()
    if required and not text:
        raise InvalidInput(field, "must not be empty")
    if "\x00" in text:
        raise InvalidInput(field, "must not contain NUL characters")
    if len(text) > max_chars:
        raise TooLarge(field, f"is {len(text)} characters; the limit is {max_chars}")
    return text


def clean_unit_interval(value: object, *, field: str) -> float:
    """A finite number in 0..1 (NaN and infinities are refused)."""
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise InvalidInput(field, "must be a number between 0 and 1")
    number = float(value)
    if not math.isfinite(number) or not 0.0 <= number <= 1.0:
        raise InvalidInput(field, f"must be between 0 and 1, got {value!r}")
    return number


def clean_choice(value: object, *, field: str, choices: list[str]) -> str:
    if value not in choices:
        raise InvalidInput(field, f"must be one of {', '.join(choices)}; got {value!r}")
    return str(value)


def clean_agent_id(value: object) -> str:
    """An agent id to look up: 1..241 bytes of UTF-8, no control characters, no surrounding
    spaces; returned as given. Lookups go through ``Agent.objects.with_id``, which also finds
    the id's NFC and NFD forms; the look-alike rules of :func:`clean_new_agent_id` are not applied
    here, so that an agent stored before they existed stays reachable by its id."""
    if not isinstance(value, str) or not value.strip():
        raise InvalidAgentId("agent_id", "must be a non-empty string")
    if value != value.strip():
        raise InvalidAgentId("agent_id", "must not start or end with whitespace")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in value):
        raise InvalidAgentId("agent_id", "must not contain control characters")
    size = len(value.encode("utf-8"))
    if size > AGENT_ID_MAX_BYTES:
        raise InvalidAgentId(
            "agent_id", f"is {size} bytes of UTF-8; the limit is {AGENT_ID_MAX_BYTES}"
        )
    return value


def clean_new_agent_id(value: object) -> str:
    """An id for a new agent, in NFC (so "café" typed precomposed or as "e" + a combining
    accent is one id): as :func:`clean_agent_id`, without '/' (ids are part of URL paths
    such as /v1/agents/{agent_id}/memories, where 'x/memories' could not be told from the
    memories of 'x') and without characters that make two different ids read the same
    (:func:`refuse_lookalike_agent_id`). Agents stored before these rules keep their ids
    and are still found by them (``Agent.objects.with_id``)."""
    agent_id = unicodedata.normalize("NFC", clean_agent_id(value))
    size = len(agent_id.encode("utf-8"))
    if size > AGENT_ID_MAX_BYTES:  # NFC can lengthen a few scripts' text
        raise InvalidAgentId(
            "agent_id", f"is {size} bytes of UTF-8 in NFC; the limit is {AGENT_ID_MAX_BYTES}"
        )
    if "/" in agent_id:
        raise InvalidAgentId(
            "agent_id",
            "must not contain '/': agent ids are part of URL paths such as "
            "/v1/agents/{agent_id}/memories",
        )
    refuse_lookalike_agent_id(agent_id)
    return agent_id


# Bidirectional controls (Unicode's Bidi_Control property): they reorder what follows, so
# "bot\u202egnp.exe" reads as "botexe.png".
_BIDI_CONTROLS = frozenset(
    "\u061c\u200e\u200f\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069"
)
# Default-ignorable characters that are not of category Cf (which is refused as a whole):
# fillers and variation selectors, drawn as nothing.
_INVISIBLE = frozenset(
    "\u034f\u115f\u1160\u17b4\u17b5\u180b\u180c\u180d\u180f\u3164\uffa0"
    + "".join(map(chr, range(0xFE00, 0xFE10)))
    + "".join(map(chr, range(0xE0100, 0xE01F0)))
)
# Scripts one writing system mixes as a matter of course (UTS #39's "highly restrictive"
# level): Japanese, Chinese with Bopomofo, and Korean, each also with Latin.
_SCRIPT_SETS = (
    frozenset({"LATIN", "HAN", "HIRAGANA", "KATAKANA"}),
    frozenset({"LATIN", "HAN", "BOPOMOFO"}),
    frozenset({"LATIN", "HAN", "HANGUL"}),
)
# Unicode names whose first word is not their script's name.
_SCRIPT_OF_NAME = {
    "CJK": "HAN",
    "IDEOGRAPHIC": "HAN",
    "ARABIC-INDIC": "ARABIC",
    "EXTENDED": "ARABIC",  # EXTENDED ARABIC-INDIC DIGIT
}
# Letters used with any script: modifier letters (U+02BB in "Hawaiʻi") and the
# Japanese prolonged sound mark, written with either kana.
_SCRIPT_NEUTRAL_NAMES = ("MODIFIER LETTER ", "KATAKANA-HIRAGANA ")


def _script(ch: str) -> str | None:
    """The script of a letter, or of a digit other than 0-9; None for a script-neutral
    character (0-9, punctuation, symbols, marks, spaces). Python has no Unicode Script
    property, but every letter's and digit's name starts with its script's name
    ("CYRILLIC SMALL LETTER A", "BENGALI DIGIT FOUR"), bar the few in _SCRIPT_OF_NAME."""
    category = unicodedata.category(ch)
    if not (category.startswith("L") or (category == "Nd" and not "0" <= ch <= "9")):
        return None
    name = unicodedata.name(ch, "")
    if not name or name.startswith(_SCRIPT_NEUTRAL_NAMES):
        return None
    first = name.split(" ", 1)[0]
    return _SCRIPT_OF_NAME.get(first, first)


def _codepoint(ch: str) -> str:
    return f"U+{ord(ch):04X} {unicodedata.name(ch, '')}".rstrip()


def _lookalike(reason: str, message: str, ch: str | None = None) -> InvalidAgentId:
    error = InvalidAgentId("agent_id", message)
    error.details = {"field": "agent_id", "reason": reason}
    if ch is not None:
        error.details["character"] = _codepoint(ch)
    return error


def refuse_lookalike_agent_id(agent_id: str) -> None:
    """Refuse an id (in NFC) that could read the same as a different one: with an invisible
    character (format characters such as a zero-width space, fillers, variation selectors,
    spaces other than ' '), a bidirectional control, a control character, a compatibility
    form (fullwidth letters, ligatures, superscripts: where NFKC differs from NFC), or
    letters of more than one script (a Latin id with a Cyrillic "a"; digits 0-9 and
    punctuation belong to every script). Each refusal is ``invalid_agent_id`` whose details
    say why (``reason``) and which character (``character``)."""
    for ch in agent_id:
        category = unicodedata.category(ch)
        if ch in _BIDI_CONTROLS:
            raise _lookalike(
                "bidirectional_control",
                f"must not contain bidirectional controls such as {_codepoint(ch)}: they "
                "change the order in which the id reads",
                ch,
            )
        if category in ("Cc", "Cs"):
            raise _lookalike(
                "control_character",
                f"must not contain control characters such as {_codepoint(ch)}",
                ch,
            )
        if (
            category in ("Cf", "Cn", "Co", "Zl", "Zp")
            or ch in _INVISIBLE
            or (category == "Zs" and ch != " ")
        ):
            raise _lookalike(
                "invisible_character",
                f"must not contain invisible or unassigned characters such as {_codepoint(ch)}",
                ch,
            )
    if unicodedata.normalize("NFKC", agent_id) != agent_id:
        ch = next((c for c in agent_id if unicodedata.normalize("NFKC", c) != c), agent_id[0])
        plain = unicodedata.normalize("NFKC", agent_id)
        raise _lookalike(
            "compatibility_form",
            f"must not contain compatibility forms such as {_codepoint(ch)} (fullwidth "
            f"letters, ligatures, superscripts); write {plain!r} instead",
            ch,
        )
    scripts = {script for ch in agent_id if (script := _script(ch)) is not None}
    if len(scripts) > 1 and not any(scripts <= allowed for allowed in _SCRIPT_SETS):
        named = ", ".join(sorted(s.title() for s in scripts))
        raise _lookalike(
            "mixed_scripts",
            f"must not mix letters of different scripts ({named}): look-alike letters "
            "such as Latin 'a' and Cyrillic 'а' make different ids read the same",
        )


# Row ids are 64-bit signed integers on both editions: a larger number names no row, and
# SQLite cannot even bind it as a parameter.
DB_ID_MAX = 2**63 - 1

CONTENT_MAX_CHARS = 16_000
TAG_MAX_CHARS = 100
TAGS_MAX = 50
METADATA_MAX_BYTES = 16_384
SOURCE_REFS_MAX = 200
# Why someone deleted, settled or forgot something, as audit events record it.
REASON_MAX_CHARS = 1000
# The id of a person (a user) that memories, sessions and facts are about.
USER_MAX_CHARS = 255
TTL_MAX_SECONDS = 10 * 365 * 24 * 3600
# The latest expiry a memory can have: a later expires_at (9999-12-31 is a common "never") is
# stored as this, and spaced repetition never moves one past it. It leaves a year below the
# last time Python can hold, so reading and comparing expiries stays safe on both engines.
MAX_EXPIRES_AT = datetime(9999, 1, 1, tzinfo=UTC)


def clean_tags(value: object, *, field: str = "tags") -> list[str]:
    """A list of short non-empty strings; duplicates dropped, order kept."""
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(tag, str) for tag in value):
        raise InvalidInput(field, "must be a list of strings")
    tags = [clean_text(tag, field=field, max_chars=TAG_MAX_CHARS) for tag in value]
    if len(tags) > TAGS_MAX:
        raise TooLarge(field, f"has {len(tags)} tags; the limit is {TAGS_MAX}")
    return list(dict.fromkeys(tags))


def clean_metadata(value: object, *, field: str = "metadata") -> dict:
    """A JSON object of at most METADATA_MAX_BYTES once serialised."""
    if value is None:
        return {}
    if not isinstance(value, dict):
        raise InvalidInput(field, "must be a JSON object")
    try:
        size = len(json.dumps(value, allow_nan=False).encode("utf-8"))
    except (TypeError, ValueError):
        raise InvalidInput(field, "must be plain JSON (no NaN or infinity)") from None
    if size > METADATA_MAX_BYTES:
        raise TooLarge(field, f"is {size} bytes as JSON; the limit is {METADATA_MAX_BYTES}")
    if "\\u0000" in json.dumps(value):
        raise InvalidInput(field, "must not contain NUL characters")
    return value


def clean_refs(value: object, *, field: str = "source_refs") -> list[str]:
    if value is None:
        return []
    if not isinstance(value, list) or not all(isinstance(ref, str) for ref in value):
        raise InvalidInput(field, "must be a list of strings")
    if len(value) > SOURCE_REFS_MAX:
        raise TooLarge(field, f"has {len(value)} references; the limit is {SOURCE_REFS_MAX}")
    return list(dict.fromkeys(clean_text(ref, field=field, max_chars=255) for ref in value))


# JSON may spell a lone UTF-16 surrogate ("\ud800"); Python keeps it in a str, but no UTF-8
# text can hold it, so the database, the embedder and the logs all fail on it.
_SURROGATE = re.compile("[\ud800-\udfff]")
_SURROGATE_MESSAGE = "valid Unicode text, without lone surrogates such as \\ud800"


def refuse_lone_surrogates(data: object) -> None:
    """Raise ``invalid_unicode`` if any string (a value or a key) of a parsed JSON document
    holds a surrogate code point, naming where as the API's validation errors do
    (``items.0.content``; for a key, the object holding it). Iterative: the parser's own
    nesting limit, not Python's recursion limit, bounds the depth."""
    stack: list[tuple[str, object]] = [("", data)]
    while stack:
        path, value = stack.pop()
        if isinstance(value, str):
            if _SURROGATE.search(value):
                raise InvalidInput(
                    path or "body", f"must be {_SURROGATE_MESSAGE}", code="invalid_unicode"
                )
        elif isinstance(value, dict):
            children = []
            for key, item in value.items():
                if _SURROGATE.search(key):
                    raise InvalidInput(
                        path or "body", f"keys must be {_SURROGATE_MESSAGE}", code="invalid_unicode"
                    )
                children.append((f"{path}.{key}" if path else key, item))
            stack.extend(reversed(children))
        elif isinstance(value, list):
            stack.extend(reversed([(f"{path}.{i}", item) for i, item in enumerate(value)]))


def clean_user(value: object, *, field: str = "user") -> str:
    """A user id as the client names the person (any text up to USER_MAX_CHARS, trimmed,
    in NFC: "José" typed precomposed or as "e" + a combining accent is one person);
    "" when none is given."""
    return nfc_user(clean_text(value, field=field, max_chars=USER_MAX_CHARS, required=False))


def nfc_user(user: str) -> str:
    """A user id in NFC, the form it is stored in and looked up by."""
    return unicodedata.normalize("NFC", user)


def user_forms(user: str) -> list[str]:
    """The forms a stored user id may have: its NFC form, which every interface stores
    since user ids are normalised, and its NFD form, which an id stored before may have
    (so that a lookup, an export and an erasure reach both)."""
    return sorted({user, nfc_user(user), unicodedata.normalize("NFD", user)})
