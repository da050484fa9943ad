"""What a text says against the facts an agent holds about a user: each statement judged
against its slot as an addition, a confirmation, a contradiction (an update, a dispute, an
ending) or a change held for later that is called off or moved. Nothing is written here:
facts.services.checking applies the findings.

The cascade: "pattern" (the extractor's explicit statements and change phrasings), then
"semantic" (an extracted predicate the agent keeps under its own name, by meaning), then
"value" (a plain statement compared with the current value of its slot).
"""

import re
from dataclasses import dataclass, replace
from difflib import SequenceMatcher
from enum import StrEnum

from facts.models import Fact
from facts.predicate_meaning import map_predicates
from facts.rules import trust_key
from language.extraction import Statement
from language.text import normalise_value

# A phrasing that says the value changed ("moved to", "joined", "my new job"): the pattern
# level found the contradiction; a plain "I work at X" is found by comparing values.
CHANGE = re.compile(
    r"\b(?:mov\w*|relocat\w*|join\w*|start\w*|began|new|got|hired|became|become|promoted|"
    r"went|gone|turned|married|now|switch\w*|'ll|will)\b",
    re.IGNORECASE,
)


class Action(StrEnum):
    ADD = "ADD"
    UPDATE = "UPDATE"
    END = "END"
    CONFIRM = "CONFIRM"
    DISPUTE = "DISPUTE"
    # A change held for a later date, called off or moved to another date.
    CANCEL = "CANCEL"
    RESCHEDULE = "RESCHEDULE"
    NONE = "NONE"


class Level(StrEnum):
    PATTERN = "pattern"
    SEMANTIC = "semantic"
    VALUE = "value"


@dataclass(frozen=True)
class Finding:
    """One statement of the text against its slot. ``statement`` carries the slot's
    predicate and qualifier as the agent stores them; ``fact`` is the slot's current fact."""

    statement: Statement
    action: Action
    fact: Fact | None
    level: Level

    @property
    def contradicts(self) -> bool:
        return self.action in {
            Action.UPDATE,
            Action.DISPUTE,
            Action.END,
            Action.CANCEL,
            Action.RESCHEDULE,
        }


def _semantic(statements: list[Statement], held: dict[tuple[str, str], Fact]) -> dict[str, str]:
    """{vocabulary predicate: the agent's own predicate of the same meaning}, for the
    single-valued predicates the text speaks of and the agent keeps under another name."""
    spoken = {s.predicate for s in statements if not s.qualifier}
    used = {predicate for predicate, _qualifier in held}
    unmatched = spoken - used
    own = [p for (p, qualifier) in held if not qualifier and p not in spoken]
    if not unmatched or not own:
        return {}
    mapped = map_predicates(own)
    return {ours: theirs for theirs, (ours, _score) in mapped.items() if ours in unmatched}


def _judge(statement: Statement, fact: Fact | None, level: Level) -> tuple[Action, Level]:
    if statement.is_ending:
        ended = statement.ended
        if fact is not None and (ended is None or _names(ended, fact.value)):
            return Action.END, level if level == Level.SEMANTIC else Level.PATTERN
        return Action.NONE, Level.PATTERN
    assert statement.value is not None
    if statement.ended is not None and (fact is None or not _names(statement.ended, fact.value)):
        return Action.NONE, Level.PATTERN  # a swap for the slot that holds the other value
    changed = bool(CHANGE.search(statement.evidence))
    if level != Level.SEMANTIC:
        level = Level.PATTERN if changed else Level.VALUE
    if fact is None:
        return Action.ADD, Level.PATTERN
    if normalise_value(statement.value) == normalise_value(fact.value):
        return Action.CONFIRM, level
    if trust_key(statement.verification, statement.confidence) >= trust_key(
        fact.verification, fact.confidence
    ):
        return Action.UPDATE, level
    return Action.DISPUTE, level


def _rescheduled(
    items: list[Statement],
    others: list[Statement],
    held: dict[tuple[str, str], Fact],
    pending: dict[tuple[str, str], Fact],
) -> list[Finding]:
    """ "the move is off", "my start got pushed to August 3": a change held for later in a
    slot the text names (and of the value it names, if any) is called off or moved. A slot
    the text gives a new value of is left to that value ("the move is off, we're going to
    Lyon instead"); one it only says the held value of ("... we're staying in Zurich") is not."""
    found = []
    for item in items:
        key = (item.predicate, item.qualifier)
        fact = pending.get(key)
        if fact is None or (item.ended is not None and not _names(item.ended, fact.value)):
            continue
        before = held.get(key)
        if any(
            (o.predicate, o.qualifier) == key
            and not (
                o.value and before and normalise_value(o.value) == normalise_value(before.value)
            )
            for o in others
        ):
            continue
        if item.schedule == "moved":
            if item.valid_from is None or item.valid_from == fact.valid_from:
                continue
            said = replace(item, value=fact.value, ended=None)
            found.append(
                Finding(statement=said, action=Action.RESCHEDULE, fact=fact, level=Level.PATTERN)
            )
        else:
            said = replace(item, ended=fact.value, valid_from=None)
            found.append(
                Finding(statement=said, action=Action.CANCEL, fact=fact, level=Level.PATTERN)
            )
    return found


def _retyping(said: str, held: str) -> float:
    """How much ``said`` reads as ``held`` typed again ("Porto" for "Proto"): 0 when not."""
    said, held = normalise_value(said), normalise_value(held)
    if said == held or min(len(said), len(held)) < 3:
        return 0.0
    ratio = SequenceMatcher(None, said, held).ratio()
    return ratio if ratio >= _RETYPED_RATIO else 0.0


_RETYPED_RATIO = 0.7


def _corrections_of_held(
    statements: list[Statement], held: dict[tuple[str, str], Fact]
) -> list[Statement]:
    """A value said alone as a correction, naming no slot (corrections.py): of a known kind
    ("actually it's Rotterdam", a city) it corrects that slot only if the agent holds one;
    of no known kind ("typo - Siemens") only the held value it retypes best, if any."""
    kept = [s for s in statements if s.ended is not None or s.level not in ("held", "candidate")]
    for item in statements:
        if item.ended is None and item.level == "held" and (item.predicate, "") in held:
            kept.append(replace(item, level=Level.PATTERN))
    scored = [
        (_retyping(item.value, held[(item.predicate, "")].value), item)
        for item in statements
        if item.ended is None
        and item.level == "candidate"
        and item.value is not None
        and (item.predicate, "") in held
    ]
    best = max(scored, key=lambda pair: pair[0], default=(0.0, None))
    if best[1] is not None and best[0] > 0:
        kept.append(replace(best[1], level=Level.PATTERN))
    return kept


def find(
    statements: list[Statement],
    held: dict[tuple[str, str], Fact],
    pending: dict[tuple[str, str], Fact] | None = None,
) -> list[Finding]:
    """Each statement against its slot; for a single-valued slot the text's last word on it
    counts, except that an ending before a later dated value keeps both ("I left Paystack.
    Starting at Moniepoint on March 1": no employer until then). ``pending``: the changes
    held for later (pending_changes), which the text may call off or move."""
    schedules = [s for s in statements if s.schedule]
    statements = _corrections_of_held([s for s in statements if not s.schedule], held)
    rescheduled = _rescheduled(schedules, statements, held, pending or {})
    renamed = _semantic(statements, held)
    last: dict[tuple[str, str], Statement] = {}
    ended: dict[tuple[str, str], Statement] = {}
    for item in statements:
        key = (item.predicate, item.qualifier)
        if item.qualifier or not item.is_ending:
            last[key] = item
        else:
            last.setdefault(key, item)
            ended.setdefault(key, item)
    findings = []
    for key, item in list(last.items()):
        if item.qualifier and item.value is not None and item.ended is not None:
            # A correction of one item of a list ("Slovak not Czech"): the item it names ends.
            del last[key]
            findings += _corrected_item(item, held)
    for key, item in last.items():
        ending = ended.get(key)
        if ending is not None and _ends_before(ending, item):
            first = _finding(ending, held, renamed)
            if first.action == Action.END:
                findings += [first, _finding(item, held, renamed, slot_ended=True)]
                continue
        findings.append(_finding(item, held, renamed))
    findings += _married_partners(findings, held)
    return findings + _opposites(findings, held) + rescheduled


def _names(said: str, held: str) -> bool:
    """Whether a value the text names as the old one ("Northgate", "gmail") is the one held
    ("Northgate Pharmacy", "anna.berg@gmail.com"): the same, or its words among the held's."""
    said, held = normalise_value(said), normalise_value(held)
    if said == held:
        return True
    words = set(re.findall(r"\w+", said))
    return bool(words) and words <= set(re.findall(r"\w+", held))


def _corrected_item(item: Statement, held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """ "Slovak not Czech" said of language[czech]: that item ends and language[slovak] is
    added; a correction naming no item held is a plain statement, and a name whose kind the
    text left unsaid ("Estela, not Estrella") counts only where the old name is held."""
    assert item.ended is not None
    old = next(
        (
            fact
            for (predicate, qualifier), fact in held.items()
            if predicate == item.predicate and qualifier and _names(item.ended, fact.value)
        ),
        None,
    )
    plain = replace(item, ended=None)
    if old is None:
        if item.level == "candidate":
            return []
        return [_finding(plain, held, {})]
    found = []
    if normalise_value(old.value) != normalise_value(item.value or ""):
        ending = replace(item, value=None, qualifier=old.qualifier, level=Level.PATTERN)
        found.append(Finding(statement=ending, action=Action.END, fact=old, level=Level.PATTERN))
    return [*found, _finding(replace(plain, level=Level.PATTERN), held, {})]


# A like and a dislike of one thing never both stand: the newer one ends the other.
_OPPOSITE = {"likes": "dislikes", "dislikes": "likes"}


def _opposites(findings: list[Finding], held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """ "I've gone off coffee" (a new dislike of coffee) ends likes[coffee]; "I love olives
    now" ends dislikes[olives]."""
    spoken = {(f.statement.predicate, f.statement.qualifier) for f in findings}
    ended = []
    for finding in findings:
        item = finding.statement
        if item.predicate not in _OPPOSITE or finding.action != Action.ADD:
            continue
        key = (_OPPOSITE[item.predicate], item.qualifier)
        fact = held.get(key)
        if fact is None or key in spoken:
            continue
        spoken.add(key)
        ending = replace(item, predicate=key[0], value=None, ended=fact.value)
        ended.append(Finding(statement=ending, action=Action.END, fact=fact, level=finding.level))
    return ended


def _ends_before(ending: Statement, item: Statement) -> bool:
    return (
        item is not ending
        and item.valid_from is not None
        and (ending.valid_from is None or ending.valid_from < item.valid_from)
    )


def _finding(
    item: Statement,
    held: dict[tuple[str, str], Fact],
    renamed: dict[str, str],
    *,
    slot_ended: bool = False,
) -> Finding:
    """One statement judged against the slot's fact (none once the text has ended it)."""
    level = Level.PATTERN
    if item.predicate in renamed:
        item = replace(item, predicate=renamed[item.predicate], level=Level.SEMANTIC)
        level = Level.SEMANTIC
    fact = None if slot_ended else held.get((item.predicate, item.qualifier))
    action, level = _judge(item, fact, level)
    return Finding(statement=replace(item, level=level), action=action, fact=fact, level=level)


def _married_partners(findings: list[Finding], held: dict[tuple[str, str], Fact]) -> list[Finding]:
    """Marrying one's partner makes them a spouse and no longer a partner: "Dara and I got
    married" ends partner = Dara (a partner of another name is left for the text to settle)."""
    partner = held.get(("partner", ""))
    if partner is None or any(f.statement.predicate == "partner" for f in findings):
        return []
    for finding in findings:
        item = finding.statement
        if (
            item.predicate == "spouse"
            and item.value is not None
            and finding.action in (Action.ADD, Action.UPDATE)
            and normalise_value(item.value) == normalise_value(partner.value)
        ):
            ended = replace(item, predicate="partner", value=None, ended=partner.value)
            return [Finding(statement=ended, action=Action.END, fact=partner, level=finding.level)]
    return []
