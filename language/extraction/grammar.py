"""The pieces the patterns are written in: the speaker as subject, a value, a name, a span of
time, the fillers that open a chat sentence."""

import re

from language.extraction.vocabulary import PET_SPECIES

_ADVERBS = (
    r"just|now|recently|finally|officially|currently|actually|also|still|really|already|"
    r"happily|newly|proudly|basically|mostly|totally|absolutely|definitely|truly|even|both|"
    r"all|again|been|kind of|sort of|pretty much|technically|today|lately|do|kinda|sorta|"
    r"genuinely|honestly|seriously|literally"
)
# "I", "we", with a contracted or plain auxiliary and any adverbs: "I've just", "we're now".
S = (
    r"\b(?P<subj>i|we)(?:'m|'ve|'re|'ll|\s+am|\s+are|\s+have|\s+will)?"
    rf"(?:\s+(?:{_ADVERBS}))*(?:\s+|(?='))"
)
# The same without its group, for patterns that use it more than once.
S_PLAIN = S.replace("(?P<subj>", "(?:")
# Its whitespace taken whole (possessive): nothing after it starts with a space, and "I'm"
# before a long run of spaces was read once for each length of the run.
I_AM = rf"\bi(?:'m|\s++am)(?:\s++(?:{_ADVERBS}))*(?:\s++|(?='))"
REST = r"(?P<v>.+)"
NAME = r"(?-i:(?P<v>[A-Z][\w'-]+(?:\s+[A-Z][\w'-]+)?))"
# "Dara and I ...": a name before the speaker, the pair the subject of what follows.
NAME_AND_I = (
    r"(?-i:\b(?P<v>[A-Z][\w'-]+))\s+and\s+i"
    r"(?:'re|'ve|\s+(?:are|have|just|finally|recently|officially|both))*\s+"
)
SPECIES_GROUP = "|".join(sorted(PET_SPECIES, key=len, reverse=True))
# A span of time ahead, "for five years" or "since 2020": the present perfect with it is
# still current ("I've been with Google since 2020"). Lookaheads reach 300 characters, not
# the clause's end: from each "I" of "I've been I've been ..." a scan to the end made the
# clause's reading quadratic.
SPAN = r"(?=.{0,300}?\b(?:for\s+(?:\w+\s+)?(?:years?|months?|weeks?)|since)\b)"
# Words that open a chat sentence before what it says: "ok so", "honestly", "ugh".
FILLERS = (
    r"(?:ok|okay|so|honestly|tbh|ugh|well|and|but|lol|yeah|omg|man|confession|update|"
    r"hmm|welp|oof|also|btw|ngl|wow|oh)"
)


def rx(*patterns: str) -> list[re.Pattern[str]]:
    return [re.compile(p, re.IGNORECASE) for p in patterns]


def evidence_of(clause: str, match: re.Match[str], value: str) -> str:
    """From the match's start to the end of its value."""
    start = match.start()
    if "v" in match.re.groupindex and match.start("v") == start:
        return match.group(0)  # "Jazz is my favourite music": the value leads.
    end = clause.find(value, match.start("v") if "v" in match.re.groupindex else start)
    return clause[start : end + len(value)] if end >= 0 else match.group(0)
