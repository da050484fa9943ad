"""The extraction pipeline: text -> sentences -> clauses; each clause is cleared of traps,
then read for endings and statements.

This module reads a message: the speaker's own words, sentence by sentence, each with what
it says of the sentence before (a correction, a pet's name, a date); clause_reading.py reads
one clause, normalising.py makes the text the rules read."""

import re
from dataclasses import dataclass, field
from datetime import UTC, datetime

from language.attribution import own_words
from language.extraction import clauses, corrections, traps
from language.extraction.classifier import vetted
from language.extraction.clause_reading import (
    extract_clause,
    said_once,
    taken_for_granted,
    with_start,
)
from language.extraction.dates import future_start
from language.extraction.fragments import INTRO, forms_read
from language.extraction.keywords import typos_read
from language.extraction.normalising import normalise
from language.extraction.patterns import with_craft_named
from language.extraction.people import is_unnamed, named_later
from language.extraction.rescheduling import rescheduled
from language.extraction.sarcasm import ironic_spans, playful_spans, unironic, within_any
from language.extraction.signature import signature
from language.extraction.statements import Statement
from language.extraction.structure import merged as structure_merged
from language.parse import available as parser_available

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
            key = said_once(item)
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
                self.found[index] = with_start([item], start)[0]

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
            self.seen = {said_once(s) for s in self.found}
        self.add(said)
        return True

    def read(self, sentence: str, *, intro: bool = False) -> None:
        if not self.revised(sentence):
            self._read_clauses(sentence, intro=intro)

    def _read_clauses(self, sentence: str, *, intro: bool = False) -> None:
        scene = when = ""
        for clause in clauses.clauses(sentence, intro=intro):
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


def _vetted(found: list[Statement], clause: str, message: str) -> list[Statement]:
    """``found`` as the classifier vets it (classifier.vetted), but what the clause takes for
    granted stays: the classifier tells statements from the rest, and "anyway can u help me,
    the dog Pochi needs a walk" states nothing yet names the speaker's dog."""
    kept = vetted(found, clause, message)
    if len(kept) == len(found):
        return kept
    given = {said_once(s) for s in taken_for_granted(clause)}
    return [s for s in found if s in kept or said_once(s) in given or _ends_by_name(s)]


def _ends_by_name(item: Statement) -> bool:
    """ "we rehomed Mango with a family ...": the end of a pet (or child) called so, which
    ends nothing unless the speaker has one of that name; no classifier needed."""
    return bool(
        item.is_ending and item.predicate in ("pet", "child") and (item.ended or "")[:1].isupper()
    )


def extract(text: str, *, now: datetime | None = None) -> list[Statement]:
    """The statements ``text`` makes about its speaker, in the order they appear, each
    (predicate, qualifier, value) once."""
    # Only the speaker's own words: a pasted email, a forward, a draft for someone else or
    # a quotation states nothing about the speaker.
    # Typos of the words the rules key on read as those words ("my girlfreind", "moevd to"),
    # first: what marks a quotation or a forward is read through its typos too.
    said = own_words(typos_read(text))
    reading = _Reading(now=now or datetime.now(UTC), message=said)
    reading.ironic = [normalise(span) for span in ironic_spans(said)]
    reading.playful = [normalise(span) for span in playful_spans(said)]
    reading.add(signature(said))  # "my new signature: Name | Title | Company | ..."
    own = normalise(forms_read(said))  # "City: Leeds\nJob: nurse" -> "I live in Leeds."
    sentences = clauses.sentences(own)
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
