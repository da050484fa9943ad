"""Splitting text into sentences and each sentence into clauses: at a conjunction before a
new subject, a semicolon or a dash, the items of a run-on or an introduction, and each verb
that shares the speaker as its subject ("I live in Jakarta and work at Google")."""

import re

from language.extraction.fragments import is_speakers, speaker_items
from language.extraction.vocabulary import PET_SPECIES

_ABBREVIATIONS = (
    r"(?<!\bMr\.)(?<!\bMrs\.)(?<!\bMs\.)(?<!\bDr\.)(?<!\bSt\.)(?<!\bMt\.)(?<!\bJr\.)"
    r"(?<!^b\.)(?<![\s,:]b\.)"  # "b. 1990-05-12": born
)
# "what if I just... moved to Bali": an ellipsis before a lower-case word goes on.
SENTENCE_END = re.compile(rf"{_ABBREVIATIONS}(?<=[.!?])(?<!\.\.\.)\s+|(?<=\.\.\.)\s+(?![a-z])|\n+")
# Words that may open a new clause before its subject: "..., but these days I love sushi".
_OPENER = (
    r"(?:(?:now|these days|nowadays|today|anyway|honestly|actually|also|then|yes|yeah|no|ok|"
    r"okay|well),?\s+)?"
)
# A new clause starts at a conjunction followed by a new subject ("..., and I just joined
# Figma"), at a semicolon or dash, and before a question tacked onto a statement.
_CONJUNCTION = (
    r"(?:and|but|so|while|whereas|although|though|because|plus)\s++"
    r"(?=" + _OPENER + r"(?:i|i'm|im|i've|i'll|i'd|my|we|we're|we've|he|she|they|his|her|their|our|"
    r"it|if|unless|maybe|perhaps|possibly|probably|hopefully)\b)"
)
# A run-on typed without punctuation: "i live in glasgow i work for the council im a planner"
# breaks before each new "i" that states something, unless a word before it makes it a
# part of what comes first ("i think i'm moving", "if i live").
_RUN_ON = (
    r"(?<!\s)(?<!\u200d)"
    + "".join(
        rf"(?<!\b{word})"
        for word in [
            "think",
            "thought",
            "guess",
            "know",
            "knew",
            "hope",
            "wish",
            "said",
            "say",
            "says",
            "if",
            "when",
            "because",
            "cause",
            "cuz",
            "bc",
            "that",
            "where",
            "and",
            "but",
            "so",
            "as",
            "like",
            "what",
            "since",
            "until",
            "before",
            "after",
            "unless",
            "while",
            "whether",
            "than",
            "suppose",
            "believe",
            "mean",
            "bet",
            "feel",
            "swear",
            "coz",
            "tho",
            "though",
            "how",
            "why",
            "who",
            "or",
            # reported: "tom thinks i'm vegan", "she told me i work too much"
            "thinks",
            "believes",
            "told",
            "tells",
            "assumes",
            "assume",
            "reckons",
            "reckon",
            "claims",
            "knows",
            "heard",
            "realised",
            "realized",
            "pretend",
            "pretended",
            "imagine",
            "dreamt",
            "dreamed",
            "me",
            "you",
            "him",
            "her",
            "them",
            "us",
        ]
    )
    + r"\s++(?=(?:i|i'm|i've|ive|i'll)\s++(?:live|work|am|speak|love|hate|teach|study|moved|"
    r"have|got|just|also|do|adore|enjoy|a|an|from|in|based|vegan|vegetarian|married|engaged|"
    r"currently|now|still|'m|a)\b)"
)
# A dash that sets off a relative's or a pet's name joins, not splits: "3 kids - Sam, Jo and
# Alex", "Freddie - my son - is 10" (one lookbehind a word: each must be of fixed width).
_KIN_DASH = "".join(
    rf"(?<!\b{word})"
    for word in sorted(
        {"son", "sons", "daughter", "daughters", "kids", "children", "boys", "girls", "twins"}
        | {"husband", "wife", "hubby", "partner", "boyfriend", "girlfriend", "bf", "gf"}
        | PET_SPECIES
        | {f"{species}s" for species in PET_SPECIES}
    )
)
_KIN_ASIDE = (
    r"(?!(?:my|our)\s++(?:son|daughter|husband|wife|hubby|partner|boyfriend|girlfriend|bf|gf|"
    + "|".join(sorted(PET_SPECIES, key=len, reverse=True))
    + r")\s*+[-–—,)])"
)
# Whitespace is taken whole (possessive) and only from its first character ((?<!\s)): a run
# of spaces read from each of its positions, and split between two adjacent \s, made this
# cubic in the run's length (1,000 spaces: 34 s).
CLAUSE_BREAK = re.compile(
    # "I'm a paramedic and thinking about nursing one day", "..., hoping to make senior":
    # a wish or a plan added to a statement is a clause of its own.
    r"(?<!\s)(?:\s*+,|\s++and)\s++(?=(?:hoping|thinking|planning|considering|wanting|dreaming)"
    r"\s+(?:to|about|of|on)\b)"
    # "i was in Tokyo last week, back home in Osaka now", "I am now shop manager, before I was
    # cashier": the present and the past in clauses of their own.
    r"|(?<!\s)\s*+,\s++(?=(?:but\s+)?(?:now\s+)?back\s+home\b|before(?:\s+that)?\s+(?:i|we)\s)"
    r"|(?<!\s)\s*+(?:;|,\s++(?:" + _CONJUNCTION + r"|"
    r"(?=(?:do|does|did|should|would|could|can|any|what|where|how|why|is|are)\s)"
    r"|(?=" + _OPENER + r"(?:i|i'm|i've|i'll|i'd|we|we're|we've)\b)))"
    r"|(?<!\s)" + _KIN_DASH + r"\s++(?:[-–—]\s" + _KIN_ASIDE + r"|" + _CONJUNCTION + r")",
    re.IGNORECASE,
)


def sentences(text: str) -> list[str]:
    return [s.strip() for s in SENTENCE_END.split(text) if s and s.strip()]


# "My wife and I split up" is one subject, not two clauses: its "and" is marked unbreakable
# (a zero-width joiner, removed again after the split).
TOGETHER = re.compile(
    r"\b(my\s+[\w-]+(?:\s+(?-i:[A-Z][\w'-]+))?\s+and)(\s+(?:i|me)\b)"
    # "Dara and I got married": a name and the speaker, as a couple.
    r"|\b((?-i:[A-Z][\w'-]+)\s+and)(\s+i\b)(?=(?:'re|'ve|\s+(?:are|have|just|finally|"
    r"recently|officially|both|got|will|'ll))*\s+(?:married|engaged|divorced|separated|split|broke|"
    r"tied|together|moved in|getting|wed|dating)\b)"
    # "kofi and i got married": the same typed in lower case, opening the sentence.
    r"|^((?:me\s+(?:and|n|&)\s+)?[^\W\d_][\w'-]{1,30}\s+(?:and|n|&))(\s+i\b)(?=(?:'re|'ve|\s+(?:are|"
    r"have|just|finally|recently|officially|both|got|will|'ll))*\s+(?:married|engaged|divorced|"
    r"separated|split|broke|tied|together|moved in|getting|wed|dating)\b)",
    re.IGNORECASE,
)
_JOINER = "\u200d"


# "I live in Jakarta and work at Google": a second verb that shares the first one's subject.
# Only forms that cannot have a third-person subject ("works" can) and only with the words
# that make them a statement ("work at", "live in").
SHARED_SUBJECT = re.compile(
    r"(?:,|(?<!\s))\s++(and|but)\s+(?:now\s+|also\s+|currently\s+|then\s+)?(?=(?:work|working)\s+(?:at|for|as)\b"
    r"|(?:live|living)\s+in\b|(?:joined|started at|started working)\b"
    r"|(?:moved|relocated)\s+(?:back\s+)?to\b"
    r"|(?:leave|quit|start|join|move|relocate)\s+(?-i:[A-Z]|to\s|at\s|as\s))",
    re.IGNORECASE,
)
# The subject of a clause with what it carries to a verb that shares it: "I'm", "I don't",
# "I'll", "Back in 2015 I", "If I".
SUBJECT = re.compile(
    r"^(?P<subject>.*?\b(?:i|we)\b(?:'m|'ve|'ll|'d|'re)?"
    r"(?:\s+(?:am|are|have|will|do not|don't|did not|didn't|never|no longer|not|used to))*)\s",
    re.IGNORECASE,
)
_NEGATIONS = re.compile(r"(?<!\s)\s+(?:do not|don't|did not|didn't|never|no longer|not)\b", re.I)


def _shared_subject(clause: str) -> list[str]:
    """ "I live in Jakarta and work at Google" -> its two clauses, the subject repeated. A
    second verb whose subject is someone else ("My brother lives in ... and work...") is
    dropped with it."""
    head, *rest = SHARED_SUBJECT.split(clause)
    if not rest:
        return [clause]
    subject = SUBJECT.match(head)
    if subject is None:
        return [head]
    found = [head]
    for conjunction, tail in zip(rest[::2], rest[1::2], strict=True):
        shared = subject.group("subject")
        if conjunction.lower() == "but":
            # "I'm not from Brazil but live in Lima": "but" turns the negation around.
            shared = _NEGATIONS.sub("", shared)
        found.append(f"{shared} {tail}")
    return found


RUN_ON_BREAK = re.compile(_RUN_ON, re.IGNORECASE)
# A run-on is split only when it opens as the speaker's own statement: "apparently I work
# at Oracle" or "in a parallel universe I speak Mandarin" keep their lead-in.
_SPEAKER_OPENS = re.compile(
    r"^(?:(?:hey|hi|hello|hiya|so|ok|okay|well|and|also|update|btw)[,!]?\s++)?(?:i|i'm|i've|im)\b",
    re.IGNORECASE,
)


def _run_on(clause: str) -> list[str]:
    """ "i live in glasgow i work for the council im a planner": a statement of the
    speaker's each time a new "i" states something."""
    if not _SPEAKER_OPENS.match(clause):
        return [clause]
    return [piece for piece in RUN_ON_BREAK.split(clause) if piece]


def clauses(sentence: str, *, intro: bool = False) -> list[str]:
    """The clauses of one sentence; a question mark stays with the last one. The items of a
    run-on or an introduction ("I'm a nurse in Cork, married to Declan") are clauses of
    their own, the speaker put back (``intro``: the message introduces its speaker)."""
    marked = TOGETHER.sub(
        lambda m: (
            f"{m.group(1) or m.group(3) or m.group(5)}{_JOINER}"
            f"{m.group(2) or m.group(4) or m.group(6)}"
        ),
        sentence,
    )
    parts = (
        c.replace(_JOINER, "").strip(" ,")
        for part in CLAUSE_BREAK.split(marked)
        if part
        for c in _run_on(part)
    )
    found: list[str] = []
    speaker = False
    for c in parts:
        for shared in _shared_subject(c) if c else []:
            items = speaker_items(shared, intro=intro and not found, speaker=speaker)
            found.extend(items)
            speaker = is_speakers(items[-1])
    return found
