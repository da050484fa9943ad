"""Introductions and run-ons: a message that lists what the speaker is without repeating
"I" ("hi, I'm a nurse in Cork, married to Declan, one daughter", "About me: 34, accountant,
Porto, speak Portuguese and English", "born 2 Feb 1993, in Kumasi now, work for MTN",
"Tomás here, software tester at Banco Sabadell, living in Alicante").

Each item of such a list (between commas, "|", " + ", " / ") that opens like a statement of
its own (a verb the speaker left the subject of, a job, a place, a form's label) becomes a
clause with the speaker put back ("work for MTN" -> "I work for MTN", "physio at Beacon
Hospital" -> "I'm a physio at Beacon Hospital"); the patterns then read it as any other.
An item only takes the speaker as subject when what comes before it in the sentence is the
speaker's: an item after "my brother Tom, ..." is his."""

import re

from language.extraction.vocabulary import DIETS, JOB_WORDS, PET_SPECIES
from language.places import city, country

# A message that opens as an introduction: its bare items are the speaker's from its start.
INTRO = re.compile(
    r"^[^\w]{0,4}(?:(?:hi+|hey+|hello+|hiya|heya|yo|howdy|greetings|good\s+(?:morning|evening))\b"
    r"|(?:quick\s+|short\s+|little\s+)?intro(?:duction)?\s*:|(?:a\s+bit\s+)?about\s+me\s*:"
    r"|(?:my\s+|short\s+|quick\s+)?bio\s*:"
    r"|me\s*:|my\s+details\b|(?:for\s+the\s+)?form\s*:|this\s+is\s+me\b|my\s+name\s+is\b"
    r"|i'm\s+(?-i:[A-Z])[\w-]+\s*[,.!]|(?-i:[A-Z])[\w-]+\s+here\b"
    # "28, vegetarian, cat dad (Pistachio), live in Glasgow": an age opens a list about me.
    r"|\d{2}\s*(?:yo|y/o|yrs?|years?\s+old|[fm])?\s*[,|/]\s*(?=\S))",
    re.IGNORECASE,
)
# What closes the introduction's head before its list: "About me:", "Farida here", "Im Kemal,".
_HEAD = re.compile(
    r"^(?:(?:quick\s+|short\s+|little\s+)?intro(?:duction)?|(?:a\s+bit\s+)?about\s+me|me"
    r"|(?:here\s+are\s+)?my\s+details(?:\s+for\s+[\w\s]{1,30}?)?|(?:my\s+|short\s+|quick\s+)?bio"
    r"|(?:for\s+)?(?:the|my|this|a)\s+(?:[\w-]+\s+){0,2}?form)\s*:\s*",
    re.IGNORECASE,
)
# The separators of a list of items: a comma, a bar, a plus, a slash between spaces.
_SEPARATOR = re.compile(r"(?<!\s)\s*+(?:,|\s\|\s|\s\+\s|\s/\s)\s*+", re.IGNORECASE)
# An item that speaks of someone else: "my sister, a nurse in Cork" is hers.
_OTHERS = re.compile(
    r"^(?:and\s+)?(?:(?:my|his|her|their|our|your)\s+(?!(?:name|details|info|contact|email|"
    r"e-mail|phone|number|mobile|cell|birthday|bday|dob|job|title|role|work|signature|"
    r"own|new|current)\b)\w+|he|she|they|he's|she's|they're|you|you're)\b",
    re.IGNORECASE,
)
_SPEAKER = re.compile(r"\b(?:i|i'm|i've|i'd|i'll|me|my|im)\b", re.IGNORECASE)


def about_someone_else(items: str) -> bool:
    """Whether a list of items opens on someone else: "my brother Karim, a dentist in
    Lyon, married to Sara" is all his."""
    return bool(_OTHERS.match(items.strip()))


# Item openings and the subject they take back ("work for MTN" -> "I work for MTN").
_VERB_ITEMS = [
    (
        re.compile(
            r"^(?:also\s+|now\s+|currently\s+)?(?=(?:work|live|speak|love|enjoy|hate|"
            r"teach|moved|relocated|joined|started|speak)\b)",
            re.I,
        ),
        "I ",
    ),
    (
        re.compile(
            r"^(?:also\s+|now\s+|currently\s+)?(?=(?:working|living|speaking|based|"
            r"settled|married|engaged|fluent|originally|from)\b)",
            re.I,
        ),
        "I'm ",
    ),
    (re.compile(r"^(?=born\b|promoted\b)", re.I), "I was "),
    (re.compile(r"^(?=been\s)", re.I), "I've "),
    (re.compile(r"^(?=going\s+(?:" + "|".join(sorted(DIETS)) + r")\b)", re.I), "I'm "),
    # "went fully vegan this year", "gone vegetarian"
    (
        re.compile(
            r"^(?=(?:went|gone|turned)\s+(?:\w+\s+)?(?:" + "|".join(sorted(DIETS)) + r")\b)", re.I
        ),
        "I ",
    ),
]
# A form's label: the item is read as it is ("phone +353 ...", "dob 3/4/90").
_LABEL = re.compile(
    r"^(?:my\s+)?(?:e-?mail|mail|phone|tel|telephone|mob|mobile|cell|whatsapp|number|contact|"
    r"birthday|bday|dob|date\s+of\s+birth)\b|^(?:d\.o\.b\.?|b\.)\s",
    re.IGNORECASE,
)
# "in Kumasi now", "Dublin based", "based in Leeds": where the speaker lives.
_IN_PLACE = re.compile(
    r"^(?:now\s+|currently\s+)?in\s+(?P<place>[\w' .-]{2,60}?)"
    r"(?:\s+(?:now|these days|nowadays|for now|for good))?\s*$",
    re.I,
)
_PLACE_BASED = re.compile(r"^(?P<place>[\w' .-]{2,60}?)[- ]based$", re.IGNORECASE)
_ITEM_MAX_CHARS = 200
# A diet word before a noun is a thing, not the speaker's diet: "vegan cheese", "keto bread".
_DIET_NOUN = re.compile(
    r"(?<!\s)\s++(?!(?:free|based|now|since|for|these|again|too|mostly|and|btw|lol|tbh|but|bc|"
    r"because|cos|cuz|due|after|ever|anyway|technically|actually|"
    r"though|tho|pretty|strictly|except|apart|mainly|ish|at|in|on|x+)\b)[^\W\d_]",
    re.IGNORECASE,
)
_BASED_JOB = re.compile(r"^(?P<place>[\w' .]{2,40}?)-based\s++(?P<job>\S.{1,80})$", re.IGNORECASE)
_ADVERBS = re.compile(r"(?:(?:still|now|currently|also|just|officially)\s+)+", re.IGNORECASE)
# "bf Cian", "wife Ana": a relation and a name, the speaker's.
_RELATION = re.compile(
    r"^(?:bf|gf|boyfriend|girlfriend|husband|wife|hubby|wifey|partner|fianc[ée]e?)\s+"
    r"(?-i:[A-Z])[\w'-]+$",
    re.IGNORECASE,
)
# In a list under "About me:" a bio's third person is the speaker: "hates mornings".
_BASE_FORMS = {
    "hates": "hate",
    "loves": "love",
    "enjoys": "enjoy",
    "works": "work",
    "lives": "live",
    "speaks": "speak",
    "teaches": "teach",
}
_THIRD_PERSON = re.compile(r"^(" + "|".join(_BASE_FORMS) + r")\b", re.IGNORECASE)
# "a dog called Rolo", "1 cat", "two kids": what the speaker has.
_HAVE = re.compile(
    r"^(?:an?|one|two|three|four|1|2|3|4)\s+(?:[\w-]+\s+)?(?:"
    + "|".join(sorted(PET_SPECIES, key=len, reverse=True))
    + r"|kids?|sons?|daughters?|children|child|boys?|girls?|dogs|cats)\b",
    re.IGNORECASE,
)
_WORDS = re.compile(r"[\w'-]+")
_VERB = re.compile(r"'s\b|\b(?:is|are|was|were|has|have|had|be|been)\b", re.IGNORECASE)


def _place(name: str, *, own_name: bool = False) -> bool:
    """A place the gazetteer knows; ``own_name``: a city by its own name only (a bare item
    "Google" is no city, though GeoNames lists it among Topeka's names)."""
    name = name.strip()
    found = city(name) if name else None
    if found is not None and own_name and found.name.casefold() != name.casefold():
        found = None
    return bool(name) and (found is not None or country(name) is not None)


def _job(item: str) -> bool:
    """An item that is a job: "physio at Beacon Hospital", "a vet in dunedin", "lab tech"."""
    head = re.split(r"(?<!\s)\s+(?:at|@|for|with|in|from|of)\s|(?<!\s)\s*\(", item, maxsplit=1)[0]
    if _VERB.search(head):
        return False  # "Tom's a nurse": a sentence about someone, not an item
    words = _WORDS.findall(head)
    if not words or len(words) > 5:
        return False
    return words[-1].lower() in JOB_WORDS or (
        len(words) >= 2 and words[-1].lower() in {"tech", "sister", "rep", "dev", "eng", "admin"}
    )


def _with_speaker(item: str, *, bare: bool, dropped: bool = False) -> str | None:
    """``item`` as a clause of the speaker's, or None when it opens as no statement.
    ``bare``: a bare place or job may stand alone as one ("accountant, Porto");
    ``dropped``: only a verb or a form's label may open it (a message's first words)."""
    if len(item) > _ITEM_MAX_CHARS:
        return None  # an item of a list is a few words, not a paragraph
    for opening, subject in _VERB_ITEMS:
        if opening.match(item):
            return subject + item
    if _LABEL.match(item):
        return item
    first = _WORDS.match(item)
    if (
        first
        and first.group(0).lower() in DIETS | {"gluten", "dairy", "lactose", "plant"}
        and not _DIET_NOUN.match(item, first.end())
    ):
        return "I'm " + item  # "vegetarian", "gluten-free bc of coeliac"
    if dropped:
        return None
    if _HAVE.match(item):
        return "I have " + item  # "2 kids", "a dog called Rolo"
    if _RELATION.match(item):
        return "my " + item  # "bf Cian", "husband Omar"
    based = _PLACE_BASED.match(item)
    if based and _place(based.group("place")):
        return f"I'm based in {based.group('place')}"
    # "Lisbon-based UX designer": a place and a job.
    job_based = _BASED_JOB.match(item)
    if job_based and _place(job_based.group("place")) and _job(job_based.group("job")):
        job = job_based.group("job")
        article = "" if re.match(r"(?:an?|the)\s", job, re.I) else "a "
        return f"I'm {article}{job} based in {job_based.group('place')}"
    where = _IN_PLACE.match(item)
    if where and _place(where.group("place")):
        return f"I'm in {where.group('place')} now"
    if _job(item):
        # "still an electrical engineer" -> "I'm still an electrical engineer"
        adverb = _ADVERBS.match(item)
        cut = adverb.end() if adverb else 0
        head, rest = item[:cut], item[cut:]
        article = "" if re.match(r"(?:an?|the)\s", rest, re.I) else "a "
        return f"I'm {head}{article}{rest}"
    if bare and _place(item, own_name=True):
        return f"I'm based in {item}"
    return None


def speaker_items(clause: str, *, intro: bool, speaker: bool) -> list[str]:
    """The clauses of a run-on ``clause``: its first part, then each item that opens as a
    statement, with the speaker put back; an item that opens as none stays with the one
    before it ("speak Portuguese, English and some French"). ``intro``: the message is an
    introduction, so bare items at its start are the speaker's; ``speaker``: the clause
    before this one was the speaker's."""
    head = _HEAD.match(clause)
    listing = bool(head)
    text = clause[head.end() :] if head else clause
    parts = _SEPARATOR.split(text)
    found: list[str] = []
    own = listing or speaker or intro
    for index, part in enumerate(parts):
        part = part.strip()
        if not part:
            continue
        rewritten = None
        if _OTHERS.match(part):
            own = False
        elif index == 0 and not listing:
            if _SPEAKER.search(part):
                own = True  # "I live in Izmir, work as ...": the speaker's, as it stands
            else:
                # A message opening without its subject is the speaker's ("born 2 Feb 1993,
                # in Kumasi now"); a bare job or place only in an introduction.
                # After a clause of the speaker's ("I'm Malik — data analyst at Shopify")
                # a bare job or place goes on about them.
                rewritten = _with_speaker(part, bare=intro, dropped=not (intro or speaker))
                own = own or rewritten is not None
        elif own:
            if listing:
                part = _THIRD_PERSON.sub(lambda m: _BASE_FORMS[m.group(1).lower()], part)
            rewritten = _with_speaker(part, bare=listing or intro)
        if rewritten is not None:
            # Text typed without capitals stays so: its names are read leniently.
            if not re.search(r"[A-Z]", clause):
                rewritten = rewritten.lower()
            found.append(rewritten)
        elif found and index:
            found[-1] = f"{found[-1]}, {part}"
        else:
            found.append(part)
    return found or [clause]


def is_speakers(clause: str) -> bool:
    """Whether items after ``clause`` may be the speaker's: it speaks of the speaker."""
    return bool(_SPEAKER.search(clause)) and not _OTHERS.match(clause)


# A form the speaker fills in, one field a line ("City: Leeds", "job - nurse", "Languages:
# German, English"), and what each field's value says as a sentence of the speaker's.
_FORM_FIELDS: list[tuple[str, str]] = [
    (
        r"city|town|location|based(?:\s+in)?|lives?(?:\s+in)?|home(?:\s+town)?|where",
        "I live in {value}",
    ),
    (r"country", "I live in {value}"),
    (
        r"job|job\s+title|title|role|position|occupation|profession|what\s+i\s+do|i\s+am\s+a",
        "I'm a {value}",
    ),
    (
        r"employer|company|works?(?:\s+at|\s+for)?|workplace|organi[sz]ation|org",
        "I work at {value}",
    ),
    (r"languages?|speaks?|spoken\s+languages?", "I speak {value}"),
    (r"diet|dietary(?:\s+(?:requirements?|needs|restrictions?))?|food", "I'm {value}"),
    (r"e-?mail|mail", "my email is {value}"),
    (r"phone|mobile|mob|cell|tel|telephone|whatsapp|number", "my number is {value}"),
    (r"birthday|bday|b-day|dob|d\.o\.b\.?|date\s+of\s+birth|born", "my birthday is {value}"),
    (r"likes?|hobbies|hobby|interests?|loves?|into", "I love {value}"),
    (r"dislikes?|hates?|pet\s+peeves?", "I hate {value}"),
    (r"skills?|good\s+at", "I'm good at {value}"),
    (
        r"wife|husband|spouse|partner|boyfriend|girlfriend|bf|gf|fianc[ée]e?|son|daughter|child|kid|"
        r"dog|cat",
        "my {label} is called {value}",
    ),
    (r"kids|children|sons|daughters|dogs|cats", "my {label} are called {value}"),
]
_FORM_LINE = re.compile(
    r"^[ \t]{0,8}(?:[-*•·][ \t]{1,4})?(?:my[ \t]{1,3})?(?P<label>[\w. -]{1,30}?)[ \t]{0,3}"
    r"(?::|[ \t]-[ \t]|=)[ \t]{0,8}(?P<value>\S.{0,200})$",
    re.IGNORECASE,
)
# One pattern for every label, a group a field (a pattern per field is made at run time).
_FORM_LABEL = re.compile(
    "^(?:"
    + "|".join(f"(?P<f{index}>{label})" for index, (label, _) in enumerate(_FORM_FIELDS))
    + ")$",
    re.IGNORECASE,
)
# A bullet's item: "- based in Lyon", "* work at Sanofi".
_BULLET = re.compile(r"^[ \t]{0,8}[-*•·][ \t]{1,4}(?P<item>\S.{0,200})$")
# The line before a form that makes it someone else's: "my brother's details:", "his info".
_ANOTHERS_FORM = re.compile(
    r"\b(?:his|her|their|your|(?!my\b)\w+'s|s')\s+(?:[\w-]+\s+)?(?:details|info|profile|form|bio|"
    r"cv|resume|answers?|application|sig|signature|card|contact|footer)\b"
    r"|\bfor\s+(?:his|her|their)\b|\bfor\s+my\s+(?:mum|mom|mother|dad|father|brother|sister|son|"
    r"daughter|wife|husband|partner|friend|boss|colleague|gran|grandma|grandad|nan|aunt|uncle|"
    r"cousin|kids?|child|boyfriend|girlfriend|bf|gf|client|customer|neighbou?r)\b|\b(?:he|she|they|him|them|who|who's)\b"
    r"|\b(?:wrote|writes|says|said|sent|forwarded|received|got\s+this|from\s+(?:a|an|the|my)\s+\w+)\b",
    re.IGNORECASE,
)
# How much of the message before a form is read for whose it is.
_BEFORE_FORM_CHARS = 300
_NAME_LABEL = re.compile(r"^(?:name|full\s+name|first\s+name|surname|age)$", re.IGNORECASE)


def _form_sentence(line: str) -> str | None:
    """A form's line as a sentence of the speaker's, or None when it is no field."""
    match = _FORM_LINE.match(line)
    if match:
        label = re.sub(r"\s+", " ", match.group("label").strip())
        value = match.group("value").strip().rstrip(".")
        if _NAME_LABEL.match(label):
            return ""
        field = _FORM_LABEL.match(label)
        if field and field.lastgroup:
            sentence = _FORM_FIELDS[int(field.lastgroup[1:])][1]
            return sentence.format(label=label.lower(), value=value) + "."
    bullet = _BULLET.match(line)
    if bullet:
        item = bullet.group("item").strip()
        said = _with_speaker(item, bare=True)
        return (said or item).rstrip(".") + "."
    return None


# "Name: Tom (my flatmate)": the form of someone the speaker knows.
_SOMEONE_NAMED = re.compile(
    r"^[ \t]{0,8}(?:[-*•·][ \t]{1,4})?(?:full[ \t])?name[ \t]{0,3}(?::|[ \t]-[ \t]|=)[^\n]{0,80}?"
    r"\b(?:my|his|her|their)[ \t]",
    re.IGNORECASE,
)


def _speakers_list(block: list[str], before: str) -> bool:
    """Whether a block of lines is a list about the speaker: a form's labelled fields, or
    bullets under an introduction's head ("About me:") or with two items or more that
    open as the speaker's statements ("- work at Sanofi"), not a shopping list."""
    if any(_FORM_LINE.match(line) and not _BULLET.match(line) for line in block):
        return True
    head = before.strip().rsplit("\n", 1)[-1] if before.strip() else ""
    if head and (_HEAD.match(head) or INTRO.match(head)):
        return True
    stated = 0
    for line in block:
        bullet = _BULLET.match(line)
        if bullet and _with_speaker(bullet.group("item").strip(), bare=False, dropped=True):
            stated += 1
    return stated >= 2


def forms_read(text: str) -> str:
    """``text`` with the lines of a form or a bullet list the speaker fills in about
    themselves ("City: Leeds", "- work at Sanofi") put as sentences of theirs ("I live in
    Leeds.", "I work at Sanofi."); a block of two lines or more only, and none after a line
    that makes it someone else's ("my brother's details:")."""
    if "\n" not in text:
        return text
    lines = text.split("\n")
    read = [_form_sentence(line) for line in lines]
    out = list(lines)
    index = 0
    while index < len(lines):
        if read[index] is None:
            index += 1
            continue
        end = index
        while end < len(lines) and read[end] is not None:
            end += 1
        before = "\n".join(lines[:index])[-_BEFORE_FORM_CHARS:]
        block = lines[index:end]
        fields = sum(1 for r in read[index:end] if r)
        if (
            end - index >= 2
            and fields
            and not _ANOTHERS_FORM.search(before)
            and not any(_SOMEONE_NAMED.match(line) for line in block)
            and _speakers_list(block, before)
        ):
            for at in range(index, end):
                out[at] = read[at] or ""
        index = end
    return "\n".join(out)
