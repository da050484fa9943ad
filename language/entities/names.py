"""Names: capitalised words that name someone or something (query_names), where they are
(name_spans), and what kind of thing each one is, where the words around it say so
(name_type).
"""

import re

from language.moments import MONTHS, WEEKDAYS

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
    Morning Afternoon Evening Night Weekend Weekends Week Weeks Month Months Year Years Day Days
    Everybody People Folks Guys Family Kids Friends Parents
    University College Institute Foundation Company Corporation Inc Ltd Corp Street Avenue
"""
_NOT_NAMES = frozenset((*_NOT_NAMES_TEXT.split(), *MONTHS, *WEEKDAYS))
_NAME = re.compile(r"\b[A-Z][a-z]+(?:[-'’][A-Z]?[a-z]+)*\b")
_POSSESSIVE = re.compile(r"['’]s$")
# "Don't", "You're", "We'll": contractions, never names.
_CONTRACTION = re.compile(r"(?:n['’]t|['’](?:re|ve|ll|d|m))$")
# Before a capitalised word, these end a sentence or start a new segment: the word after
# them is capitalised whatever it is. A colon, a quote or a bracket ("[10:30] ") counts too.
_OPENERS = frozenset(".!?…:;\n\"'“”‘’([{]>")
_BULLET = re.compile(r"\A\s*(?:[-*•+>]|\d{1,3}[.)])")
# A full stop after these is an abbreviation, not a sentence's end ("Dr. Lee", "J. Smith").
_ABBREVIATION = re.compile(r"(?:\b(?:Mr|Mrs|Ms|Dr|Prof|St|Mt|Jr|Sr|Sen|Gen|Capt)|\b[A-Z])\.$")
# After a sentence-initial word (and any capitalised words right after it: "Dmitri Ivanov
# said"), what makes it a person or place: a verb, as statements about people start
# ("Ann likes tea", "Bob adopted a dog", "Dmitri said"; a word ending in -s or -ed, or a
# common irregular or auxiliary verb, maybe after an adverb); "and <Name>" ("Ana and Bo");
# or a colon that makes it a speaker ("Ana: see you at 5", "Ana: 5 years!") when words
# follow: a label's value ("Phones: (415) ...", "Budget: 5k") is rarely a sentence.
_NAME_CONTEXT = re.compile(
    r"(?<!\s)\s+(?:(?:[a-z]+ly|also|always|never|often|just|still|now|then|once|even|already|"
    r"sometimes)\s+)?"
    r"(?:[a-z]{2,}(?:s|ed)(?<!ss)|said|told|thought|felt|met|went|left|got|bought|wrote|grew|"
    r"ran|took|made|came|became|gave|kept|knew|saw|won|lost|spent|paid|sold|taught|drove|"
    r"flew|began|found|brought|is|was|has|had|will|would|can|could|should|must|might|did)\b"
    r"|(?<!\s)\s+(?:and|or)\s+[A-Z]"
    r"|:\s+[\"'“‘(]?(?:[^\W\d_]|\d+\s+[a-z])"
)
# A gerund ("Painting") or a plural of a common shape opening a sentence: a vowel and d, k,
# p, t or g before the -s ("Kids", "Cats", "Books"), or -ies/-ees/-oos ("Movies"). Names
# that end in -s rarely end so ("James", "Chris", "Carlos", "Ines").
_COMMON_OPENER = re.compile(r"(?:[a-z]{3}ing|[aeiou](?:d|k|p|t|g)s|(?:ie|ee|oo)s)$")
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


def name_spans(text: str) -> list[tuple[str, int, int]]:
    """Every capitalised word taken as a name (see ``query_names`` for the rules), as
    ``(word, start, end)`` in order of appearance, a possessive's "'s" left out."""
    matches = list(_NAME.finditer(text))
    inside: set[str] = set()
    candidates: list[tuple[str, int, bool]] = []
    for i, match in enumerate(matches):
        word = match.group(0)
        if _CONTRACTION.search(word):
            continue
        name = _POSSESSIVE.sub("", word)
        if name in _NOT_NAMES:
            continue
        if not _sentence_initial(text, match.start()):
            inside.add(name)
            candidates.append((name, match.start(), True))
            continue
        # A gerund or a plural opens sentences about activities and things ("Painting
        # relaxes me", "Kids loved it"), rarely about someone: a name only when the text
        # also capitalises it inside a sentence.
        if _COMMON_OPENER.search(name):
            candidates.append((name, match.start(), False))
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
        candidates.append((name, match.start(), named))
    # A first word the text also writes in lower case is a common word ("Server crashed.
    # Restarting the server ..."), whatever follows it.
    common = set(_LOWER_WORD.findall(text)) if candidates else set()
    return [
        (name, start, start + len(name))
        for name, start, named in candidates
        if name in inside or (named and name.lower() not in common)
    ]


def query_names(text: str) -> list[str]:
    """Capitalised words that name someone or something, lower-cased, without repeats, in
    order of first appearance. Inside a sentence a capitalised word is taken as a name; at a
    sentence's start (or after a colon, a quote, a newline, a bullet) only when the same word
    is also capitalised inside a sentence somewhere in the text, or when a name context
    follows it ("Ana moved", "Dmitri said", "Ana's", "Ana and Bo", "Ana: hi", "Ana, look")
    and the text does not also write it in lower case; a gerund or a plural there
    ("Painting", "Kids") only in the first case. Openers, function words, common labels and
    imperatives are never names."""
    return list(dict.fromkeys(name.lower() for name, _, _ in name_spans(text)))


# What the words around a name say it is. Only cues that rarely mislead: a word left
# without one stays a plain ``name`` (memory.models.EntityType.NAME).
_PERSON_BEFORE = re.compile(
    r"(?:\b(?:Mr|Mrs|Ms|Mx|Dr|Prof|Sir|Dame|Aunt|Uncle|Hi|Hey|Hello|Dear|Thanks|Thank you)\.?,?"
    r"|\b(?:my|our|his|her|their|your)\s+(?:best\s+|old\s+|new\s+|little\s+|big\s+)?"
    r"(?:friend|sister|brother|mom|mum|mother|dad|father|wife|husband|son|daughter|partner|"
    r"boss|colleague|coworker|co-worker|manager|boyfriend|girlfriend|fiancée?|cousin|aunt|"
    r"uncle|niece|nephew|neighbou?r|grandma|grandpa|grandmother|grandfather|kid|child|"
    r"roommate|teacher|doctor|therapist|mentor)s?,?"
    # Whom one met, married, hugged or texted is someone ("met John Carter"); "Meet Priya"
    # is left untyped, as a plan or a label may read so.
    r"|\b(?:met|married|hugged|kissed|texted)(?:\s+up\s+with)?)\s+$",
    re.IGNORECASE,
)
_PERSON_AFTER = re.compile(
    r"\A(?:['’]s)?\s+(?:said|says|told|tells|asked|asks|replied|thinks|thought|feels|felt|"
    r"wants|wanted|loves|loved|hates|hated)\b"
    r"|\A['’]s\s+(?:mom|mum|mother|dad|father|wife|husband|sister|brother|son|daughter|kids?|"
    r"children|birthday|boyfriend|girlfriend|partner|family|friends?)\b"
    # Someone who met, married, hugged or texted someone: "Maria Lopez met John Carter"
    # ("Acme met its targets" has no one after it).
    r"|\A\s+(?:met|married|hugged|kissed|texted)\s+(?:up\s+with\s+)?"
    r"(?:[A-Z]|(?:him|her|them|me|us|my|his|their)\b)"
)
_ORGANISATION_BEFORE = re.compile(
    r"\b(?:works?|worked|working|job|jobs|intern(?:ed|ing)?|employed|hired|internship|"
    r"position|role|career)\s+(?:at|for|by|with)\s+$",
    re.IGNORECASE,
)
_ORGANISATION_AFTER = re.compile(
    r"\A\s+(?:Inc|Ltd|LLC|Corp|Corporation|GmbH|AG|SA|PLC|Co|Company|University|College|"
    r"Institute|Bank|Foundation|Group|Labs|Agency|Hospital|Airlines)\b"
)
_PLACE_BEFORE = re.compile(
    r"\b(?:in|near|(?:moved?|moving|flew|fly|flying|trip|travel(?:l?ed|l?ing)?|relocated?|"
    r"relocating|drove|driving|road\s+trip)\s+to|visit(?:ed|ing|s)?|back\s+from|"
    r"(?:born|lives?|living|lived|based|stayed?|staying)\s+in|"
    r"(?:am|is|are|was|were|comes?|came|originally)\s+from)\s+$",
    re.IGNORECASE,
)
_PLACE_AFTER = re.compile(
    r"\A\s+(?:City|Street|St|Avenue|Ave|Road|Rd|Beach|Island|Islands|County|Valley|Lake|River|"
    r"Mountains?|Park|Bay|Airport|Station)\b"
)
_PLACE_BEFORE_WORD = re.compile(r"\b(?:Lake|Mount|Mt|Cape|Port|Saint|San|Santa)\s+$")
_PRODUCT_BEFORE = re.compile(
    r"(?:\b(?:a|an|my|our|his|her|their|the)\s+new\s+"
    r"|\b(?:bought|buy|buying|ordered|order|got|use|using|uses|used|installed|downloaded|"
    r"switched\s+to)\s+(?:a|an|the|my|our|new)\s+(?:new\s+)?)$",
    re.IGNORECASE,
)
_PRODUCT_AFTER = re.compile(r"\A\s+(?:\d{1,4}[a-z]?|app|phone|laptop|console)\b(?![.,]?\d)")


def name_type(text: str, start: int, end: int) -> str:
    """What the name at ``text[start:end]`` is, as far as the words right around it say:
    person ("my friend Ana", "Dr. Lee", "Ana said", "Ana's mom"), organisation ("works at
    Acme", "Acme Inc", "Stanford University"), place ("moved to Lisbon", "in Porto",
    "Lisbon City"), product ("bought a Tesla", "Pixel 8", "the Duolingo app"), else
    ``name``. Checked in that order; the first cue found decides."""
    before = text[max(0, start - 40) : start]
    after = text[end : end + 40]
    if _PERSON_BEFORE.search(before) or _PERSON_AFTER.match(after):
        return "person"
    if _ORGANISATION_BEFORE.search(before) or _ORGANISATION_AFTER.match(after):
        return "organisation"
    if _PLACE_BEFORE_WORD.search(before) or _PLACE_AFTER.match(after):
        return "place"
    if _PRODUCT_BEFORE.search(before) or _PRODUCT_AFTER.match(after):
        return "product"
    if _PLACE_BEFORE.search(before):
        return "place"
    return "name"
