"""What the speaker likes, dislikes and eats: "I love jazz", "hate hate HATE karaoke", "things
i love: jollof, afrobeats, football", "Arsenal is my jam", "I went vegan", "ok i caved, back
to vegetarian"."""

import re

from language.extraction.grammar import I_AM, REST, S, evidence_of, rx
from language.extraction.statements import EXPLICIT, LIKELY, Statement, listed
from language.extraction.statements import statement as said
from language.extraction.vocabulary import DIETS, NOT_LIKES

# "gluten free" is written with a space as often as with a hyphen.
_DIET_WORDS = "|".join(d.replace("-", "[- ]") for d in sorted(DIETS, key=len, reverse=True))
DIET = rx(
    S + r"(?:'m|am|went|gone|'ve gone|became|become|'ve become|turned|eat|'m eating|"
    r"be going|going|go|becoming|'m becoming|switched to|'ve switched to|switching to|"
    r"'m switching to|switch to|'ll switch to|moved to|"
    r"follow|'m following|'m on|am on|keep|'m keeping)?\s*(?:an?\s+|fully\s+|full\s+|strictly\s+|"
    r"completely\s+|mostly\s+)*(?P<v>" + _DIET_WORDS + r")\b"
    r"(?:\s+diet)?",
    # "ok i caved, back to vegetarian": a diet taken up again.
    r"(?:^|[,;]\s*+|\bi'm\s+|\bim\s+|\bi\s+am\s+|\bi\s+)(?:going\s+|went\s+|gone\s+)?back\s+to\s+"
    r"(?:being\s+)?(?:an?\s+)?(?P<v>" + _DIET_WORDS + r")\b",
)
# A message or clause that opens on the verb, "I" left out: "love jazz", "hate karaoke".
_NO_SUBJECT = (
    r"^(?:(?:and|also|but|ok|okay|honestly|ngl|tbh|lol|haha|omg|ugh|srsly)[,!]?\s++)*"
    r"(?:i\s++)?(?:(?:really|genuinely|absolutely|honestly|seriously|just|totally|kinda|sorta|"
    r"still|also|always|now|even)\s++){0,2}"
)
# "things i love:", "stuff I can't stand:": a list of tastes after a colon.
_LIST_OF = r"^(?:(?:also|and|ok)\s+)?(?:things|stuff)\s+(?:that\s+)?i\s+(?:really\s+)?"
LIKES = rx(
    S + r"(?:love|like|enjoy|adore|dig|(?:'m\s+|am\s+)?(?:into|obsessed with|passionate about|"
    r"crazy about|"
    # "I got into Oxford" is an admission, not a hobby: only "gotten" / "got really into".
    r"(?:'ve\s+)?gotten\s+(?:really\s+)?into|got\s+really\s+into|"
    r"(?:'ve taken up|took up)(?!\s+(?:the|a|an|his|her|their|your|my|space|time|room)\b)|"
    r"(?:quite\s+|very\s+)?fond of|(?:a\s+)?(?:big\s+|huge\s+)?fan of))\s+" + REST,
    r"\bmy\s+(?:absolute\s+)?favou?rite\s+(?:\w+\s+)?is\s+" + REST,
    I_AM + r"(?:an?\s+)?(?:big\s+|huge\s+|massive\s+|lifelong\s+|die-hard\s+)?"
    r"(?-i:(?P<v>[A-Z][\w'-]*(?:\s+[A-Z][\w'-]*)?))\s+fan\b",
    r"^(?:a\s+)?(?:big|huge|massive|lifelong)\s+fan\s+of\s+" + REST,
    r"^(?:and\s+|but\s+|also\s+)?(?P<v>[\w' -]{1,120}?)\s++(?:is|are)\s+my\s+(?:absolute\s+)?"
    r"(?:new\s+|latest\s+|current\s+)?"
    r"(?:favou?rite|favou?rite\s+\w+|(?:big|great|true)\s+passion|jam|thing|obsession)\b",
    # "i started liking olives", "I've started to love running"
    S + r"(?:started|starting|begun|began|'ve\s+started|have\s+started)\s+(?:to\s+)?"
    r"(?:like|liking|love|loving|enjoy|enjoying)\s+" + REST,
    # A chat message that leaves out "I": "love love LOVE jazz", "adore old bookshops" (not
    # "enjoy the show!": a wish for someone else).
    _NO_SUBJECT + r"(?:(?:love|adore)\s++)+" + REST,
    # "things i love: jollof, afrobeats, football"
    _LIST_OF + r"(?:love|like|enjoy|adore|am\s+into|'m\s+into)\s*+:\s*+" + REST,
    # "add bouldering to the things i like", "put ramen on my likes"
    r"^(?:(?:also|pls|please|and)\s+)*(?:add|put)\s+(?P<v>[^,;.!?]{1,60}?)\s+(?:to|on)\s+"
    r"(?:the\s+|my\s+)?(?:(?:things|stuff)\s+i\s+(?:like|love|enjoy)|likes|interests|hobbies)\b",
)
DISLIKES = rx(
    S + r"(?:hate|dislike|detest|loathe|despise|can't stand|cannot stand|can't bear|"
    r"don't like|do not like|don't enjoy|do not enjoy|"
    r"(?:'m|am)\s+not\s+(?:a\s+)?(?:big\s+|huge\s+|great\s+)?fan\s+of|"
    r")\s+" + REST,
    S + r"(?:started|starting|begun|began|'ve\s+started|have\s+started)\s+(?:to\s+)?"
    r"(?:hate|hating|dislike|disliking)\s+" + REST,
    # "hate hate HATE karaoke", "can't stand reality TV", "cant stand liver"
    _NO_SUBJECT + r"(?:(?:hate|loathe|detest|despise)\s++)+" + REST,
    r"(?:^|,\s*+|\bi\s++)(?:(?:also|still|really|just|genuinely|honestly|always)\s+){0,2}"
    r"(?:can't|cant|cannot|can\s+not)\s+stand\s+" + REST,
    _LIST_OF + r"(?:hate|dislike|can't\s+stand|cant\s+stand)\s*+:\s*+" + REST,
)


def diet(clause: str) -> list[Statement]:
    for pattern in DIET:
        match = pattern.search(clause)
        if match:
            return [said("diet", match.group("v"), match.group(0), EXPLICIT)]
    return []


# An item of a list of tastes that opens with a verb of taste is a clause of its own: "I
# love hiking and hate the commute" likes hiking, not "hate the commute".
_TASTE_VERB = re.compile(
    r"\A(?:hate|hates|hated|dislike|dislikes|loathe|detest|despise|can't|cant|cannot|don't|"
    r"dont|never|love|loves|like|likes|adore|enjoy|prefer|i|i'm)\b",
    re.IGNORECASE,
)


def _preferences(predicate: str, patterns: list[re.Pattern[str]], clause: str) -> list[Statement]:
    for pattern in patterns:
        match = pattern.search(clause)
        if not match or re.match(r"\A\s*to\s", match.group("v"), re.I):
            continue
        values = [
            v
            for v in listed(match.group("v"), max_words=4)
            if v.lower() not in NOT_LIKES and not _TASTE_VERB.match(v)
        ]
        if values:  # "I hate hate HATE karaoke": the verb said again is read by the next
            return [said(predicate, v, evidence_of(clause, match, v), LIKELY) for v in values]
    return []


def likes(clause: str) -> list[Statement]:
    return _preferences("likes", LIKES, clause)


def dislikes(clause: str) -> list[Statement]:
    return _preferences("dislikes", DISLIKES, clause)
