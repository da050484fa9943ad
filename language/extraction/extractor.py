"""The extraction pipeline: text -> sentences -> clauses; each clause is cleared of traps,
then read for endings and statements."""

import re
import unicodedata
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime

from language.attribution import own_words
from language.extraction import clauses as traps
from language.extraction import corrections
from language.extraction.chat import spelled_out
from language.extraction.classifier import vetted
from language.extraction.contacts import EMAIL
from language.extraction.dates import future_start
from language.extraction.endings import endings
from language.extraction.fragments import INTRO, forms_read
from language.extraction.keywords import typos_read
from language.extraction.kinship import KIN_WORDS
from language.extraction.patterns import (
    STATEMENT_RULES,
    birthday,
    birthday_on,
    dislikes,
    swaps,
    with_craft_named,
    workplace,
)
from language.extraction.people import is_unnamed, named_later, presupposed
from language.extraction.rescheduling import rescheduled
from language.extraction.sarcasm import ironic_spans, playful_spans, unironic, within_any
from language.extraction.signature import signature
from language.extraction.statements import Statement, is_lowercase_text
from language.extraction.structure import merged as structure_merged
from language.parse import available as parser_available

_APOSTROPHES = str.maketrans({"’": "'", "‘": "'", "`": "'"})
_MONTH_MAY = re.compile(
    r"\b(?:in|from|since|of|this|next|until|by|early|late|mid|starting|on)\s+may\b"
    r"|\b\d{1,2}(?:st|nd|rd|th)?\s+(?:of\s+)?may\b|\bmay\s+\d",
    re.I,
)
# "Just moved to Lisbon!": the subject a chat message leaves out is the speaker.
_SUBJECT_DROPPED = re.compile(
    r"^(?:(?:so|well|oh|and|also|btw|update|news|guess what|anyway|ok|okay|yeah|yep|hey)"
    r"[,:!]?\s++)*(?=(?:just|finally|recently|officially|currently|now)?\s*"
    r"(?:moved|relocated|joined|started|"
    r"got|quit|left|resigned|became|adopted|married|switched|broke up|gave up|dropped|"
    r"divorced|signed|handed in|bought|rehomed|promoted|emigrated|accepted|went|turned|landed|"
    r"retired|picked up|took up|learned|learnt|"
    r"working\s+(?:at|for|as)|living\s+in|employed\s+(?:at|by))\b)",
    re.I,
)
# "Joining Uber on Monday!": an -ing form whose "I'm" was left out.
_SUBJECT_DROPPED_ING = re.compile(
    r"^(?:(?:so|well|oh|and|also|btw|update|news|guess what|anyway|ok|okay|yeah|yep|hey)"
    r"[,:!]?\s++)*(?=(?:(?:officially|finally|now|just)\s+)?(?:joining|starting\s+(?:at|with|as|a|my)|moving|"
    r"relocating|leaving|quitting|getting married|marrying|(?:really\s+|so\s+)?into|"
    r"obsessed with|settled in|settling in|no longer an?|fluent in)\b)",
    re.I,
)
_LEAVING = re.compile(r"\b(?:i'm|i am|we're|we are)\s+(?:\w+\s+)?leaving\b", re.I)
# "As a kid I hated fish, but these days I love sushi": the scene ends where now begins.
_NOW_OPENS = re.compile(r"^(?:now|these days|nowadays|today)\b", re.I)
_NOW = re.compile(r"\b(?:today|now|as of today|right now|this week)\b", re.I)


# The predicates a date in the text can start: "my daughter starts school in September" does
# not make her a child only from September.
DATED = frozenset(
    {"employer", "job_title", "city", "country", "spouse", "partner", "diet", "email", "phone"}
)
# Emoji and other pictographs, with their modifiers and the space before them: "engineering
# lead 🎉" is a job title, "Turkish coffee ☕" a drink.
_SYMBOLS = re.compile(r"(?<!\s)(\s*)([^\w\s]+)")


def _is_pictograph(char: str) -> bool:
    category = unicodedata.category(char)
    return category == "So" or char in "\u200d\ufe0f" or (category == "Sk" and ord(char) > 0x2000)


# A capitalised word after an emoji that may be a name ("He", "She" begin a sentence).
_NAME_NEXT = re.compile(r"\s(?!(?:He|She|It|They|I|We|The|This|That|My|Our)\b)(?-i:[A-Z])")
# The word for a relative or a pet right before an emoji.
_KIN_BEFORE = re.compile(
    r"\b(?:my|our)\s+(?:" + "|".join(sorted(KIN_WORDS, key=len, reverse=True)) + r")s?$", re.I
)


def _without_pictographs(match: re.Match[str]) -> str:
    """An emoji at the end goes; one between words ends a sentence as chat uses it ("Rex died
    last night 💔 if we ever get another dog ...")."""
    kept = "".join(c for c in match.group(2) if not _is_pictograph(c))
    if kept == match.group(2):
        return match.group(0)
    following = match.string[match.end() : match.end() + 2]
    if (
        not kept
        and _NAME_NEXT.match(match.string, match.end())
        and _KIN_BEFORE.search(match.string[max(0, match.start() - 24) : match.start()])
    ):
        return ""  # "my wife 👩 Nadia", "our dog 🐶 Rex": the name goes on after it
    if (
        not kept
        and re.match(r"\s\w", following)
        and not re.search(r"[.!?,;:]\s*$", match.string[: match.start()])
    ):
        return "."
    return match.group(1) + kept if kept else ""


def _normalise(text: str) -> str:
    text = _SYMBOLS.sub(_without_pictographs, text.translate(_APOSTROPHES))
    text = re.sub(r"\b([Ii])m\b", r"\1'm", text)
    return spelled_out(text)  # chat spellings: "i wrk at", "ive", "moved 2 leeds"


def _with_start(found: list[Statement], start: datetime | None) -> list[Statement]:
    if start is None:
        return found
    return [
        replace(s, valid_from=start) if s.is_ending or s.predicate in DATED else s for s in found
    ]


def _span(item: Statement, clause: str) -> tuple[int, int]:
    """Where a statement's evidence sits in its clause (the whole clause if not found)."""
    start = clause.find(item.evidence)
    return (start, start + len(item.evidence)) if start >= 0 else (0, len(clause))


def _unsaid(found: list[Statement], clause: str) -> list[Statement]:
    """The statements a reporting verb before them ("Tom told everyone I'm joining Apple")
    or a negation before their end ("I never worked at Meta") takes back; "My wife Ingrid
    says hi" and "I live in Lima, not Cusco" still say what comes first."""
    reported = traps.REPORTED.search(clause)
    # An address's own words ("ola@firma.no") negate nothing.
    negated = traps.NEGATION.search(EMAIL.sub(lambda m: " " * len(m.group(0)), clause))
    kept = []
    for item in found:
        start, end = _span(item, clause)
        # Only the reporter's own words stand: "My wife Ingrid says hi" (the reporting verb
        # right after them), not "I'm the best engineer, according to my boss".
        if reported and not start <= reported.start() < end:
            continue
        if (
            negated
            and negated.start() < end
            and not (item.is_ending or item.predicate == "dislikes")
        ):
            continue
        kept.append(item)
    return kept


def _with_speaker(clause: str) -> str:
    speaker = "I "
    dropped = _SUBJECT_DROPPED.match(clause)
    if dropped is None:
        dropped, speaker = _SUBJECT_DROPPED_ING.match(clause), "I'm "
    if dropped is None:
        return clause
    if is_lowercase_text(clause):
        speaker = speaker.lower()
    return clause[: dropped.end()] + speaker + clause[dropped.end() :]


def _quoted(found: list[Statement], clause: str) -> list[Statement]:
    """Evidence in the text's own words: without the "I " put in for a dropped subject."""
    return [replace(s, evidence=_unquoted(s.evidence, clause)) for s in found]


def _unquoted(evidence: str, clause: str) -> str:
    if evidence in clause:
        return evidence
    for speaker in ("I'm ", "i'm ", "I ", "i "):
        if evidence.startswith(speaker):
            return evidence[len(speaker) :]
    return evidence


def extract_clause(
    clause: str, *, now: datetime, scene: str = "", when: str = ""
) -> list[Statement]:
    """What one clause says about the speaker; nothing when it is a trap, judged with the
    clause that sets its ``scene``, if any ("If I get the job, ..."). ``when``: a clause
    before it that only says when ("Come September, I'll be teaching at Stanford")."""
    if scene and not _NOW_OPENS.match(clause) and _is_trap(f"{scene}, {clause}", now):
        return []
    clause = traps.without_courtesy(clause)
    return _quoted(_extract_clause(_with_speaker(clause), now=now, when=when), clause)


def _is_trap(text: str, now: datetime) -> bool:
    return (
        traps.is_question(text)
        or traps.is_hypothetical(text)
        or traps.is_reported(text)
        or traps.is_plan(_MONTH_MAY.sub(" ", text))
        or traps.is_past(text, now.year)
    )


def _extract_clause(clause: str, *, now: datetime, when: str = "") -> list[Statement]:
    return _unsaid(_stated(clause, now=now, when=when), clause)


def _presupposed(clause: str) -> list[Statement]:
    """What a question, a plan or a supposition takes for granted: "should I propose to my
    gf Mina?" names her; "i need to vent, my manager at Acme ..." works at Acme."""
    return presupposed(clause) + workplace(clause)


def _vetted(found: list[Statement], clause: str, message: str) -> list[Statement]:
    """``found`` as the classifier vets it (classifier.vetted), but what the clause takes for
    granted stays: the classifier tells statements from the rest, and "anyway can u help me,
    the dog Pochi needs a walk" states nothing yet names the speaker's dog."""
    kept = vetted(found, clause, message)
    if len(kept) == len(found):
        return kept
    given = {_said_once(s) for s in _presupposed(clause)}
    return [s for s in found if s in kept or _said_once(s) in given or _ends_by_name(s)]


def _ends_by_name(item: Statement) -> bool:
    """ "we rehomed Mango with a family ...": the end of a pet (or child) called so, which
    ends nothing unless the speaker has one of that name; no classifier needed."""
    return bool(
        item.is_ending and item.predicate in ("pet", "child") and (item.ended or "")[:1].isupper()
    )


def _stated(clause: str, *, now: datetime, when: str) -> list[Statement]:
    if traps.is_question(clause) or traps.is_hypothetical(clause):
        return _presupposed(clause)
    plan = traps.is_plan(_MONTH_MAY.sub(" ", clause))
    if plan:
        return _presupposed(clause)
    start, dateless_future = _start(clause, now)
    if start is None and when:
        start, dateless_future = _start(f"{when}, {clause}", now)
    swapped = swaps(clause)
    if swapped:
        return [] if dateless_future else _with_start(swapped, start)
    ended = endings(clause)
    if ended:
        # "I'm leaving Intel on June 30" ends the job on that date; with no date, a plan.
        return [] if dateless_future else _with_start(ended, start)
    born = birthday(clause) or birthday_on(clause, now)
    if born:
        return born
    disliked = dislikes(clause)
    if disliked:
        return disliked
    if traps.is_past(clause, now.year):
        return []
    if dateless_future:
        # A future with no date is a plan ("I'm moving to Berlin"), not a change.
        return _presupposed(clause)
    found = [s for rule in STATEMENT_RULES for s in rule(clause)]
    return _given_now(_with_start(found, start), clause)


def _given_now(found: list[Statement], clause: str) -> list[Statement]:
    """ "me and my partner Hemi are getting married next year": the date is the wedding's;
    the partner the clause names in passing is one today."""
    given = {(s.predicate, s.value) for s in presupposed(clause)}
    if not given:
        return found
    return [replace(s, valid_from=None) if (s.predicate, s.value) in given else s for s in found]


def _start(clause: str, now: datetime) -> tuple[datetime | None, bool]:
    """When the change ``clause`` states takes effect, if later than today ("I join Canva
    next month", "my first day at Klarna is Monday"), and whether the clause speaks of the
    future without saying when (a plan)."""
    future = traps.is_future(clause) or bool(_LEAVING.search(clause))
    start = future_start(clause, now, future_tense=future)
    if start is not None and not future and traps.has_past_verb(clause):
        start = None  # "I moved to Oslo on the 20th": when it happened
    return start, future and start is None and not _NOW.search(clause)


# A clause that only says when what came before takes effect: "Just signed with Mercado
# Libre, I start on July 15", "I quit Zurich Insurance. Effective June 30."
_WHEN_ONLY = re.compile(
    r"^(?:and\s+|but\s+|so\s+)?(?:(?:(?:i|we)(?:'m|'ll|'re|\s+will|\s+am|\s+are)?\s+(?:be\s+)?)?"
    r"(?:start|begin|join|move|leave|starting|beginning|joining|moving|leaving)"
    r"|(?:it|this|that|the move|the change|the new job|my new job|the job)\s+(?:starts|begins|"
    r"is|takes effect|kicks off)|effective|starting|from|as of|beginning"
    r"|my\s+(?:last|first)\s+day(?:\s+there)?\s+(?:is|will be))\b",
    re.IGNORECASE,
)


_TASTES = frozenset({"likes", "dislikes"})
# Corrections and changes of taste are read whole only in sentences up to this long.
_REVISED_MAX_CHARS = 600
_DROPPED_I = re.compile(
    r"^(?=(?:can't|cant|cannot)\s+(?:stand|bear|stomach|do|handle|take)\b)", re.I
)


@dataclass
class _Reading:
    """What a text has said so far, statement by statement."""

    now: datetime
    found: list[Statement] = field(default_factory=list)
    seen: set[tuple[str, str, str | None]] = field(default_factory=set)
    last: list[int] = field(default_factory=list)  # where the last clause's statements are
    message: str = ""  # the speaker's words as typed, emoji and all: for the classifier
    topic: str | None = None  # what the last sentence of taste was about ("... like it now")
    ironic: list[str] = field(default_factory=list)  # stretches sarcasm turns around
    playful: list[str] = field(default_factory=list)  # stretches whose tastes it turns

    def add(self, items: list[Statement]) -> None:
        self.last = []
        for item in items:
            key = _said_once(item)
            if key not in self.seen:
                self.seen.add(key)
                self.last.append(len(self.found))
                self.found.append(item)

    def names_pet(self, sentence: str) -> bool:
        """ "we got a dog! his name is Bongo": the sentence names the pet (or relative) the
        one before it gave no name."""
        last = [self.found[index] for index in self.last]
        pet = next((s for s in reversed(last) if is_unnamed(s)), None)
        named = pet and named_later(pet, sentence)
        if pet and named:
            self.found[self.found.index(pet)] = named
        return bool(named)

    def dates_last(self, clause: str) -> None:
        """A clause of its own that says when the last one's statements take effect."""
        start = future_start(clause, self.now)
        if start is None or not _WHEN_ONLY.match(clause):
            return
        for index in self.last:
            item = self.found[index]
            if item.valid_from is None:
                self.found[index] = _with_start([item], start)[0]

    def revised(self, sentence: str) -> bool:
        """A correction, a change of taste or an item added to a list (corrections.py):
        read whole, since what it corrects or refers to may sit anywhere in the sentence."""
        if len(sentence) > _REVISED_MAX_CHARS:
            return False  # said in a short sentence; a long run is read clause by clause
        # "cant stand X anymore": the "I" left out, not a question.
        said_by_me = _DROPPED_I.sub("I ", sentence)
        if traps.is_question(said_by_me) or traps.is_hypothetical(said_by_me):
            return False
        if traps.is_reported(said_by_me) or within_any(sentence, self.ironic):
            return False  # (sarcasm is read clause by clause: what it takes back, unironic())

        def read(clause: str) -> list[Statement]:
            return extract_clause(clause, now=self.now) if clause.strip(" ,.;:") else []

        fixed = corrections.correction(sentence, self.found, read)
        if fixed is not None:
            self.found, self.seen = [], set()
            self.add(fixed[0])
            self.add(fixed[1])
            return True
        contrasted = corrections.said_before(sentence) or corrections.contrast(sentence, read)
        if contrasted:
            self.add(contrasted)
            return True
        both = corrections.left_and_joined(sentence, read)
        if both:
            self.add(both)
            return True
        tastes = corrections.tastes(sentence, earlier=self.topic)
        self.topic = corrections.subject_of(sentence) or self.topic
        said = tastes or corrections.additions(sentence) or corrections.also(sentence)
        if not said:
            return False
        # The rest of the sentence is read as usual ("I moved to Madrid and I'm into flamenco
        # now"); a change of taste is its last word on likes and dislikes.
        start = len(self.found)
        self._read_clauses(sentence)
        if tastes or (said and said[0].evidence.lower().startswith(("add ", "put "))):
            self.found[start:] = [
                s for s in self.found[start:] if s.predicate not in _TASTES or s.is_ending
            ]
            self.seen = {_said_once(s) for s in self.found}
        self.add(said)
        return True

    def read(self, sentence: str, *, intro: bool = False) -> None:
        if not self.revised(sentence):
            self._read_clauses(sentence, intro=intro)

    def _read_clauses(self, sentence: str, *, intro: bool = False) -> None:
        scene = when = ""
        for clause in traps.clauses(sentence, intro=intro):
            if self.names_pet(clause):
                continue  # "my daughter - her name's Sun-hee - just turned 4"
            said = extract_clause(
                with_craft_named(clause, self.message), now=self.now, scene=scene, when=when
            )
            said = _vetted(said, clause, self.message)
            said = unironic(said, clause, self.ironic, self.playful)
            if said:
                self.add(said)
            else:
                self.dates_last(clause)
            scene = clause if traps.scene_setting(clause) else ""
            when = clause if not said and future_start(clause, self.now) else ""


def _said_once(item: Statement) -> tuple[str, str, str | None]:
    """What makes two statements one: "Korean" and "korean" are one language."""
    value = item.value or item.ended
    return (item.predicate, item.qualifier, value.casefold() if value else None)


def extract(text: str, *, now: datetime | None = None) -> list[Statement]:
    """The statements ``text`` makes about its speaker, in the order they appear, each
    (predicate, qualifier, value) once."""
    # Only the speaker's own words: a pasted email, a forward, a draft for someone else or
    # a quotation states nothing about the speaker.
    # Typos of the words the rules key on read as those words ("my girlfreind", "moevd to"),
    # first: what marks a quotation or a forward is read through its typos too.
    said = own_words(typos_read(text))
    reading = _Reading(now=now or datetime.now(UTC), message=said)
    reading.ironic = [_normalise(span) for span in ironic_spans(said)]
    reading.playful = [_normalise(span) for span in playful_spans(said)]
    reading.add(signature(said))  # "my new signature: Name | Title | Company | ..."
    own = _normalise(forms_read(said))  # "City: Leeds\nJob: nurse" -> "I live in Leeds."
    sentences = traps.sentences(own)
    if not sentences:
        return reading.found  # only emoji ("🎉"), or nothing of the speaker's
    intro = bool(INTRO.match(sentences[0]))  # "hi, I'm ...", "About me: ..."
    read = []
    for sentence, following in zip(sentences, [*sentences[1:], ""], strict=True):
        if traps.reported_after(sentence) or traps.retracted(sentence, following):
            continue
        read.append(sentence)
        if not reading.names_pet(sentence):
            reading.read(sentence, intro=intro)
    found = _with_structure(own, reading.found, read, reading.now)
    # "the move is off", "my start got pushed to August 3": of a change announced before.
    found += [s for sentence in read for s in rescheduled(sentence, now=reading.now)]
    # A pet known only by its species ("we got a cat") waited for a name; without one, no fact.
    return [s for s in found if not is_unnamed(s)]


def _with_structure(
    text: str, found: list[Statement], sentences: list[str], now: datetime
) -> list[Statement]:
    """The rules' statements checked and completed by the parse of ``text``'s sentences,
    when the optional parser is installed and not turned off (language.parse, DEWEE_PARSER)."""
    if not parser_available():
        return found
    return structure_merged(
        text,
        found,
        read_clause=lambda clause: extract_clause(clause, now=now),
        kept_sentences=sentences,
    )
