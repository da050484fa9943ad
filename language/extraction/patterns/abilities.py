"""What the speaker can do: the languages they speak ("I'm fluent in Korean", "my japanese
is pretty good now"), their skills ("good at bookkeeping", "I know SQL too") and crafts
("picked up pottery this year", "I play the cello", "black belt in judo")."""

import re

from language.extraction.grammar import I_AM, REST, S, evidence_of, rx
from language.extraction.statements import LIKELY, Statement, listed
from language.extraction.statements import statement as said
from language.extraction.vocabulary import CRAFT_VERBS, CRAFTS, LANGUAGES, TOOLS

LANGUAGE = rx(
    S + r"(?:speak|can speak|'m speaking|am speaking|'m fluent in|am fluent in|fluent in|"
    r"'m conversational in|'m bilingual in|'m proficient in|am proficient in|can get by in|"
    r"get by in)"
    r"\s+(?:fluent\s+|some\s+|a\s+little\s+|"
    r"a\s+bit\s+of\s+|basic\s+|native\s+)?" + REST,
    r"\bmy\s+(?:native\s+language|mother\s+tongue|first\s+language)\s+is\s+" + REST,
    # "i can finally hold a conversation in Korean"
    S + r"can\s+(?:(?:now|finally|actually|already)\s+)*(?:hold|have)\s+a\s+"
    r"(?:\w+\s+)?conversation\s+in\s+" + REST,
    I_AM + r"a\s+native\s+" + r"(?P<v>\w+)\s+speaker",
    r"^(?P<v>\w+)\s+is\s+my\s+(?:native\s+language|mother\s+tongue|first\s+language)",
    # "my japanese is pretty good now" (checked against the languages)
    r"\bmy\s+(?P<v>\w+)\s+is\s+(?:\w+\s+)?(?:good|fluent|decent|ok|okay|solid|passable|"
    r"conversational|native|great|excellent)\b",
)
SKILL = rx(
    I_AM
    + r"(?:really\s+|very\s+|pretty\s+|quite\s+)?(?:good at|good in|great at|great in|decent at|"
    r"good with|skilled (?:in|at)|not (?:too |that |half )?bad at|(?:a\s+)?whiz (?:at|with)|"
    r"a pro at|a dab hand at|ace at|strong in|competent (?:in|at|with)|comfortable with|"
    r"proficient (?:in|at|with)|an expert (?:in|on|at)|experienced (?:in|with)|"
    r"certified in|fluent in|handy with|trained in|qualified in)\s+" + REST,
    # "skills: bookkeeping, payroll", "my skills: ..."
    r"^(?:my\s+)?(?:key\s+|main\s+)?skills?\s*[:=-]\s*" + REST,
    S + r"(?:know how to|can code in|program in|code in|'ve been (?:programming|coding) in|"
    r"have experience (?:in|with)|"
    r"have \w+ years of experience (?:in|with))\s+" + REST,
    # "add crochet to my skills": the speaker's list of skills.
    r"^(?:(?:please|pls|also|and|oh)\s+)*add\s+(?P<v>[^,;.!?]{1,80}?)\s+to\s+(?:my|the)\s+"
    r"(?:list\s+of\s+)?skills?\b",
    S + r"know\s+(?!the\b|this\b|that\b|my\b|your\b|his\b|her\b|their\b|our\b)"
    r"(?P<v>[\w#+.' -]+?)\s+(?:(?:pretty\s+|really\s+|quite\s+|very\s+|fairly\s+)?well|"
    r"inside\s+out|back\s+to\s+front)\b",
    # "I know SQL too", "i also know Figma and Blender now": a tool known by name (checked in
    # skills()).
    S + r"know\s+(?P<v>[\w#+.-]+(?:\s+(?:and|&)\s+[\w#+.-]+)?)"
    r"(?:\s+(?:too|as\s+well|now|already|also))*\s*(?:$|[,.;!])",
)
# A craft by name after what one does to become good at it: "picked up pottery this year",
# "i do carpentry on the side", "also learned to solder" (checked in skills() against CRAFTS).
CRAFT = rx(
    r"(?:^|" + S + r")(?:(?:also|finally|recently|just|even)\s+)*"
    r"(?:(?:learned|learnt|taught\s+myself)\s+(?:how\s+)?to|picked\s+up|took\s+up|"
    r"taken\s+up|do|learned|learnt)\s+(?P<v>[\w-]+)\b"
)
# "I play the cello", "i can play guitar pretty well", "I can knit", "black belt in judo":
# an instrument or a craft one can do (checked against CRAFTS in skills()).
CAN_DO = rx(
    S + r"(?:can\s+|could\s+always\s+)?play\s+(?:the\s+)?(?P<v>[\w-]+)\b",
    S + r"can\s+(?:(?:also|actually|really)\s+)?(?P<v>[\w-]+)"
    r"(?=\s*+(?:$|[,.!;]|\s(?:well|really|pretty|quite|a\s+bit|a\s+little|too|now|decently|"
    r"properly|fluently|a\s+lot)\b))",
    r"\b(?:have|got|'ve\s+got|earned|a)\s+(?:my\s+|a\s+)?(?:\w+\s+)?belt\s+in\s+(?P<v>[\w-]+)",
)
# Years of making something with a tool: "I've been writing Excel macros for years".
PRACTISED = rx(
    S + r"been\s+(?:writing|coding|programming|building|making|designing|doing)\s+"
    r"(?P<v>[^,.;!?]{1,40}?)\s+for\s+(?:years|ages|decades|a\s+decade|a\s+long\s+time|"
    r"\d{1,2}\+?\s+years|(?:two|three|four|five|ten|many)\s+years)\b"
)
# "..., i'm pretty decent at it now": the craft the message names.
_GOOD_AT_IT = re.compile(
    r"\b(?:good|decent|great|better|not\s+bad|ok|okay|solid|handy)\s+at\s+(?P<it>it)\b", re.I
)


def languages(clause: str) -> list[Statement]:
    for pattern in LANGUAGE:
        match = pattern.search(clause)
        if not match:
            continue
        # "a little French", "fluent Spanish": the language is the item's last word.
        spoken = match.group("v").split(":", 1)[-1]  # "three languages: English, ..."
        items = []
        for item in listed(spoken, max_words=4):
            words = item.split()
            # "uzbek russian and english": languages listed with spaces only.
            known = [w for w in words if w.lower() in LANGUAGES]
            items += known if len(known) == len(words) else words[-1:]
        values = [v for v in items if v.lower() in LANGUAGES]
        return [said("language", v, evidence_of(clause, match, v), LIKELY) for v in values]
    return []


def _may_be_someone(value: str) -> bool:
    """A capitalised word that is no language or known tool may be a person's name."""
    words = value.split()
    return (
        len(words) <= 2
        and all(w[:1].isupper() and w.isalpha() for w in words)
        and value.lower() not in LANGUAGES | TOOLS
    )


_OWNED_WORD = re.compile(r"\b(?:my|our|their|his|her|your)\b", re.I)


def skills(clause: str) -> list[Statement]:
    for pattern in SKILL:
        match = pattern.search(clause)
        if not match:
            continue
        found = []
        # "fluent in sarcasm and emoji": fluent only in a language (languages()) or a tool.
        fluent = "fluent" in match.group(0).lower()
        for value in listed(match.group("v"), max_words=4):
            if pattern is SKILL[-2] and _may_be_someone(value):
                continue  # "I know Tom really well": a person, not a skill
            if (pattern is SKILL[-1] or fluent) and value.lower() not in TOOLS:
                continue  # "I know Tom": only a tool known by name is a skill
            if _OWNED_WORD.search(value):
                continue  # "good at carpentry, built our kitchen table": what it made

            predicate = "language" if value.lower() in LANGUAGES else "skill"
            found.append(said(predicate, value, evidence_of(clause, match, value), 0.8))
        return found
    return _crafts(clause)


def craft(word: str) -> str | None:
    """The craft ``word`` names ("pottery", "solder" -> "soldering"), or None."""
    word = word.lower()
    if word in CRAFTS:
        return word
    return CRAFT_VERBS.get(word)


def _crafts(clause: str) -> list[Statement]:
    for index, pattern in enumerate(CAN_DO):
        can = pattern.search(clause)
        word = can and can.group("v")
        # A belt is in a martial art: any word; the rest name an instrument or a craft.
        name = word and (word.lower() if index == len(CAN_DO) - 1 else craft(word))
        if can and word and name:
            return [said("skill", name, evidence_of(clause, can, word), 0.8)]
    match = CRAFT[0].search(clause)
    if match:
        name = craft(match.group("v"))
        learned = "to" in match.group(0).lower().split()
        # "learned to solder" names the craft by its verb; "picked up pottery" by its noun.
        if name and (learned or match.group("v").lower() in CRAFTS):
            return [said("skill", name, evidence_of(clause, match, match.group("v")), 0.8)]
    match = PRACTISED[0].search(clause)
    if match:
        value = match.group("v").strip()
        words = value.lower().split()
        if any(w in TOOLS for w in words) or (len(words) == 1 and craft(words[0])):
            return [said("skill", value, evidence_of(clause, match, value), 0.8)]
    return []


def with_craft_named(clause: str, message: str) -> str:
    """ "crochet update: made a blanket, i'm actually good at it now": the "it" the one craft
    the message names, written out, so that the clause reads as a skill."""
    match = _GOOD_AT_IT.search(clause)
    if not match:
        return clause
    named = {c for w in re.findall(r"[\w-]+", message) if (c := craft(w)) and w.lower() in CRAFTS}
    if len(named) != 1:
        return clause
    return clause[: match.start("it")] + named.pop() + clause[match.end("it") :]
