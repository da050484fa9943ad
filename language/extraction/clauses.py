"""Splitting text into clauses, and the traps: clauses whose words must change no fact."""

import re

from language.extraction.fragments import is_speakers, speaker_items
from language.extraction.vocabulary import PET_SPECIES
from language.moments import MONTH_STEMS, WEEKDAY_STEMS

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

# A clause that only sets the scene for the next one ("Back in 2015, I joined IBM", "If I
# get the job, I'll move"): the next clause is judged for traps together with it.
SUBORDINATE = re.compile(
    r"^(?:if|unless|when|whenever|once|back|before|after|since|because|although|though|"
    r"while|even if|suppose|supposing|in case|in \d{4}|\w+ years ago|years ago|as a|"
    r"growing up|in college|in high school|until|assuming|imagine)\b",
    re.IGNORECASE,
)
QUESTION_START = re.compile(
    # Not "can't stand reality TV": a statement with its "I" left out.
    r"^(?:so\s+|and\s+|but\s+|hey\s+)?(?:do|does|did|should|shall|would|could|can(?!['’]t)|is|are|am|"
    r"was|were|will|won't|what|where|when|why|how|who|which|whom|any idea|any tips|"
    r"any advice|have you|has|have)\b",
    re.IGNORECASE,
)
HYPOTHETICAL = re.compile(
    # "would"/"could" opening a remark after a comma, its "I" left out, is no wish: "I adore
    # old bookshops, could spend hours in one".
    # "call me on +81 ... if anything", "if needed": a condition on the call, not the fact.
    r"\b(?:if(?!\s+(?:anything|needed|necessary|urgent|need\s+be|you\s+need(?:\s+\w+)?)\s*[.!]*$)|"
    # "can't stand mayonnaise, never could": what never could be is no wish.
    r"unless|suppose|supposing|imagine|imagining|what if|in case|"
    r"(?<!,\s)(?<!never\s)(?<!always\s)(?:would|could)|"
    r"i'd|we'd|wish|wished|dream|dreaming|daydream|fantasi[sz]e|pretend|assuming|"
    r"parallel universe|alternate universe|another life|other life|ideal world|perfect world|"
    # "say I went vegan, would I ...": a supposition opening the message.
    r"^say(?=,?\s+(?:i|we)\b)|"
    r"in theory|hypothetically)\b",
    re.IGNORECASE,
)
PLAN = re.compile(
    r"\b(?:might|may|maybe|perhaps|possibly|probably|want to|wanna|wants to|hope|hoping|"
    r"plan|plans|planning|thinking of|thinking about|considering|consider|intend|intending|"
    r"should|ought to|someday|some day|one day|eventually|apply|applying|applied|"
    r"interview|interviewing|looking for|looking into|trying to get|tempted|"
    r"can't wait to|need to|have to|gotta|let's|lets|"
    r"i think|i guess|i suppose|i believe|like to think|not sure|pretty sure)\b",
    re.IGNORECASE,
)
# Future forms that announce a change; without a date they are only plans.
FUTURE = re.compile(
    r"\b(?:will|'ll|going to|gonna|i'm moving|i am moving|we're moving|i'm relocating|"
    r"i'm joining|i am joining|i'm starting|i am starting|i start|i join|starting|"
    r"i'm marrying|i am marrying|getting married|i'm quitting|i am quitting|i'm retiring|"
    r"i am retiring|i'm resigning|i'm switching|i'm transferring|i'm becoming|i move|we move|"
    r"i relocate|i leave|"
    rf"from\s+(?:next|tomorrow|today|now|on|\d|{MONTH_STEMS}|{WEEKDAY_STEMS}))\b",
    re.IGNORECASE,
)
# A verb in the past tense: a date in such a clause says when something happened, not when a
# change takes effect ("I moved to Oslo on June 20" is no future move).
PAST_VERB = re.compile(
    r"\b(?:moved|relocated|joined|started|began|became|got|was|were|had|did|took|left|quit|"
    r"went|came|accepted|landed|signed|switched|transferred|resigned|adopted|finished|ended|"
    r"spent|lived|worked)\b",
    re.IGNORECASE,
)
REPORTED = re.compile(
    # Not "a dog, Bruno, who thinks he's a kid": a relative pronoun reports nothing.
    r"\b(?<!')(?!(?:i|who|which|that)\b)(?:\w+)\s+(?:said|says|say|told|tells|thinks|think|thought|claims|claim|"
    r"claimed|reckons|reckon|believes|believed|mentioned|insists|insist|insisted|"
    r"assumes|assume|assumed|heard|swears|swear|keeps?\s+(?:saying|telling|asking)|"
    r"(?:is|are|'s|'re|seems?|seemed)\s+(?:convinced|sure)|joked|jokes|guessed|guesses)\b"
    r"|\b(?!i')\w+'s\s+(?:convinced|sure|adamant)\b"
    r"|\baccording to\b|\bapparently\b|\brumou?r\b|\bsupposedly\b|\bor so\b|"
    r"\ballegedly\b|\bword is\b",
    re.IGNORECASE,
)
# An attribution after the words it reports: "I live in Kobe, or so my friends claim",
# "..., my boss says", "..., according to Tom".
REPORTED_AFTER = re.compile(
    r"(?:,|\bor so\b|\bat least\b)\s*(?:that's\s+what\s+)?(?!(?:as|like)\s+i\s|i\s)"
    r"(?:\w+(?:'s)?\s+){1,3}?"
    r"(?:says|said|claims|claimed|claim|say|thinks|think|reckons|reckon|swears|insists|told me)"
    r"\s*[.!]*$|\baccording to\b[^.!?]*[.!]*$|,\s*apparently\s*[.!]*$",
    re.IGNORECASE,
)
PAST = re.compile(
    # "back in 2015", not "I'm back in Osaka"
    r"\b(?:(?<!'m )(?<!am )(?<!'re )back in|back then|back when|years ago|decades ago|long ago|"
    r"a long time ago|"
    r"as a kid|as a child|growing up|when i was|in college|in high school|in school|"
    r"at the time|previously|formerly|in the past|once upon|for a while|"
    r"before that|before i|until (?:last|\d{4})|from \d{4} to \d{4}|between \d{4}|"
    r"at my (?:last|old|previous|former|first) (?:job|company|work|place|employer|firm)|"
    r"in my (?:last|old|previous|former) (?:job|role|life|company)|"
    r"once(?!\s+(?:again|more|a|an|every|in a while|i|we|you|the|my|it))|for lent)\b"
    # "I went vegan for a month": a past that lasted a while and ended.
    r"|\b(?<!'ve )(?<!have )(?:went|was|were|tried|became|lived|worked|stayed|did)\b[^.]{0,100}?"
    r"\bfor\s+(?:ramadan|veganuary|a\s+(?:week|month|year|while|bit|summer|semester)|"
    r"(?:one|two|three|four|five|six|a few|several|\d+)\s+(?:days|weeks|months|years|summers))\b",
    re.IGNORECASE,
)
PAST_YEAR = re.compile(r"\b(?:in|during|around)\s+(?P<year>(?:19|20)\d{2})\b", re.IGNORECASE)
NEGATION = re.compile(
    # Not "not bad at chess": praise, said modestly.
    r"\b(?:(?:i'm\s|im\s)?not(?!\s+(?:too\s+|that\s+|half\s+)?bad\b)|no|never|don't|dont|"
    r"do not|doesn't|didn't|isn't|aren't|wasn't|weren't|"
    r"haven't|hasn't|hadn't|can't|cannot|won't|nor|neither|nobody|nothing)\b|n't\b",
    re.IGNORECASE,
)


# A courtesy that is no condition: "my email is ... if you ever need it".
COURTESY = re.compile(
    r"(?:,|(?<!\s))\s*+\b(?:if|in case)\s+(?:you|u|anyone|someone|somebody)\s+(?:ever\s+)?"
    r"(?:need|needs|want|"
    r"wants|wonder|are wondering|were wondering|must know|care|asked|ask|like|wanna know|"
    r"want to know)\b[^,.;!?]*"
    # "if anyone's asking", "if that helps": no condition on what is said.
    r"|(?:,|(?<!\s))\s*+\bif\s+(?:anyone's|anybody's|someone's|you're)\s+(?:asking|wondering)\b"
    r"|(?:,|(?<!\s))\s*+\bif\s+(?:that|it)\s+helps\b"
    r"|(?:,|(?<!\s))\s*+\bwish\s+me\s+luck\b",
    re.IGNORECASE,
)


def without_courtesy(clause: str) -> str:
    return COURTESY.sub("", clause)


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


# A condition that carries its own outcome: "if i weren't i'd have five".
_CONDITION_WITH_OUTCOME = re.compile(
    r"^(?:even\s+)?(?:if|unless)\s+\S+\s+\S+.*?\b(?:i|we|you|they|he|she)(?:'d|\s+would)\s",
    re.IGNORECASE,
)


def scene_setting(clause: str) -> bool:
    """A clause that sets the scene for the next ("If I get the job, ..."); not a condition
    that already says its outcome ("if i weren't allergic i'd have five, i have a dog")."""
    return bool(SUBORDINATE.match(clause)) and not _CONDITION_WITH_OUTCOME.match(clause)


# A statement said with a rising tone: "actually i started liking olives??", "i guess i
# kinda like jazz?": the speaker first, in the order of a statement, nothing asked of anyone.
_RISING_STATEMENT = re.compile(
    r"^(?:(?:actually|acutally|ok|okay|so|lol|honestly|tbh|ngl|well|i\s+guess|i\s+think)[,!]?\s++)*"
    r"i(?:'m|'ve|\s++(?!(?:should|could|would|can|will|shall|might|may|must|need|wonder|"
    r"guess|think|mean|hope|wish)\b))"
    r"(?![^?]{0,200}\b(?:you|your|u|ur|or\s+not|right|should|could|would)\b)",
    re.IGNORECASE,
)


def is_question(clause: str) -> bool:
    clause = clause.strip()
    if QUESTION_START.match(clause):
        return True
    return clause.endswith("?") and not _RISING_STATEMENT.match(clause)


def is_hypothetical(clause: str) -> bool:
    return bool(HYPOTHETICAL.search(clause))


def is_plan(clause: str) -> bool:
    return bool(PLAN.search(clause))


def is_future(clause: str) -> bool:
    return bool(FUTURE.search(clause))


def has_past_verb(clause: str) -> bool:
    return bool(PAST_VERB.search(clause))


# Words taken back after they were said: "I live in Paris, well not really", "I'm a vegan -
# not!", "I love jazz, jk". A contrast ("I live in Rome, not Milan") takes nothing back.
RETRACTED = re.compile(
    r"(?:,|(?<!\s)\s+[-–—]|\.\.\.|(?<!\s)\s)\s*+(?:well\s+|ok\s+|okay\s+|haha\s+|lol\s+)?"
    r"(?:not\s+really|"
    r"not\s+exactly|not\s+quite|not\s+at\s+all|not|or\s+not|nope|just\s+kidding|jk|kidding|"
    r"i\s+wish|if\s+only|in\s+my\s+dreams|as\s+if)\s*[.!]*(?:,|$)",
    re.IGNORECASE,
)


# A sentence that only takes back the one before it: "I work at Google. Not!"
RETRACTION = re.compile(
    r"^(?:well\s+|haha\s+|lol\s+|ok\s+)?(?:not|nope|no|not really|jk|just kidding|kidding|i wish|"
    r"if only|in my dreams|as if|lol no|haha no)\s*[.!]*$",
    re.IGNORECASE,
)


def retracted(sentence: str, following: str = "") -> bool:
    """Whether ``sentence`` is taken back, by its own last words or by the ``following``
    sentence."""
    return bool(RETRACTED.search(sentence) or RETRACTION.match(following.strip()))


def reported_after(sentence: str) -> bool:
    return bool(REPORTED_AFTER.search(sentence))


def is_reported(clause: str) -> bool:
    return bool(REPORTED.search(clause))


def is_past(clause: str, current_year: int) -> bool:
    if PAST.search(clause):
        return True
    return any(int(m.group("year")) < current_year for m in PAST_YEAR.finditer(clause))


def is_negated(clause: str) -> bool:
    return bool(NEGATION.search(clause))
