"""The traps: clauses whose words must change no fact. A question, a supposition, a plan, the
past, words reported from someone else or taken back ("I work at Google. Not!"), a negation;
and a clause that only sets the scene for the next one ("If I get the job, ..."). A courtesy
("my email is ... if you ever need it") is no condition: it is cut off."""

import re

from language.moments import MONTH_STEMS, WEEKDAY_STEMS

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
