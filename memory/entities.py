"""Rule-based entity extraction: the pre-pass that always runs, before any NER model.

Entities become tags ``entity:<type>:<value>`` on a memory; recall's entity pass boosts
memories that share an entity with the query, and the AutoPilot dedup keeps near duplicates
apart when their entities differ. A wrong tag costs both, so the rules prefer missing an
ambiguous entity to inventing one.
"""

import re
from dataclasses import dataclass

ENTITY_PREFIX = "entity:"


def is_entity_tag(tag: str) -> bool:
    """Whether ``tag`` was derived from a memory's text (extract_entities) rather than given."""
    return tag.startswith(ENTITY_PREFIX)


_MONTH = r"(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec)[a-z]*\.?"

# Tagged as they are. Order matters only for which kind a value is listed under first.
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    # Only from the start of a run of address characters: from each of its positions, a long
    # run without "@" would be read again and again. (Leading dots and signs are cut below.)
    ("email", re.compile(r"(?<![\w.+-])[\w.+-]+@[\w-]+(?:\.[\w-]+)+\b")),
    ("url", re.compile(r"\bhttps?://[^\s<>\"')\]]+", re.IGNORECASE)),
    (
        "uuid",
        re.compile(r"\b[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}\b", re.I),
    ),
    # Not inside a longer dotted run: "10.4.12.1.7" is no address.
    (
        "ip",
        re.compile(
            r"(?=\d)(?<![\w.])(?:(?:25[0-5]|2[0-4]\d|1?\d?\d)\.){3}"
            r"(?:25[0-5]|2[0-4]\d|1?\d?\d)(?![\w.]?\d)"
        ),
    ),
    (
        "date",
        re.compile(
            # The lookaheads only make a non-starter fail fast.
            r"(?=\d)(?:"
            # Digit-bounded rather than word-bounded, so "2026-03-04T10:30Z" still has its date.
            r"(?<![\w.:/-])(?:\d{4}[-/.]\d{1,2}[-/.]\d{1,2}"
            r"|\d{1,2}/\d{1,2}/(?:\d{4}|\d{2})"
            # Dashes and dots only with a four-digit year: "1.2.10" is a version.
            r"|\d{1,2}[-.]\d{1,2}[-.]\d{4})(?![\d/.:-]\d)"
            rf"|\b\d{{1,2}}(?:st|nd|rd|th)?\s+(?:of\s+)?{_MONTH},?\s+\d{{4}}\b)"
            rf"|(?=[adfjmnos])\b{_MONTH}\s+\d{{1,2}}(?:st|nd|rd|th)?,?\s+\d{{4}}\b",
            re.IGNORECASE,
        ),
    ),
]

# Spans that look like digit groups but are neither phone numbers nor IP addresses: times
# ("10:30", "9:45 pm") and version numbers ("v2.10.15", "version 10.4.12.1"). Not tagged.
_TIMES_AND_VERSIONS = re.compile(
    r"(?=[\dvrb])(?:(?<!\d)(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d)?(?:\s*[ap]\.?m\b\.?)?(?!\d)"
    r"|\b(?:v|version\s+|release\s+|build\s+)\d+(?:\.\d+)+)",
    re.IGNORECASE,
)
# Digit groups with the separators phone numbers use: an optional +country code, an optional
# (area code), then groups split by one space, dot or dash. Not glued to a word, a ticket mark
# or another number ("INV-2024-0042", "#48213", "v10.4.12"), nor followed by more of one.
_PHONE_CANDIDATE = re.compile(
    r"(?=[\d+(])(?<![\w.+/#:@-])"
    r"(?:\+\d{1,3}[ .-]?)?"
    r"(?:\(\d{1,4}\)[ .-]?)?"
    r"\d{2,8}(?:[ .-]\d{2,8})*"
    r"(?![\w+/@]|[.:-]\d)"
)
# "Call 030 1234567": a word like these just before a number of two groups makes it a phone.
_PHONE_CUE = re.compile(
    r"\b(?:phone|tel|telephone|call|mobile|cell|cellphone|fax|whatsapp|sms|ring)\b[^\d\n]{0,12}$",
    re.IGNORECASE,
)
_DIGIT_GROUP = re.compile(r"\d+")


def _overlaps(span: tuple[int, int], spans: list[tuple[int, int]]) -> bool:
    return any(span[0] < end and start < span[1] for start, end in spans)


def _phones(text: str, taken: list[tuple[int, int]]) -> list[str]:
    """Phone numbers: 7 to 15 digits (E.164's longest), written with a leading +country code,
    an (area code), or at least three groups (two after a word like "call"). A bare digit run
    is an order, ticket or account number as often as a phone, so it needs the "+". Spans
    already read as a date, time, IP address or version are not phones."""
    phones = []
    for match in _PHONE_CANDIDATE.finditer(text):
        start = match.start()
        if _overlaps(match.span(), taken):
            continue
        value = match.group(0)
        groups = _DIGIT_GROUP.findall(value)
        if not 7 <= sum(len(g) for g in groups) <= 15:
            continue
        marked = value.startswith("+") or value.startswith("(")
        cued = _PHONE_CUE.search(text, max(0, start - 40), start) is not None
        if marked or len(groups) >= 3 or (cued and len(groups) >= 2):
            phones.append(value)
    return phones


# Capitalised words that name nothing: sentence openers, function words, the labels notes
# and logs start lines with ("Error:", "Contact:", "User:"), the commonest imperatives, which
# a plural noun after them would otherwise pass off as a name ("Check logs" reads like "Ann
# likes tea"), and the subjects of log and status lines ("Connection refused"). Days and
# months are dates. Checked everywhere, not just at a sentence's start, since labels and
# openers also follow commas and quotes.
_NOT_NAMES_TEXT = """
    A An The This That These Those It Its He She They We You Your My Our Their His Her Him Them
    Me Us There Here Who Whom Whose What Where When Why How Which Whatever Whoever
    Hi Hey Hello Dear Thanks Thank Please Sorry Yes No Not Oh Ok Okay Wow Well So But And Or
    Nor If Then Than Also Just Only Even Still Yet Now Once Again Anyway Actually Honestly
    Really Very Maybe Perhaps Sure Great Good Nice Cool Fine Awesome Let
    Congrats Congratulations Aw Aww Woah Whoa Yep Yup Yay Bye Goodbye Cheers Absolutely
    Exactly Definitely Totally Seriously Agreed Welcome Hmm Um Uh Ah Ahh Ooh Oops Indeed Right
    True Lovely Amazing Wonderful Perfect Beautiful Fantastic Incredible Brilliant Sweet Gosh
    Exciting Interesting Plus Otherwise Meanwhile Overall
    Do Does Did Done Is Are Was Were Be Been Being Am Have Has Had Can Could Would Should
    Will Shall May Might Must
    To From For In On At By With Without Of Off About Above Below After Before During Since
    Until Till Into Onto Over Under Through Between Among Against Around Across Along Near
    Per Via As Like Unlike Besides Apart Instead However Therefore Because Although Though
    While Whether Unless Despite Except According Based Considering Regarding Given
    Some Any All Each Every Both Either Neither None Most Many Much More Less Few Several
    Other Another Such Same Nothing Something Everything Anything Nobody Somebody Everyone
    Someone Anyone Always Never Sometimes Usually Often Ever
    First Second Third Next Last Finally Later Earlier Soon Today Tonight Tomorrow Yesterday
    Note Notes Error Errors Warning Warn Info Debug Fatal Contact Subject Re Fwd Cc Bcc
    Status Update Summary Question Answer Reminder Tip Todo Task Action Result Reason Goal
    Agenda Meeting Office Address Phone Email Location Name Title Date Time Ref Attachment
    Important Urgent Fixed Fix Done Pending Yeah Nope Lol Haha
    User Users Assistant System Human Bot Customer Agent Mr Mrs Ms Dr Prof Sir Madam
    Use Run Check Call Add Remove Make Keep Try Send Ask Tell Set Get Go Remember Buy Book
    Restart Deploy Install Open Close Read Write See Look Follow Avoid Review Schedule Bring
    Take Put Move Delete Create Start Stop Wait Find Show Give Share Save Cancel Confirm
    Connection Server Request Response Build Deployment Service Database Job Backup Upload
    Download Login Test Tests Payment Order Invoice Refund Ticket
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday
    January February March April May June July August September October November December
"""
_NOT_NAMES = frozenset(_NOT_NAMES_TEXT.split())
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*\b")
_POSSESSIVE = re.compile(r"['’]s$")
# "Don't", "You're", "We'll": contractions, never names.
_CONTRACTION = re.compile(r"(?:n['’]t|['’](?:re|ve|ll|d|m))$")
# Before a capitalised word, these end a sentence or start a new segment: the word after
# them is capitalised whatever it is. A colon, a quote or a bracket ("[10:30] ") counts too.
_OPENERS = frozenset(".!?…:;\n\"'“”‘’([{]>")
_BULLET = re.compile(r"\s*(?:[-*•+>]|\d{1,3}[.)])")
# A full stop after these is an abbreviation, not a sentence's end ("Dr. Lee", "J. Smith").
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Jr|Sr|Sen|Gen|Capt)|\b[A-Z])\.$")
# After a sentence-initial word (and any capitalised words right after it: "Dmitri Ivanov
# said"), what makes it a person or place: a verb, as statements about people start
# ("Ann likes tea", "Bob adopted a dog", "Dmitri said"; a word ending in -s or -ed, or a
# common irregular or auxiliary verb, maybe after an adverb); "and <Name>" ("Ana and Bo");
# or a colon that makes it a speaker ("Ana: see you at 5", "Ana: 5 years!") when words
# follow: a label's value ("Phones: (415) ...", "Budget: 5k") is rarely a sentence.
_NAME_CONTEXT = re.compile(
    r"\s+(?:(?:[a-z]+ly|also|always|never|often|just|still|now|then|once|even|already|"
    r"sometimes)\s+)?"
    r"(?:[a-z]{2,}(?:s|ed)(?<!ss)|said|told|thought|felt|met|went|left|got|bought|wrote|grew|"
    r"ran|took|made|came|became|gave|kept|knew|saw|won|lost|spent|paid|sold|taught|drove|"
    r"flew|began|found|brought|is|was|has|had|will|would|can|could|should|must|might|did)\b"
    r"|\s+(?:and|or)\s+[A-Z]"
    r"|:\s+[\"'“‘(]?(?:[^\W\d_]|\d+\s+[a-z])"
)
# Someone addressed, or a name said alone: "Maria, thank you!", "Jolene!", "Paris?!". (An
# adverb does that too, "Sadly, ...": words in -ly are left out, interjections are on the
# stop list.)
_ADDRESSED = re.compile(r"[,!?]")
# Lower-case words standing alone (not part of an address, a path or a file name).
_LOWER_WORD = re.compile(r"(?<![\w@./:-])[a-z]+(?![\w@/-]|\.\w)")


def _sentence_initial(text: str, start: int) -> bool:
    """Whether the word at ``start`` opens a sentence, a line, a list item or a quote,
    where any word is capitalised. Looks back a bounded window: enough for an opener."""
    window = text[max(0, start - 80) : start]
    before = window.rstrip(" \t")
    if not before:
        return start <= 80
    if before[-1] == "." and _ABBREVIATION.search(before):
        return False
    if before[-1] in _OPENERS:
        return True
    line_start = before.rfind("\n")
    return (line_start >= 0 or start <= 80) and bool(_BULLET.fullmatch(before[line_start + 1 :]))


def query_names(text: str) -> list[str]:
    """Capitalised words that name someone or something, lower-cased, without repeats, in
    order of first appearance. Inside a sentence a capitalised word is taken as a name; at a
    sentence's start (or after a colon, a quote, a newline, a bullet) only when the same word
    is also capitalised inside a sentence somewhere in the text, or when a name context
    follows it ("Ana moved", "Dmitri said", "Ana's", "Ana and Bo", "Ana: hi", "Ana, look")
    and the text does not also write it in lower case. Openers, function words, common
    labels and imperatives are never names."""
    matches = list(_NAME.finditer(text))
    inside: set[str] = set()
    candidates: list[tuple[str, bool]] = []
    for i, match in enumerate(matches):
        word = match.group(0)
        if _CONTRACTION.search(word):
            continue
        name = _POSSESSIVE.sub("", word)
        if name in _NOT_NAMES:
            continue
        if not _sentence_initial(text, match.start()):
            inside.add(name)
            candidates.append((name, True))
            continue
        # Skip the capitalised words right after it ("Dmitri Ivanov said") to the context.
        last = i
        while (
            last + 1 < len(matches) and text[matches[last].end() : matches[last + 1].start()] == " "
        ):
            last += 1
        named = (
            # The possessive is its own ("Ana's"), not the run's ("Remember Ana's").
            _POSSESSIVE.search(word) is not None
            or _NAME_CONTEXT.match(text, matches[last].end()) is not None
            or (
                _ADDRESSED.match(text, matches[last].end()) is not None
                and not matches[last].group(0).endswith("ly")
            )
        )
        candidates.append((name, named))
    # A first word the text also writes in lower case is a common word ("Server crashed.
    # Restarting the server ..."), whatever follows it.
    common = set(_LOWER_WORD.findall(text)) if candidates else set()
    names = (
        name
        for name, named in candidates
        if name in inside or (named and name.lower() not in common)
    )
    return list(dict.fromkeys(name.lower() for name in names))


@dataclass(frozen=True)
class Entity:
    type: str
    value: str

    @property
    def tag(self) -> str:
        return f"{ENTITY_PREFIX}{self.type}:{self.value}"


def extract_entities(text: str) -> list[Entity]:
    """Structured entities (emails, URLs, UUIDs, IP addresses, dates, phone numbers) and names
    (see ``query_names``: a cheap stand-in for person and place names). Values are
    lower-cased; kinds come in that order, each in order of first appearance."""
    found: dict[tuple[str, str], Entity] = {}
    taken = [match.span() for match in _TIMES_AND_VERSIONS.finditer(text)]
    for kind, pattern in _PATTERNS:
        for match in pattern.finditer(text):
            if kind == "ip" and _overlaps(match.span(), taken):
                continue
            taken.append(match.span())
            value = match.group(0).strip().rstrip(".,;:!?").lower()
            if kind == "email":
                value = value.lstrip(".+-")
            found.setdefault((kind, value), Entity(kind, value))
    for value in _phones(text, taken):
        found.setdefault(("phone", value.lower()), Entity("phone", value.lower()))
    for name in query_names(text):
        found.setdefault(("name", name), Entity("name", name))
    return list(found.values())
