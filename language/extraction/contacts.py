"""The speaker's email address and phone number: given as theirs ("my email is ...",
"reach me at ...", "use ... for anything official"), or ended ("my old number is
disconnected"). An address or number without such an owner may be anyone's."""

import re

from language.extraction.statements import EXPLICIT, Statement, ending
from language.extraction.statements import statement as said
from language.values import EMAIL_IN_TEXT, normalise_phone

EMAIL = EMAIL_IN_TEXT
PHONE = re.compile(r"\+?(?:\(\d+\)\s*)?\d[\d\s().-]{4,}\d")
_AT_ME = r"\bi(?:'m|\s+am)\s+(?:reachable\s+|available\s+)?(?:at|on|via)\s+"
EMAIL_OWNER = re.compile(
    r"\bmy\s+(?:new\s+|work\s+|personal\s+|current\s+|private\s+)?e-?mail\b"
    r"|\b(?:email|e-mail|mail|write|reach|contact|ping|find)\s+(?:to\s+)?me\s+(?:at|on|via)\b"
    r"|\b(?:i|i've)\s+(?:got|have)\s+(?:a\s+)?new\s+e-?mail(?:\s+address)?\b"
    r"|^(?:my\s+)?new\s+e-?mail(?:\s+address)?\b"
    # "email: ...", "my address is ...", "best email for me is ...", "send stuff to ..."
    r"|^(?:my\s+)?(?:new\s+|current\s+)?(?:e-?mail|contact)(?:\s+address)?\s*[:=-]"
    # A form's field at the clause's start: "email ciara@x.ie" (the subject left out).
    r"|^(?:my\s+)?(?:e-?mail|mail)(?:\s+address)?\s(?=\s*[\w.+-]+@)"
    r"|\bmy\s+(?:new\s+)?address\s+is\s+(?=[\w.+-]+@)"
    r"|\bbest\s+(?:e-?mail|address)\s+(?:for|to reach)\s+me\b"
    r"|\b(?:switched|moved|changed)\s+(?:over\s+)?to\s+(?=[\w.+-]+@)"
    r"|^(?:please\s+|just\s+)?send\s+(?:stuff|things|everything|mail|it|them)\s+to\s+(?=[\w.+-]+@)"
    r"|\bdrop\s+me\s+a\s+(?:line|note|mail)\s+at\b"
    # "use j.doe@example.net for anything official": an address offered for the speaker.
    r"|^(?:please\s+|pls\s+|plz\s+|just\s+)?use\s+(?=[\w.+-]+@)"
    r"|" + _AT_ME + r"(?=[\w.+-]+@)"
    # "new work email: ...", "I'm using ana@outlook.com now" (issue 22: changes as typed).
    r"|^(?:my\s+)?new\s+(?:work\s+|personal\s+|private\s+|main\s+)e-?mail\b"
    r"|\bi(?:'m|\s+am)\s+(?:now\s+)?using\s+(?=[\w.+-]+@)"
    # "my phone is +1 808 ... and email nalani.k@...": the speaker's, as the number was.
    r"|\bmy\s+(?:phone|number|mobile|cell)\b[^@\n]{0,80}?\band\s+(?:my\s+)?e-?mail\s+(?:is\s+)?"
    r"(?=[\w.+-]+@)",
    re.I,
)
PHONE_OWNER = re.compile(
    r"\bmy\s+(?:new\s+|work\s+|personal\s+)?(?:phone|cell|mobile|number|whatsapp)\b"
    r"|\b(?:call|text|reach|ring|whatsapp|message)\s+me\s+(?:at|on)\b"
    r"|\b(?:i|i've)\s+(?:got|have)\s+(?:a\s+)?new\s+(?:phone\s+|mobile\s+|cell\s+)?(?:number|phone)\b"
    # "new number: ...", "new canadian number: ..."
    r"|^(?:my\s+)?new\s+(?:[a-z]+\s+)?(?:phone\s+|mobile\s+|cell\s+)?(?:number|phone|cell|mobile)\b"
    r"|^(?:my\s+)?(?:phone|mobile|cell|tel|whatsapp|mob|ph|contact)(?:\s+number)?\s*[:=-]"
    r"|^(?:my\s+)?(?:phone|mobile|cell|tel|whatsapp|mob|telephone)(?:\s+number)?\s(?=\s*\+?\(?\d)"
    # "email me at ... or whatsapp +234 ...", "text +46 70 ...": the speaker's own number.
    r"|(?:^|\b(?:or|and)\s+)(?:text|call|whatsapp|ring|message|sms|txt|phone)\s+(?:me\s+)?"
    r"(?:at\s+|on\s+)?(?=\+?\(?\d)"
    r"|\bbest\s+(?:number|phone)\s+(?:for|to reach)\s+me\b"
    r"|" + _AT_ME + r"(?=\+?\d)",
    re.I,
)
PHONE_GONE = re.compile(
    r"\bmy\s+old\s+(?:phone\s+|mobile\s+|cell\s+)?(?:number|phone|mobile|cell)"
    r"(?:\s+(?P<v>\+?\d[\d\s().-]{5,}\d))?\s+(?:is|was|got|has been|'s)\s+(?:now\s+)?"
    r"(?:disconnected|cancell?ed|canceled|dead|deactivated|out of service|"
    r"no longer (?:active|in use|working))\b"
    # "got rid of my uk number", "cancelled my old number"
    r"|\b(?:got\s+rid\s+of|cancell?ed|canceled|gave\s+up|ditched)\s+my\s+(?:old\s+|\w{2,3}\s+)?"
    r"(?:phone\s+|mobile\s+|cell\s+)?(?:number|phone\s+number|mobile|cell)\b",
    re.I,
)


EMAIL_GONE = re.compile(
    r"\bmy\s+old\s+(?:e-?mail|address|e-?mail\s+address)(?:\s+(?P<v>[\w.+-]+@[\w-]+(?:\.[\w-]+)+))?"
    r"\s+(?:is|was|got|has been|'s|doesn't|does not|won't|no longer)\s+(?:now\s+)?"
    r"(?:dead|deactivated|closed|deleted|cancell?ed|gone|work|working|works|bouncing|in use|"
    r"active|exist|exists)\b",
    re.I,
)


def _is_phone(number: str) -> bool:
    return 7 <= len(re.sub(r"\D", "", number)) <= 15


# "ana@mail.com is my email", "+1 415 555 0101 is my new number": the owner after it.
OWNED_AFTER = re.compile(
    r"^\s+is\s+(?:now\s+)?my\s+(?:new\s+|current\s+|work\s+|personal\s+)?"
    r"(?P<kind>e-?mail|address|number|phone|cell|mobile)\b",
    re.I,
)


# "my email was ...": the one the speaker had.
_WAS = re.compile(r"\b(?:was|were|used to be|had been)\b", re.I)


def _owned(clause: str, value: re.Match[str], owner: re.Match[str] | None, kind: str) -> str | None:
    """The evidence that ``value`` is the speaker's own now, if the clause gives it."""
    if owner and owner.start() < value.start():
        if _WAS.search(clause, owner.end(), value.start()):
            return None
        return clause[owner.start() : value.end()]
    after = OWNED_AFTER.match(clause[value.end() :])
    if after and (after.group("kind").lower() in {"number", "phone", "cell", "mobile"}) == (
        kind == "phone"
    ):
        return clause[value.start() : value.end() + after.end()]
    return None


# A number typed without its country code, with the country said beside it: "07700 900318
# (UK number)", "0412 555 876, australian mobile". The region it is read in.
_REGIONS = {
    "uk": "GB",
    "british": "GB",
    "english": "GB",
    "scottish": "GB",
    "welsh": "GB",
    "us": "US",
    "american": "US",
    "usa": "US",
    "canadian": "CA",
    "australian": "AU",
    "aussie": "AU",
    "irish": "IE",
    "new zealand": "NZ",
    "kiwi": "NZ",
    "german": "DE",
    "french": "FR",
    "spanish": "ES",
    "italian": "IT",
    "dutch": "NL",
    "belgian": "BE",
    "swiss": "CH",
    "austrian": "AT",
    "swedish": "SE",
    "norwegian": "NO",
    "danish": "DK",
    "finnish": "FI",
    "polish": "PL",
    "portuguese": "PT",
    "indian": "IN",
    "south african": "ZA",
    "nigerian": "NG",
    "kenyan": "KE",
    "brazilian": "BR",
    "mexican": "MX",
    "japanese": "JP",
    "singapore": "SG",
    "singaporean": "SG",
    "greek": "GR",
    "turkish": "TR",
    "israeli": "IL",
}
_REGION_HINT = re.compile(
    r"\b(?P<region>" + "|".join(sorted(_REGIONS, key=len, reverse=True)) + r")\s+"
    r"(?:phone\s+|mobile\s+|cell\s+)?(?:number|mobile|phone|cell|no\.?)\b",
    re.I,
)


def _number(clause: str, phone: re.Match[str]) -> str:
    """The number as typed, in E.164 when it has no country code and the clause says which
    country it is of."""
    typed = phone.group(0).strip()
    hint = _REGION_HINT.search(clause)
    if typed.startswith(("+", "00")) or hint is None:
        return typed
    return normalise_phone(typed, region=_REGIONS[hint.group("region").lower()]) or typed


def contact(clause: str) -> list[Statement]:
    found: list[Statement] = []
    email = EMAIL.search(clause)
    evidence = email and _owned(clause, email, EMAIL_OWNER.search(clause), "email")
    if email and evidence:
        found.append(said("email", email.group(0), evidence, EXPLICIT))
    # A number beside an address: "email me at ana@x.org or text +46 70 555 12 34".
    bare = EMAIL.sub(lambda m: " " * len(m.group(0)), clause)
    phone = PHONE.search(bare)
    if phone and _is_phone(phone.group(0)):
        evidence = _owned(bare, phone, PHONE_OWNER.search(bare), "phone")
        if evidence:
            found.append(said("phone", _number(clause, phone), evidence, EXPLICIT))
    return found


def contact_endings(clause: str) -> list[Statement]:
    gone = EMAIL_GONE.search(clause)
    if gone:
        return [ending("email", gone.group("v"), gone.group(0), 0.85)]
    match = PHONE_GONE.search(clause)
    if not match:
        return []
    number = match.group("v")
    if number and not _is_phone(number):
        return []
    return [ending("phone", number and number.strip(), match.group(0), 0.85)]
