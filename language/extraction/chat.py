"""Chat spellings, written out before the patterns read a message: "i wrk at", "ive been",
"moved 2 leeds", "engineer @ Google", "vegitarian". A closed list of the spellings people
type in chat (abbreviations and frequent typos of the words the patterns key on), not a
fuzzy match of every word: a word not listed is read as typed.

A replacement keeps the case style of the word it replaces ("Wrk" -> "Work", "wrk" ->
"work"), so text typed without capitals stays without them (the patterns read names more
leniently there)."""

import re

from language.extraction.vocabulary import JOB_WORDS

# Whole words, matched case-insensitively.
SPELLINGS = {
    # the speaker
    "ive": "i've",
    "i'am": "i'm",
    "iam": "i am",
    "usedto": "used to",
    "u": "you",
    "ur": "your",
    # liking, hating (typos of the rules' own words are read by keywords.typos_read)
    "luv": "love",
    "lov": "love",
    "luvs": "loves",
    "h8": "hate",
    "h8s": "hates",
    # work
    "wrk": "work",
    "wrok": "work",
    "wokr": "work",
    "werk": "work",
    "wrks": "works",
    "wrking": "working",
    "wroking": "working",
    "workin": "working",
    "wrkin": "working",
    "workng": "working",
    "wroked": "worked",
    "wrked": "worked",
    "compnay": "company",
    "comapny": "company",
    # living, moving
    "liv": "live",
    "lve": "live",
    "livin": "living",
    "liveing": "living",
    "lving": "living",
    "movd": "moved",
    "moveing": "moving",
    "movin": "moving",
    "relocatd": "relocated",
    # adverbs the patterns allow between subject and verb
    "officialy": "officially",
    "offically": "officially",
    "finaly": "finally",
    "finnally": "finally",
    "recntly": "recently",
    "curently": "currently",
    "currenty": "currently",
    "jus": "just",
    "jst": "just",
    "prolly": "probably",
    "probs": "probably",
    "dunno": "don't know",
    "rn": "right now",
    "atm": "at the moment",
    "tho": "though",
    "bc": "because",
    "cuz": "because",
    "coz": "because",
    "abt": "about",
    # negations (the traps read them)
    "dont": "don't",
    "doesnt": "doesn't",
    "didnt": "didn't",
    "cant": "can't",
    "isnt": "isn't",
    "arent": "aren't",
    "wasnt": "wasn't",
    "havent": "haven't",
    "hasnt": "hasn't",
    "wont": "won't",
    # facts' own words
    "bday": "birthday",
    "b-day": "birthday",
    "birthdya": "birthday",
    "brithday": "birthday",
    "birtday": "birthday",
    "bithday": "birthday",
    "bdays": "birthdays",
    "emial": "email",
    "emal": "email",
    "e-mail": "email",
    "numbr": "number",
    "nubmer": "number",
    "numer": "number",
    "speek": "speak",
    "spek": "speak",
    "speeking": "speaking",
    "fluant": "fluent",
    "englsih": "english",
    "englsh": "english",
    "engish": "english",
    "spansih": "spanish",
    "spansh": "spanish",
    "frensh": "french",
    "vegitarian": "vegetarian",
    "vegeterian": "vegetarian",
    "vegatarian": "vegetarian",
    "vegetarain": "vegetarian",
    "vegiterian": "vegetarian",
    "pescitarian": "pescatarian",
    "pescaterian": "pescatarian",
    "pescatarain": "pescatarian",
    "glutenfree": "gluten-free",
    "engeneer": "engineer",
    "enginer": "engineer",
    "engineeer": "engineer",
    "enginner": "engineer",
    "devloper": "developer",
    "developper": "developer",
    "programer": "programmer",
    "desinger": "designer",
    "designr": "designer",
    "acountant": "accountant",
    "accountent": "accountant",
    "manger": "manager",
    "managr": "manager",
    "techer": "teacher",
    "teachr": "teacher",
    "resercher": "researcher",
    "studnet": "student",
    "nurce": "nurse",
    "freind": "friend",
    "freinds": "friends",
    "daugther": "daughter",
    "maried": "married",
    "marrried": "married",
    "husbnad": "husband",
    "hubsand": "husband",
    "huband": "husband",
    "wfie": "wife",
    "girlfirend": "girlfriend",
    "boyfirend": "boyfriend",
    "seperated": "separated",
    "seperate": "separate",
    "divorsed": "divorced",
    "makign": "making",
    "teh": "the",
    "adn": "and",
    "yrs": "years",
    "yr": "year",
    "mths": "months",
    "wks": "weeks",
    "tmrw": "tomorrow",
    "tmrow": "tomorrow",
    "2moro": "tomorrow",
    "2morrow": "tomorrow",
}
_WORD = re.compile(
    r"(?<![\w@.'-])(?:"
    + "|".join(re.escape(w) for w in sorted(SPELLINGS, key=len, reverse=True))
    # Not inside an address or a handle, nor a contraction ("u" of "u.s.").
    + r")(?![\w@'-]|\.\w)",
    re.IGNORECASE,
)
# "moved 2 leeds", "going 2 the gym": the digit for "to" after a verb of motion.
_TWO = re.compile(
    r"\b(moved|move|moving|relocated|relocating|going|went|back)\s2\s(?=[a-z])", re.IGNORECASE
)
# "1 dog called Fionn": the digit for the article before a pet or a child.
_ONE = re.compile(
    r"(?<![\w.,])1\s(?=(?:dog|cat|kid|son|daughter|child|baby|puppy|kitten|rabbit|parrot)\b)",
    re.IGNORECASE,
)
# "engineer @ Google", "designer @Canva": an at-sign between words reads "at" (an address
# has no space before its "@", a handle has none before a word after a space).
_AT = re.compile(r"(?<=[a-z])\s@\s?(?=[A-Za-z])", re.IGNORECASE)
# "ill be", "ill start": "I'll" without its apostrophe (not "ill" as in sick: "I'm ill").
_ILL = re.compile(r"(?<![\w'])(ill)(?=\s(?:be|start|join|move|leave|have|work|go)\b)", re.I)
# "i'm working like software tester": "like" for "as" before a job, in learners' English.
_LIKE_AS = re.compile(
    r"\b((?:work|works|working|worked|employed|hired|started|start)\b[^,.;!?]{0,80}?)"
    r"\blike\s(?P<job>(?:an?\s)?[\w-]+(?:\s[\w-]+){0,3}?)(?=\s{0,3}(?:$|[,.;!?]|\s(?:in|at|for|since)\b))",
    re.IGNORECASE,
)


def _as(match: re.Match[str]) -> str:
    """ "like welder" reads "as welder" only when a job follows."""
    if match.group("job").split()[-1].lower() not in JOB_WORDS:
        return match.group(0)
    return f"{match.group(1)}as {match.group('job')}"


def _cased(typed: str, written: str) -> str:
    if typed.isupper() and len(typed) > 1:
        return written.upper()
    if typed[:1].isupper():
        return written[:1].upper() + written[1:]
    return written


def spelled_out(text: str) -> str:
    """``text`` with the chat spellings of SPELLINGS written out."""
    text = _WORD.sub(lambda m: _cased(m.group(0), SPELLINGS[m.group(0).lower()]), text)
    text = _TWO.sub(r"\1 to ", text)
    text = _ONE.sub("a ", text)
    text = _AT.sub(" at ", text)
    text = _ILL.sub(lambda m: _cased(m.group(1), "i'll"), text)
    return _LIKE_AS.sub(_as, text)
