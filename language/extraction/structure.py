"""What the structure of a sentence says that the rules' patterns miss, when the optional
parser is installed (language.parse). The rules read first; this reader then

- adds the names of the speaker's relatives and pets that a dependency joins to the noun
  ("my son jake", "my kids are tane and mere", "a puppy, her name is Biscuit", "Meet Kiwi,
  my budgie", "my tortoise gerald is 40"): a name counts only for a noun the speaker owns
  ("my", "our", a bare "hubby (Rangi)", or the object of "I have / we got / adopted"), in a
  clause that is neither negated nor supposed ("would", "if") (kinship.py);
- reads each verb that shares a first-person subject with the one before it ("I'm in Lyon
  and work at Sanofi") as a clause of its own, through the rules (``read_clause``);
- takes back a rule's statement when the parse shows that the clause it came from has
  another subject ("my brother works at Shopify"), a negation or a supposition.

Nothing here imports spaCy: the parse arrives as language.parse's plain types.
"""

import re
from collections.abc import Callable, Iterable

from language.extraction import traps
from language.extraction.clauses import clauses
from language.extraction.kinship import KIN_WORDS, OWNERS, Reader, kin, relatives, words
from language.extraction.people import nationality
from language.extraction.statements import Statement, is_lowercase_text
from language.extraction.vocabulary import PET_SPECIES
from language.parse import Parse, parse_many

ReadClause = Callable[[str], list[Statement]]
# The characters of one text parsed at most (about 60 ms of parse on a busy core): a long
# paste is read by the rules alone past its first sentences, so a check stays fast.
PARSE_BUDGET = 1_500

# A statement of the user that another subject can't be: its evidence is said about someone.
_PERSONAL = frozenset(
    {
        "employer",
        "job_title",
        "city",
        "country",
        "diet",
        "likes",
        "dislikes",
        "language",
        "skill",
        "birthday",
    }
)
_FUTURE_MODALS = frozenset({"will", "'ll", "shall", "wo", "gonna", "would", "'d"})


def _span(parse: Parse, evidence: str, after: int = 0) -> tuple[int, int] | None:
    start = parse.text.find(evidence, after)
    return (start, start + len(evidence)) if start >= 0 and evidence else None


def vetoed(parse: Parse, item: Statement) -> bool:
    """Whether the parse shows that ``item``'s clause is not the speaker's plain statement:
    another subject ("my brother works at Shopify"), a negation ("I don't live in Rome",
    for anything but a dislike or an ending) or a supposition ("I'd work at Google")."""
    span = _span(parse, item.evidence)
    if span is None:
        return False
    tokens = parse.at(*span)
    if not tokens:
        return False
    reader = Reader(parse, lowercase=False)
    # The clause of the statement's value: its last word's.
    head = reader.clause_head(tokens[-1])
    if reader.unreal(head, before=span[1]) and not (item.is_ending or item.predicate == "dislikes"):
        return True
    if item.predicate not in _PERSONAL:
        return False
    subject = reader.subject(head)
    if subject is None or reader.first_person(subject):
        return False
    if subject.lower in (item.value or item.ended or "").lower():
        return False  # "Spanish is my native language": the value leads
    said = parse.children(head, "attr", "acomp", "dobj")
    if any(
        parse.children(k, "poss") and parse.children(k, "poss")[0].lower in OWNERS for k in said
    ):
        return False  # "Jazz is my thing", "Lisbon is my home now"
    if subject.lower in {"he", "she", "they", "you"}:
        return True
    # "my brother", "Tom": a person; "it", "the office", "my job" are not the speaker's
    # stand-ins and say nothing against the rule.
    owner = reader.parse.children(subject, "poss")
    if owner and kin(subject) is None and owner[0].lower in OWNERS:
        return False
    return subject.pos == "PROPN" or kin(subject) is not None or subject.lower in _PEOPLE


_PEOPLE = words(
    """mom mum dad mother father brother sister friend boss colleague coworker cousin aunt
    uncle grandma grandpa grandmother grandfather neighbour neighbor roommate flatmate
    manager bestie bff sis bro"""
)


def coordinated(parse: Parse, read_clause: ReadClause) -> list[Statement]:
    """ "I'm in Lyon and work at Sanofi": each verb joined to one whose subject is the
    speaker, read as a clause of its own ("I work at Sanofi") by the rules."""
    reader = Reader(parse, lowercase=False)
    found: list[Statement] = []
    for verb in parse.tokens:
        if verb.dep != "conj" or parse.children(verb, "nsubj", "nsubjpass"):
            continue
        first = parse.head(verb)
        if first.pos not in {"VERB", "AUX"}:
            continue
        subject = reader.subject(first)
        if subject is None or subject.lower not in {"i", "we"}:
            continue
        if reader.unreal(first) or reader.unreal(verb):
            continue
        words = [t for t in parse.subtree(verb) if not (t.dep == "conj" and t.head == verb.i)]
        cut = {t.i for c in parse.children(verb, "conj") for t in parse.subtree(c)}
        words = [t for t in words if t.i not in cut and t.dep != "cc"]
        if not words:
            continue
        piece = parse.text[words[0].start : words[-1].end]
        # The first verb's auxiliary goes with it ("I've been vegan ... and speak French"
        # is "I speak French"); a bare "and work at" takes the subject alone.
        # The first verb's modal goes with the second: "I'll move to Paris and work at
        # Google" plans both; "I've been vegan and speak French" is "I speak French".
        modal = [a.text for a in parse.children(first, "aux") if a.lower in _FUTURE_MODALS]
        said = read_clause(" ".join([subject.text, *modal, piece]).replace(" '", "'"))
        found += [_evidenced(s, piece) for s in said]
    return found


def _evidenced(item: Statement, piece: str) -> Statement:
    from dataclasses import replace

    return replace(item, evidence=piece) if item.evidence not in piece else item


def _stands(evidence: str, sentences: list[str]) -> bool:
    """Whether ``evidence`` lies in a clause of the kept sentences that is no trap of the
    rules (a question, a supposition, a plan, or words reported before it: "my wife Ana
    says hi" is the speaker's naming, "Tom says his wife Ana ..." Tom's)."""
    for sentence in sentences:
        if evidence not in sentence:
            continue
        if traps.is_question(sentence):
            return False
        for clause in clauses(sentence):
            if evidence not in clause:
                continue
            if traps.is_hypothetical(clause) or traps.is_plan(clause):
                return False
            reported = traps.REPORTED.search(clause)
            return reported is None or reported.start() >= clause.index(evidence)
        return True  # the evidence runs over a clause break: the sentence's own
    return False


# Which sentences are worth a parse (a parse costs milliseconds; these cost microseconds):
# one that names a relative or a pet, one whose rule statement may have another subject, a
# negation or a supposition, and one where the speaker goes on with a second verb.
_KIN_WORD = re.compile(
    r"\b(?:" + "|".join(sorted(KIN_WORDS, key=len, reverse=True)) + r")(?:e?s)?(?:'s)?\b",
    re.IGNORECASE,
)
_VETO_CUE = re.compile(
    r"\b(?:he|she|they|you|his|her|their|not|never|no|would|could|might|if|unless|wish)\b"
    r"|n't\b|'d\b",
    re.IGNORECASE,
)
_RELATIVES = frozenset({"spouse", "partner", "child", "pet"})
_SPEAKER = re.compile(r"\b(?:i|we)\b", re.IGNORECASE)
_SECOND_VERB = re.compile(
    r"(?:\band|,)\s{1,3}(?:(?:also|now|currently|still|then|i|we)\s{1,3})?(?:lives?|living|"
    r"works?|working|speaks?|loves?|likes?|hates?|teach(?:es)?|stud(?:y|ies)|enjoys?|plays?|"
    r"writes?|runs?|owns?|cooks?|codes?|am|'m|have|has|moved|started|joined|got|based|"
    r"married|do|does|dislikes?|adore|prefer|speaking|fluent|volunteer)\b",
    re.IGNORECASE,
)


def worth_parsing(sentence: str, said: list[Statement]) -> bool:
    """Whether the parse of ``sentence`` (whose rule statements are ``said``) may change
    what it yields."""
    # A relative or pet the rules have not named already: "my son Jake" they read alone.
    kin_words = len(_KIN_WORD.findall(sentence))
    if kin_words > sum(1 for s in said if s.predicate in _RELATIVES):
        return True
    if said and _VETO_CUE.search(sentence):
        return True
    return bool(_SPEAKER.search(sentence) and _SECOND_VERB.search(sentence))


def merged(
    text: str,
    found: list[Statement],
    *,
    read_clause: ReadClause,
    kept_sentences: Iterable[str],
    parse_many: Callable[[list[str]], list[Parse | None]] = parse_many,
) -> list[Statement]:
    """The rules' statements ``found`` in ``text``, less those the parse takes back, then
    what the parse adds that they missed (a slot the rules filled is not filled again: the
    rules' value stands). ``kept_sentences``: the sentences the rules read (not retracted
    or reported), the only ones parsed, and each only if :func:`worth_parsing`."""
    sentences = list(kept_sentences)
    chosen, budget = [], PARSE_BUDGET
    for sentence in sentences:
        if len(sentence) > budget:
            break  # a long text: the rest is read by the rules alone
        if worth_parsing(sentence, [f for f in found if f.evidence in sentence]):
            chosen.append(sentence)
            budget -= len(sentence)
    if not chosen:
        return found
    lowercase = is_lowercase_text(text)
    dropped: set[int] = set()
    added: list[Statement] = []
    for sentence, parse in zip(chosen, parse_many(chosen), strict=True):
        if parse is None:
            continue
        for index, item in enumerate(found):
            if item.evidence in sentence and vetoed(parse, item):
                dropped.add(index)
        added += relatives(parse, lowercase) + coordinated(parse, read_clause)
    kept = [item for index, item in enumerate(found) if index not in dropped]
    seen = {(s.predicate, s.qualifier, s.value) for s in found}
    single = {s.predicate for s in found if not s.qualifier}
    # A name the rules gave one relative is not another's ("gf Marta, 2 kids").
    named = {(s.value or "").casefold() for s in found if s.predicate in _RELATIVES}
    for item in added:
        key = (item.predicate, item.qualifier, item.value)
        if key in seen or (not item.qualifier and item.predicate in single):
            continue
        if item.predicate in _RELATIVES and (
            (item.value or "").casefold() in named or nationality(item.value or "")
        ):
            continue  # "my boyfriend is Italian": what he is, not who
        if not _stands(item.evidence, sentences):
            continue
        seen.add(key)
        if not item.qualifier:
            single.add(item.predicate)
        if item.predicate == "pet":
            # "we adopted a second cat, a tabby called Marmite": the rules' pet known only
            # by its species is this one, now named.
            kept = [s for s in kept if not _species_of(s, item, sentences)]
        kept.append(item)
    return kept


def _species_of(rule: Statement, named: Statement, sentences: list[str]) -> bool:
    """Whether ``rule`` is a pet known only by its species in the sentence of ``named``."""
    if rule.predicate != "pet" or (rule.value or "").lower() not in PET_SPECIES:
        return False
    return any(rule.evidence in s and named.evidence in s for s in sentences)
