"""The patterns of first-person statements, one function per predicate family. Each takes
a clause (already cleared of traps) and returns the statements it makes."""

import re
from collections.abc import Callable
from dataclasses import replace
from datetime import datetime, timedelta

from language.extraction.contacts import contact
from language.extraction.dates import birthday_value
from language.extraction.grammar import I_AM, REST, S, evidence_of, rx
from language.extraction.people import children, pets, relationships
from language.extraction.statements import (
    EXPLICIT,
    HOUSEHOLD,
    LIKELY,
    Statement,
    is_lowercase_text,
    listed,
    proper_name,
)
from language.extraction.statements import statement as said
from language.extraction.vocabulary import (
    COUNTRIES,
    CRAFT_VERBS,
    CRAFTS,
    DIETS,
    JOB_WORDS,
    JUDGEMENTS,
    LANGUAGES,
    NOT_A_VALUE_AFTER_FOR,
    NOT_LIKES,
    STOP_WORDS,
    TOOLS,
)
from language.moments import shifted
from language.places import city, country

# Lookaheads reach 300 characters, not the clause's end: from each "I" of "I've been I've
# been ..." a scan to the end made the clause's reading quadratic.
_SPAN = r"(?=.{0,300}?\b(?:for\s+(?:\w+\s+)?(?:years?|months?|weeks?)|since)\b)"
EMPLOYER = rx(
    S + r"(?:work|working|'m working|am working|'ll be working|will be working|employed|"
    r"'m employed|am employed|'ll work|will work|teach|'m teaching|am teaching|'ll be teaching|"
    r"will be teaching|intern|'m interning|am interning|interning|freelance|'m freelancing|"
    r"freelancing|consult|'m consulting|contract|'m contracting)"
    r"(?:\s+(?:remotely|full-time|part-time|full time|part time|now|currently|nights|days|"
    r"weekends|shifts|nights|mornings|evenings))?"
    r"(?:\s+in\s+[a-z-]+(?:\s+[a-z-]+)?)?\s+(?:at|for|by)\s+" + REST,
    S + r"(?:joined|join|'m joining|am joining|'ll join|will join|'ll be joining|"
    r"will be joining|(?:started|start|'m starting|am starting|'ll start|will start|began)"
    r"(?:\s+(?:working|a new job|my new job|a job|a new role|my new role|a new gig|a new "
    r"position|my new position|work))?\s+(?:at|with|for)|signed\s+(?:on\s+)?with|"
    r"got (?:a|an|my|the) (?:new )?(?:job|position|role|offer) (?:at|with)|got hired (?:at|by)|"
    r"(?:got|was|'ve been|have been|just got) poached by|"
    r"was hired (?:at|by)|'ve been hired (?:at|by)|'ll be at|will be at|'m now at|am now at|"
    r"(?:took|'ve taken|have taken|accepted|'ve accepted|have accepted|landed|'ve landed)\s+"
    r"(?:a|an|the)\s+(?:new\s+)?(?:job|position|role|post|offer)\s+(?:at|with|from))\s+" + REST,
    # "I'm at Netflix now": only with the "now" that makes it a job rather than a visit.
    # After a comma, only what speaks of the job ("same role"): "I'm at Gatwick now, flight
    # delayed" is a visit.
    I_AM + r"(?:at|with)\s+(?!the\s)(?P<v>[^,;.!?]{1,120}?)\s++(?:now|these days|nowadays)"
    r"(?:\s*[.!]*$|,\s*+(?:same|new|different|better|doing|working|loving|started|joined|"
    r"since)\b)",
    # "I've been with Google since 2020": the present perfect with a span is still current.
    r"\bi(?:'ve|\s+have)(?:\s+now)?\s+(?:worked|been working|been)\s+(?:at|with|for)\s+"
    + _SPAN
    + REST,
    r"^(?:starting|from|as of)\b[^,]*?(?:,\s*+|(?<!\s)\s*+)" + I_AM + r"(?:at|with)\s+" + REST,
    S + r"(?:moved|relocated|'m moving|am moving)\s+.*?\bfor\s+(?:a|the)\s+(?:new\s+)?"
    r"(?:job|position|role)\s+(?:at|with)\s+" + REST,
    r"\bnow\s+i(?:'m|\s+am)\s+(?:at|with)\s+" + REST,
    r"\bi(?:'m|\s+am)\s+(?:currently|now)\s+(?:at|with)\s+(?!the\s)" + REST,
    # "I'm part of the team at Klarna", "I accepted Bosch's offer", "Bosch hired me"
    I_AM + r"(?:part of|on)\s+the\s+(?:[\w-]+\s+){0,2}?team\s+(?:at|of)\s+" + REST,
    S + r"(?:accepted|'ve accepted|took)\s+(?P<v>[^,;.!?']{1,120}?)'s\s+(?:job\s+)?offer\b",
    # "accepted the Optus offer"
    S + r"(?:accepted|'ve accepted)\s+the\s+(?P<v>[^,;.!?']{1,120}?)\s+(?:job\s+)?offer\b",
    r"^(?:and\s+|so\s+)?(?-i:(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}))\s+(?:just\s+|finally\s+)?"
    r"(?:hired|has hired|employs)\s+me\b",
    r"^(?-i:(?P<v>[A-Z][\w&.-]*(?:\s+[A-Z][\w&.-]*){0,3}))\s+is\s+(?:now\s+)?my\s+(?:new\s+)?"
    r"(?:employer|company)\b",
    r"(?:\b(?:for|with|at)\s+)?\bmy\s+(?:new\s+)?(?:job|position|role|gig|employer)"
    r"(?:\s+is(?:\s+now)?)?\s+(?:at|with)\s+" + REST,
    r"\bmy\s+(?:new\s+)?(?:employer|company)\s+is(?:\s+now)?\s+" + REST,
    # "Monday is my first day at Klarna", "my first day at Klarna is Monday"
    r"\bmy\s+first\s+(?:day|week)\s+(?:at|with)\s+" + REST,
    # "first week at Rivian done", "day two at Danske Bank"
    r"^(?:my\s+)?(?:(?:first|second|third|1st|2nd|3rd)\s+(?:day|week|month)|"
    r"(?:day|week)\s+(?:one|two|three|four|five|\d))\s+(?:at|with)\s+" + REST,
    # "new job at Deliveroo!", "update: new role with Arup" (issue 22: a message that is
    # only the news).
    r"^(?:(?:so|ok|okay|update|news|yay|finally|guess what)[,:!]?\s++)?(?:a\s+|my\s+)?new\s+"
    r"(?:job|role|position|gig)\s+(?:at|with)\s+" + REST,
    # "I switched jobs, now at M-KOPA"
    r"\b(?:switched|changed|new)\s+jobs?\b.*?\bnow\s+(?:at|with)\s+" + REST,
    # "still teaching, but i switched schools, i'm at Moringa High now"
    r"\b(?:switched|changed)\s+(?:schools|companies|firms|hospitals|employers|agencies|"
    r"practices|clinics)\b.*?\bi(?:'m|\s+am)\s+(?:now\s+)?(?:at|with)\s+" + REST,
    # "i just ADORE working weekends at Grunwald Logistics 🙃": a workplace, whatever the
    # speaker feels about it.
    S + r"(?:love|adore|hate|enjoy|like|loving|hating|can't\s+stand|detest)\s+working\s+"
    r"(?:(?:weekends|nights|late|overtime|shifts|here|there|on\s+sundays|on\s+weekends)\s+)?"
    r"(?:at|for)\s+(?-i:(?=[A-Z]))" + REST,
    # "I am working now in Ikea", "I work in Samsung Heavy Industries": learners' "in" for
    # "at", before a capitalised name that is no place (checked in employer()).
    S + r"(?:work|'m working|am working|working)(?:\s+(?:now|currently))?\s+in\s+"
    r"(?-i:(?=[A-Z]))(?P<v>[^,;.!?]{1,120})",
    # "I work for a startup called Pled"
    S + r"(?:work|'m working|am working)\s+(?:at|for)\s+an?\s+(?:[\w-]+\s+){1,3}?"
    r"(?:called|named)\s+" + REST,
)
_WORK_IN = EMPLOYER[-2]  # "I work in Ikea" (the last but one, kept so)
EMPLOYER_WORDS = re.compile(r"^(?:my\s+)?(?:job|position|role|company|employer|work)\b", re.I)
TITLE_VERBS = (
    r"(?:became|'ve become|have become|work as|working as|'m working as|am working as|"
    r"got a (?:new )?job as|started as|'m starting as|got hired as|was hired as|"
    r"(?:got|was|'ve been|have been)?\s*promoted to|'ll be working as|become|'ll become|"
    r"(?:was|got|'ve been|have been|'ll be|will be)\s+made|"
    r"will become|'m becoming|am becoming|start as|'ll start as|will start as|"
    r"'ll be starting as|(?:joined|join|'m joining|am joining|'ll join|will join|'ll be joining)"
    r" \S+(?: \S+){0,6}? as)\s+"
)
_BARE_TITLE = r"^(?!(?:my|our|his|her|their|your|the|a|an|this|that)\s)"
JOB_TITLE = rx(
    I_AM + r"(?:an?|the)\s+" + REST,
    r"\bi(?:'ll|\s+will)\s+be\s+(?:an?\s+|the\s+|(?=(?:head|director|vp|chief|lead)\s+of\s))"
    + REST,
    I_AM + r"(?=(?:head|director|vp|chief|lead)\s+of\s)" + REST,
    # "I'm senior product manager now": a title without its article, said as a change.
    I_AM + r"(?!an?\s|the\s|\w+ing\b)(?=.{0,300}?\b(?:now|these days|officially)\b)" + REST,
    # "I'm shift lead from next monday": a title without its article, from a date on.
    I_AM + r"(?!an?\s|the\s|\w+ing\b)(?=[^,;.!?]{0,60}?\b(?:from|starting|as of)\s)" + REST,
    r"\bi(?:'ve|\s+have)\s+been\s+(?:an?|the)\s+" + _SPAN + REST,
    S + TITLE_VERBS + r"(?:an?\s+|the\s+)?" + REST,
    r"\bmy\s+(?:new\s+)?(?:job\s+title|title|role|position|job)\s+is(?:\s+now)?\s+"
    r"(?:an?\s+|the\s+)?" + REST,
    # "Starting a new job next Friday: backend developer at Zepto"
    r"\b(?:new|my)\s+(?:job|role|position|gig)\b[^:]*:\s*(?:an?\s+|the\s+)?" + REST,
    r"\b(?:they|we|the company|my boss|my company|the board)\s+(?:just\s+|finally\s+)?"
    r"(?:promoted|made)\s+me\s+(?:to\s+)?(?:an?\s+|the\s+)?" + REST,
    # "I work for Mercado Libre as a product designer", "got hired by Figma as a ..."
    S + r"(?:work|working|'m working|am working|'ll be working|be working|employed|"
    r"start|starting|'m starting|started|'ll start|join|joining|'m joining|joined|'ll join|"
    r"be joining|be starting|got hired|was hired|'ve been hired|hired|'m|am)\b[^,;.!?]{0,120}?"
    r"\b(?:at|for|by|with|in|there|join|joining)\b[^,;.!?]{0,120}?\bas\s+(?:an?\s+|the\s+)?" + REST,
    # "next monday i switch to nights as charge nurse"
    S + r"(?:switch|'m switching|switched|'ll switch|will switch|'m moving|move|'ll move)\s+"
    r"to\s+(?:[\w-]+\s+){1,3}?as\s+(?:an?\s+|the\s+)?" + REST,
    # "first week as tech lead, so many meetings"
    r"^(?:my\s+)?(?:(?:first|second|third|1st|2nd|3rd)\s+(?:day|week|month|shift)|"
    r"(?:day|week)\s+(?:one|two|three|four|five|\d))\s+as\s+(?:an?\s+|the\s+)?" + REST,
    # "got promoted to senior accountant", "just got promoted to team lead!"
    r"^(?:(?:so|and|ok|omg|just|finally|officially)\s+)*(?:i\s+)?(?:just\s+)?(?:got|was|been|'ve\s+been)"
    r"\s+promoted\s+to\s+(?:an?\s+|the\s+)?" + REST,
    # "I am English teacher", "I am software tester in Abuja": a title without its article,
    # as many who learnt English later write it (the title's last word must be a trade's).
    I_AM + r"(?!an?\s|the\s|\w+ing\b|not\b|no\b)" + REST,
    # A message that is the title alone: "head chef now!!", "product manager at Kotaro Games";
    # not someone's ("my manager at Acme", "the manager now").
    _BARE_TITLE + r"(?P<v>(?:[\w-]+\s+){0,3}[\w-]+)\s+now\s*[.!]*$",
    _BARE_TITLE + r"(?P<v>(?:[\w-]+\s+){0,3}[\w-]+\s+at\s+(?-i:[A-Z])[\w&'-]*"
    r"(?:\s+(?-i:[A-Z])[\w&'-]*){0,3})\s*[.!]*$",
)
JOB_ENDINGS = re.compile(r"(?:ologist|ician|iatrist|otherapist|ographer|onomist)$")
TITLE_HEADS = re.compile(r"^(?:head|director|vp|chief|professor|manager|lead)\s+of\s+", re.I)
PLACE = rx(
    S + r"(?:live|living|'m living|reside|residing|'m based|am based|'re based|are based|"
    r"'m settled|settled|'ll be living|will be living)\s+(?:in|out\s+of)\s+" + REST,
    r"^(?:currently\s+|now\s+)?based\s+(?:in|out\s+of)\s+" + REST,
    # "I live with my parents in Lyon", "I live in a small flat in Lyon"
    S + r"(?:live|living|'m living)\s+(?:with\s+[^,;.!?]{1,120}?|in\s+(?:a|an|my|our|the)\s+"
    r"[^,;.!?]{1,120}?)\s++in\s+(?-i:(?=[A-Z]))" + REST,
    # "I've lived in Lyon for five years": still there.
    r"\bi(?:'ve|\s+have)\s+(?:lived|been living|been based)\s+in\s+" + _SPAN + REST,
    # "I'm in Lyon these days": a stay that has lasted.
    I_AM + r"in\s+(?!the\s)(?P<v>[^,;.!?]{1,120}?)\s++(?:these days|nowadays)\s*[.!]*$",
    S + r"(?:moved|move|'m moving|am moving|'re moving|are moving|'ll move|will move|"
    r"'ll be moving|will be moving|'ll be relocating|will be relocating|relocated|"
    r"'m relocating|am relocating|'re relocating|are relocating|'ll relocate|relocate|"
    r"'ll have moved|will have moved|"
    r"will relocate|'ve relocated|emigrated|immigrated|'ve emigrated)\s+"
    r"(?:back\s+home\s+|back\s+|home\s+|here\s+|over\s+|out\s+|"
    r"all the way\s+)?"
    r"(?:from\s+(?:the\s+)?[\w'-]+(?:\s+[\w'-]+)?\s+)?to\s+" + REST,
    I_AM + r"(?-i:(?P<v>[A-Z][\w]+(?:\s+[A-Z][\w]+)?))(?:-|\s)based\b",
    I_AM + r"(?P<v>[a-z]+(?:\s+[a-z]+)?)(?:-|\s)based\b(?=.{0,300}?\b$)",
    S + r"(?:call|now call)\s+(?P<v>[A-Z][\w' -]*?)\s+(?:my\s+)?home\b",
    # "moved into my new flat in Busan", "Ayesha and I moved in together in Utrecht"
    S + r"(?:moved|'ve moved|'re moving|'m moving|'ll move|move)\s+(?:in\s+together|into\s+"
    r"(?:my|our|a|the)\s+(?:new\s+|own\s+|first\s+|little\s+)*(?:flat|apartment|house|"
    r"place|home|condo|studio))\s+in\s+" + REST,
    r"^(?:and\s+|so\s+)?(?:my\s+)?home(?:\s+for\s+me)?\s+is\s+(?:now\s+)?(?-i:(?=[A-Z]))" + REST,
    # "we bought a flat in Maribor and moved there"
    S + r"(?:bought|rented|found|got|'ve bought|'ve found)\s+(?:a|an|our|my)\s+"
    r"(?:new\s+|own\s+|first\s+|little\s+)*(?:flat|apartment|house|place|home|condo)\s+in\s+"
    r"(?P<v>[^,;.!?]{1,120}?)\s++and\s+(?:have\s+|'ve\s+|just\s+)*moved\s+(?:in|there)\b",
    # "In three weeks I'll be in Berlin for good": a stay, not a visit.
    S
    + r"(?:'ll be|will be|be)\s+(?:living\s+)?in\s+(?=.{0,300}?\b(?:for good|permanently)\b)"
    + REST,
    # "back home in Osaka now and exhausted"
    r"(?:^|\bi'm\s+|\bim\s+|\bi\s+am\s+|\bfinally\s+)back\s+home\s+in\s+(?-i:(?=[A-Z]))"
    r"(?P<v>[^,;.!?]{1,60}?)\s+(?:now|again|at\s+last)\b",
)
# "i leave in Ljubljana now": "leave" for "live", as learners write it (a known place only:
# not "I leave in May").
LEAVE_IN = rx(S + r"leave\s+in\s+(?-i:(?=[A-Z]))" + REST)
BIRTHDAY = rx(
    r"\bmy\s+(?:birthday|bday|b-day|date of birth|dob|birth\s?date)(?:\s+is|'s|\s+falls)"
    r"(?:\s+actually|\s+really|\s+in\s+fact)?\s+" + REST,
    r"\bi(?:'m|\s+am)?\s+(?:turn|turning)\s+\d+\s+" + REST,
    r"\bi\s+was\s+born\s+" + REST,
    # A form's label or a message without its subject: "birthday 19 july 1985", "dob:
    # 3/4/90", "b. 1990-05-12", "born 11 Nov 1988", "birthday's on the 9th of november".
    r"^(?:(?:so|oh|and|also|btw|fyi)[,:]?\s+)*(?:my\s+)?(?:birthday|date\s+of\s+birth|dob|d\.o\.b\.?|"
    r"born(?:\s+on)?|b\.)(?:'s|\s+is)?\s*[:=-]?\s*(?:on\s+)?" + REST,
    r"^(?:i'm\s+|i\s+am\s+)?turning\s+\d+\s+" + REST,
)
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
LANGUAGE = rx(
    S + r"(?:speak|can speak|'m speaking|am speaking|'m fluent in|am fluent in|fluent in|"
    r"'m conversational in|'m bilingual in|'m proficient in|am proficient in|can get by in|"
    r"get by in)"
    r"\s+(?:fluent\s+|some\s+|a\s+little\s+|"
    r"a\s+bit\s+of\s+|basic\s+|native\s+)?" + REST,
    r"\bmy\s+(?:native\s+language|mother\s+tongue|first\s+language)\s+is\s+" + REST,
    # "i can finally hold a conversation in Korean"
    S + r"can\s+(?:(?:now|finally|actually|already)\s+)*(?:hold|have)\s+a\s+"
    r"(?:\w+\s+)?conversation\s+in\s+" + REST,
    I_AM + r"a\s+native\s+" + r"(?P<v>\w+)\s+speaker",
    r"^(?P<v>\w+)\s+is\s+my\s+(?:native\s+language|mother\s+tongue|first\s+language)",
    # "my japanese is pretty good now" (checked against the languages)
    r"\bmy\s+(?P<v>\w+)\s+is\s+(?:\w+\s+)?(?:good|fluent|decent|ok|okay|solid|passable|"
    r"conversational|native|great|excellent)\b",
)
SKILL = rx(
    I_AM
    + r"(?:really\s+|very\s+|pretty\s+|quite\s+)?(?:good at|good in|great at|great in|decent at|"
    r"good with|skilled (?:in|at)|not (?:too |that |half )?bad at|(?:a\s+)?whiz (?:at|with)|"
    r"a pro at|a dab hand at|ace at|strong in|competent (?:in|at|with)|comfortable with|"
    r"proficient (?:in|at|with)|an expert (?:in|on|at)|experienced (?:in|with)|"
    r"certified in|fluent in|handy with|trained in|qualified in)\s+" + REST,
    # "skills: bookkeeping, payroll", "my skills: ..."
    r"^(?:my\s+)?(?:key\s+|main\s+)?skills?\s*[:=-]\s*" + REST,
    S + r"(?:know how to|can code in|program in|code in|'ve been (?:programming|coding) in|"
    r"have experience (?:in|with)|"
    r"have \w+ years of experience (?:in|with))\s+" + REST,
    # "add crochet to my skills": the speaker's list of skills.
    r"^(?:(?:please|pls|also|and|oh)\s+)*add\s+(?P<v>[^,;.!?]{1,80}?)\s+to\s+(?:my|the)\s+"
    r"(?:list\s+of\s+)?skills?\b",
    S + r"know\s+(?!the\b|this\b|that\b|my\b|your\b|his\b|her\b|their\b|our\b)"
    r"(?P<v>[\w#+.' -]+?)\s+(?:(?:pretty\s+|really\s+|quite\s+|very\s+|fairly\s+)?well|"
    r"inside\s+out|back\s+to\s+front)\b",
    # "I know SQL too", "i also know Figma and Blender now": a tool known by name (checked in
    # skills()).
    S + r"know\s+(?P<v>[\w#+.-]+(?:\s+(?:and|&)\s+[\w#+.-]+)?)"
    r"(?:\s+(?:too|as\s+well|now|already|also))*\s*(?:$|[,.;!])",
)
# A craft by name after what one does to become good at it: "picked up pottery this year",
# "i do carpentry on the side", "also learned to solder" (checked in skills() against CRAFTS).
CRAFT = rx(
    r"(?:^|" + S + r")(?:(?:also|finally|recently|just|even)\s+)*"
    r"(?:(?:learned|learnt|taught\s+myself)\s+(?:how\s+)?to|picked\s+up|took\s+up|"
    r"taken\s+up|do|learned|learnt)\s+(?P<v>[\w-]+)\b"
)
# "I play the cello", "i can play guitar pretty well", "I can knit", "black belt in judo":
# an instrument or a craft one can do (checked against CRAFTS in skills()).
CAN_DO = rx(
    S + r"(?:can\s+|could\s+always\s+)?play\s+(?:the\s+)?(?P<v>[\w-]+)\b",
    S + r"can\s+(?:(?:also|actually|really)\s+)?(?P<v>[\w-]+)"
    r"(?=\s*+(?:$|[,.!;]|\s(?:well|really|pretty|quite|a\s+bit|a\s+little|too|now|decently|"
    r"properly|fluently|a\s+lot)\b))",
    r"\b(?:have|got|'ve\s+got|earned|a)\s+(?:my\s+|a\s+)?(?:\w+\s+)?belt\s+in\s+(?P<v>[\w-]+)",
)
# Years of making something with a tool: "I've been writing Excel macros for years".
PRACTISED = rx(
    S + r"been\s+(?:writing|coding|programming|building|making|designing|doing)\s+"
    r"(?P<v>[^,.;!?]{1,40}?)\s+for\s+(?:years|ages|decades|a\s+decade|a\s+long\s+time|"
    r"\d{1,2}\+?\s+years|(?:two|three|four|five|ten|many)\s+years)\b"
)
# "..., i'm pretty decent at it now": the craft the message names.
_GOOD_AT_IT = re.compile(
    r"\b(?:good|decent|great|better|not\s+bad|ok|okay|solid|handy)\s+at\s+(?P<it>it)\b", re.I
)


Rule = Callable[[str], list[Statement]]


def _trust(match: re.Match[str]) -> tuple[float, str]:
    """ "We work for Acme" may speak for a team the speaker is only presumably part of."""
    subject = match.groupdict().get("subj") or "i"
    return (HOUSEHOLD, "inferred") if subject.lower() == "we" else (EXPLICIT, "stated")


def _home_trust(match: re.Match[str]) -> tuple[float, str]:
    """ "We moved to Seoul": the speaker's household, the speaker in it; as good as "I"."""
    return EXPLICIT, "stated"


# Words before a job that are no part of its title: "a humble accountant".
_NOT_OF_THE_TITLE = frozenset(
    {"a", "an", "the", "new", "humble", "lowly", "mere", "simple", "proud", "now"}
)


def _title(raw: str) -> str | None:
    # Spaces read from a run's first one only ((?<!\s)): from each of a long run, quadratic.
    head = re.split(
        r"(?<!\s)\s+(?:at|for|with|in|and|since|from|on|who|but|so|now|these|nowadays|lately|not|"
        r"currently|today|this|next|tomorrow|starting|as of|by|until|too|over|living|based|"
        r"working|lol|haha|tbh|btw|still|here|there|@)\b"
        # "engineer of Google" names the employer; "Head of Data" is the title itself.
        + (r"|(?<!\s)\s+of\s+(?=[A-Z])" if not TITLE_HEADS.match(raw) else "")
        + r"|[,.;!?]",
        raw,
        maxsplit=1,
    )[0]
    words = head.split()
    # "a vegan accountant": the diet is no part of the job.
    while words and (words[0].lower() in _NOT_OF_THE_TITLE or words[0].lower() in DIETS):
        words = words[1:]
    if any(w.lower() in JUDGEMENTS for w in words):
        return None  # "a good cook", "a terrible driver": a judgement, not a job
    if not words or len(words) > 5:
        return None
    title = " ".join(words)
    last = words[-1].lower().strip(".")
    # "cardiologist", "statistician", "psychiatrist": the trades' own endings.
    if TITLE_HEADS.match(title) or last in JOB_WORDS or JOB_ENDINGS.search(last):
        return title.strip(".")
    return None


# "my manager at Lumen Freight keeps ...", "should i ask my boss at Acme for a raise?": a
# workplace of the speaker's own, taken for granted even in a question or a plan.
WORKPLACE = rx(
    r"\bmy\s+(?:(?:new|current|line)\s+)?(?:manager|boss|supervisor|team\s+lead|"
    r"coworkers?|co-workers?|colleagues?|workmates?)\s+(?:at|in)\s+(?-i:(?=[A-Z]))" + REST
)


def workplace(clause: str) -> list[Statement]:
    match = WORKPLACE[0].search(clause)
    value = match and proper_name(match.group("v"))
    if not match or not value or known_place(value) or value.lower() in COUNTRIES:
        return []
    return [said("employer", value, evidence_of(clause, match, value), EXPLICIT, "inferred")]


def employer(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in EMPLOYER:
        for match in pattern.finditer(clause):
            raw = match.group("v")
            if EMPLOYER_WORDS.match(raw):
                continue
            value = proper_name(raw, lenient=lenient)
            # "I work in Ikea", not "I work in Lyon": a place is no employer.
            if pattern is _WORK_IN and value and known_place(value):
                continue
            if value and value.lower() not in COUNTRIES:
                found = [said("employer", value, evidence_of(clause, match, value), *_trust(match))]
                # "at the Royal Infirmary in Edinburgh": where the speaker works, lives.
                rest = raw[raw.find(value) + len(value) :]
                return found + _home_after(clause, match, rest, lenient=lenient)
    return []


def job_title(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in JOB_TITLE:
        match = pattern.search(clause)
        if not match or match.groupdict().get("subj", "i").lower() == "we":
            continue
        title = _title(match.group("v"))
        if title is None:
            continue
        found = [said("job_title", title, evidence_of(clause, match, title), EXPLICIT)]
        rest = match.group("v")[match.group("v").find(title) + len(title) :]
        org = re.match(r"\A\s+(?:over\s+)?(?:at|for|with|of)\s+(.+)", rest, re.I)
        company = org and proper_name(org.group(1), lenient=lenient)
        if company and company.lower() not in COUNTRIES:
            evidence = clause[match.start() : clause.find(company, match.start()) + len(company)]
            found.append(said("employer", company, evidence, EXPLICIT))
        found += _home_after(clause, match, rest, lenient=lenient)
        return found
    return []


# Where a job is done, after the job: "a nurse in Cork", "a dentist living in Porto", "lab
# tech at X in Kumasi".
_WHERE_AFTER = re.compile(
    r"\A\s{0,3}(?:(?:at|for|with|@)\s[^,;.!?]{1,60}?\s)?(?:(?:here|now|currently)\s)?"
    r"(?:in|living in|based in|based out of|out of)\s+(?P<v>[^,;.!?]{1,80})",
    re.I,
)


def known_place(name: str, *, own_name: bool = False) -> bool:
    """A city or a country the gazetteer knows; ``own_name``: by the city's own name, not
    one of its other names (GeoNames knows Topeka as "Google" too)."""
    found = city(name)
    if found is not None and own_name:
        return found.name.casefold() == name.casefold() or country(name) is not None
    return found is not None or country(name) is not None


def _place_name(raw: str, *, lenient: bool) -> str | None:
    """The gazetteer's place ``raw`` starts with ("Cork, Ireland" -> "Cork", "san francisco
    till further notice" -> "san francisco"): the longest run of its first words that is
    one."""
    head = re.split(r"[,;.!?()]", raw, maxsplit=1)[0]
    words = re.split(r"\s+", head.strip(), maxsplit=4)[:4]
    for size in range(len(words), 0, -1):
        name = " ".join(words[:size]).strip(" '\"")
        capitalised = lenient or name[:1].isupper()
        if capitalised and name.lower() not in STOP_WORDS and known_place(name):
            return name
    return None


def _places(clause: str, value: str, raw_after: str, evidence: str) -> list[Statement]:
    """City ``value``, and its country when the text names it next ("Cork, Ireland")."""
    if value.lower() in COUNTRIES or (city(value) is None and country(value) is not None):
        return [said("country", value, evidence, EXPLICIT)]
    found = [said("city", value, evidence, EXPLICIT)]
    named = re.match(r"\A(?:,|\s+in)\s*(?:the\s+)?([^,.;!?]+)", raw_after)
    name = named and _place_name(named.group(1), lenient=True)
    if name and country(name) is not None and city(value) is not None:
        found.append(
            said(
                "country", name, evidence + raw_after[: raw_after.find(name) + len(name)], EXPLICIT
            )
        )
    return found


# A city typed in lower case in a text with capitals ("at the Royal Infirmary in edinburgh")
# is read only when it is a large one by its own name ("in march" is no town's).
_LOWERCASE_CITY_MIN_POPULATION = 100_000


def _large_city(raw: str) -> str | None:
    name = _place_name(raw, lenient=True)
    found = city(name) if name else None
    if name is None or found is None or found.name.casefold() != name.casefold():
        return None
    return name if found.population >= _LOWERCASE_CITY_MIN_POPULATION else None


def _home_after(clause: str, match: re.Match[str], rest: str, *, lenient: bool) -> list[Statement]:
    where = _WHERE_AFTER.match(rest)
    name = where and (
        _place_name(where.group("v"), lenient=lenient) or _large_city(where.group("v"))
    )
    if not where or not name:
        return []
    start = clause.find(name, match.start())
    evidence = clause[match.start() : start + len(name)] if start >= 0 else match.group(0)
    after = clause[start + len(name) :] if start >= 0 else ""
    return _places(clause, name, after, evidence)


# "I'm in Nairobi", "im in Da Nang now", "I'm in San Francisco till further notice": a stay
# in a place the gazetteer knows ("I'm in a meeting" is none), not a visit ("for a
# conference", "this week", "on holiday").
STAY = re.compile(
    I_AM + r"(?:now\s+|currently\s+|still\s+)?(?:back\s+)?(?:living\s+|staying\s+)?"
    r"in\s+(?!the\s|a\s|an\s)"
    r"(?P<v>[^,;.!?]{1,80})",
    re.IGNORECASE,
)
_VISIT = re.compile(
    r"\b(?:for\s+(?:the\s+|a\s+|an\s+|my\s+|work|business|\w+\s+(?:days|weeks|nights))|this\s+(?:week|weekend|month)|"
    r"today|tonight|tomorrow|on\s+(?:holiday|vacation|a\s+trip|business)|visiting|next\s+\w+|"
    r"until\s+(?!further)|till\s+(?!further)|at\s+the\s+moment|right now|over\s+the)\b",
    re.IGNORECASE,
)


# "I teach yoga in Ubud", "I work in Lyon": where the speaker works, in a place the
# gazetteer knows, at the clause's end.
WORK_PLACE = re.compile(
    S + r"(?:teach|work|'m teaching|'m working|am working|am teaching)\b[^,;.!?]{0,60}?\s"
    r"in\s+(?P<v>[^,;.!?]{1,60})",
    re.IGNORECASE,
)


_ONLY_NOW = re.compile(r"\s{0,3}(?:(?:now|these days|nowadays|full[- ]time|lol|haha)\s{0,3})?[.!]*")


# "we're in Hamburg now": a household's stay, only with the "now" that makes it a home.
_WE_STAY = re.compile(
    r"\bwe(?:'re|\s++are)\s++(?:now\s++|all\s++)?(?:living\s++|based\s++|settled\s++)?"
    r"in\s++(?!the\s|a\s|an\s)(?P<v>[^,;.!?]{1,80}?)\s++(?:now|these\s+days|nowadays|for\s+good)\b"
    r"(?![ \t]{0,3}(?:for|until|till|on|this|over|visiting)\b)",
    re.IGNORECASE,
)


def stay(clause: str) -> list[Statement]:
    match = STAY.search(clause) or _WE_STAY.search(clause)
    at_work = match is None
    match = match or WORK_PLACE.search(clause)
    if not match:
        return []
    lenient = is_lowercase_text(clause)
    name = _place_name(match.group("v"), lenient=lenient)
    if not name:
        return []
    end = match.start("v") + match.group("v").find(name) + len(name)
    after = match.group("v")[end - match.start("v") :]
    if _VISIT.search(after) or (at_work and not _ONLY_NOW.fullmatch(after)):
        return []
    after = clause[end:]
    return _places(clause, name, after, clause[match.start() : match.start("v") + len(name)])


def place(clause: str) -> list[Statement]:
    lenient = is_lowercase_text(clause)
    for pattern in PLACE + LEAVE_IN:
        match = pattern.search(clause)
        if not match:
            continue
        raw = match.group("v")
        # "based in mexico" in a text with capitals elsewhere: a place the gazetteer knows.
        value = proper_name(raw, lenient=lenient) or _place_name(raw, lenient=True)
        if not value or (pattern in LEAVE_IN and not known_place(value)):
            continue
        trust = _home_trust(match)
        evidence = evidence_of(clause, match, value)
        if value.lower() in COUNTRIES:
            return [said("country", value, evidence, *trust)]
        found = [said("city", value, evidence, *trust)]
        after = raw[raw.find(value) + len(value) :]
        country = re.match(r"\A(?:,|\s+in)\s*(?:the\s+)?([^,.;!?]+)", after)
        name = country and proper_name(country.group(1), lenient=lenient)
        if name and name.lower() in COUNTRIES:
            found.append(
                said("country", name, evidence + after[: after.find(name) + len(name)], *trust)
            )
        return found
    return []


# "3/4/90", "17/05", "03.04.1990": day first, as most of the world writes it (month first
# only when the day cannot be one).
_NUMERIC_DATE = re.compile(r"\A\s*(\d{1,2})[/.](\d{1,2})(?:[/.](\d{4}|\d{2}))?(?!\d)")


# "1992.08.17", "1992/8/17": year first.
_YEAR_FIRST_DATE = re.compile(r"\A\s*((?:19|20)\d\d)[/.](\d{1,2})[/.](\d{1,2})(?!\d)")


def _numeric_birthday(text: str) -> str | None:
    year_first = _YEAR_FIRST_DATE.match(text)
    if year_first:
        born, month_born, day_born = (int(g) for g in year_first.groups())
        valid = 1 <= month_born <= 12 and 1 <= day_born <= 31
        return f"{born}-{month_born:02d}-{day_born:02d}" if valid else None
    found = _NUMERIC_DATE.match(text)
    if not found:
        return None
    day, month = int(found.group(1)), int(found.group(2))
    if month > 12 and day <= 12:
        day, month = month, day
    if not (1 <= month <= 12 and 1 <= day <= 31):
        return None
    year = found.group(3)
    if year and len(year) == 2:
        year = f"19{year}" if int(year) > 30 else f"20{year}"
    return f"{year}-{month:02d}-{day:02d}" if year else f"--{month:02d}-{day:02d}"


# "it's my birthday today!!", "today is my bday", "it was my birthday yesterday": the day
# the message was written, give or take one.
_BIRTHDAY_ON = re.compile(
    r"\b(?:(?:it's|its|it\s+is|it\s+was|today\s+is|today's|tomorrow\s+is|yesterday\s+was)\s+"
    r"my\s+(?:birthday|bday|b-day)(?:\s+(?P<when>today|tomorrow|yesterday))?"
    r"|my\s+(?:birthday|bday|b-day)\s+(?:is|was)\s+(?P<when2>today|tomorrow|yesterday))\b"
    # Not "it's my birthday party tonight": a word of its own may follow only after a pause.
    r"(?!\s+(?-i:[a-z]))",
    re.IGNORECASE,
)
_DAYS_OFF = {"today": 0, "tomorrow": 1, "yesterday": -1}


def birthday_on(clause: str, now: datetime) -> list[Statement]:
    """A birthday said as a day near the message's: its month and day, without a year."""
    match = _BIRTHDAY_ON.search(clause)
    if not match:
        return []
    opening = match.group(0).split()[0].lower()
    when = (
        match.group("when")
        or match.group("when2")
        or (opening if opening in _DAYS_OFF else "today")
    )
    day = shifted(now, timedelta(days=_DAYS_OFF[when.lower()])).date()
    return [said("birthday", f"--{day.month:02d}-{day.day:02d}", match.group(0), EXPLICIT)]


def birthday(clause: str) -> list[Statement]:
    for pattern in BIRTHDAY:
        match = pattern.search(clause)
        value = match and (birthday_value(match.group("v")) or _numeric_birthday(match.group("v")))
        if match and value:
            # To the date's end: "my birthday is September 4th, not the 14th".
            head = re.split(r"[,;!?]|\.(?:\s|$)", match.group("v"), maxsplit=1)[0]
            evidence = clause[match.start() : match.start("v") + len(head)]
            return [said("birthday", value, evidence, EXPLICIT)]
    return []


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


def languages(clause: str) -> list[Statement]:
    for pattern in LANGUAGE:
        match = pattern.search(clause)
        if not match:
            continue
        # "a little French", "fluent Spanish": the language is the item's last word.
        spoken = match.group("v").split(":", 1)[-1]  # "three languages: English, ..."
        items = []
        for item in listed(spoken, max_words=4):
            words = item.split()
            # "uzbek russian and english": languages listed with spaces only.
            known = [w for w in words if w.lower() in LANGUAGES]
            items += known if len(known) == len(words) else words[-1:]
        values = [v for v in items if v.lower() in LANGUAGES]
        return [said("language", v, evidence_of(clause, match, v), LIKELY) for v in values]
    return []


def _may_be_someone(value: str) -> bool:
    """A capitalised word that is no language or known tool may be a person's name."""
    words = value.split()
    return (
        len(words) <= 2
        and all(w[:1].isupper() and w.isalpha() for w in words)
        and value.lower() not in LANGUAGES | TOOLS
    )


_OWNED_WORD = re.compile(r"\b(?:my|our|their|his|her|your)\b", re.I)


def skills(clause: str) -> list[Statement]:
    for pattern in SKILL:
        match = pattern.search(clause)
        if not match:
            continue
        found = []
        # "fluent in sarcasm and emoji": fluent only in a language (languages()) or a tool.
        fluent = "fluent" in match.group(0).lower()
        for value in listed(match.group("v"), max_words=4):
            if pattern is SKILL[-2] and _may_be_someone(value):
                continue  # "I know Tom really well": a person, not a skill
            if (pattern is SKILL[-1] or fluent) and value.lower() not in TOOLS:
                continue  # "I know Tom": only a tool known by name is a skill
            if _OWNED_WORD.search(value):
                continue  # "good at carpentry, built our kitchen table": what it made

            predicate = "language" if value.lower() in LANGUAGES else "skill"
            found.append(said(predicate, value, evidence_of(clause, match, value), 0.8))
        return found
    return _crafts(clause)


def craft(word: str) -> str | None:
    """The craft ``word`` names ("pottery", "solder" -> "soldering"), or None."""
    word = word.lower()
    if word in CRAFTS:
        return word
    return CRAFT_VERBS.get(word)


def _crafts(clause: str) -> list[Statement]:
    for index, pattern in enumerate(CAN_DO):
        can = pattern.search(clause)
        word = can and can.group("v")
        # A belt is in a martial art: any word; the rest name an instrument or a craft.
        name = word and (word.lower() if index == len(CAN_DO) - 1 else craft(word))
        if can and word and name:
            return [said("skill", name, evidence_of(clause, can, word), 0.8)]
    match = CRAFT[0].search(clause)
    if match:
        name = craft(match.group("v"))
        learned = "to" in match.group(0).lower().split()
        # "learned to solder" names the craft by its verb; "picked up pottery" by its noun.
        if name and (learned or match.group("v").lower() in CRAFTS):
            return [said("skill", name, evidence_of(clause, match, match.group("v")), 0.8)]
    match = PRACTISED[0].search(clause)
    if match:
        value = match.group("v").strip()
        words = value.lower().split()
        if any(w in TOOLS for w in words) or (len(words) == 1 and craft(words[0])):
            return [said("skill", value, evidence_of(clause, match, value), 0.8)]
    return []


def with_craft_named(clause: str, message: str) -> str:
    """ "crochet update: made a blanket, i'm actually good at it now": the "it" the one craft
    the message names, written out, so that the clause reads as a skill."""
    match = _GOOD_AT_IT.search(clause)
    if not match:
        return clause
    named = {c for w in re.findall(r"[\w-]+", message) if (c := craft(w)) and w.lower() in CRAFTS}
    if len(named) != 1:
        return clause
    return clause[: match.start("it")] + named.pop() + clause[match.end("it") :]


# "we're leaving Tallinn for Tartu", "I left Google for Meta": the new value replaces the one
# named, whichever slot holds it.
SWAP = rx(
    S + r"(?:'re|'m|are|am)?\s*(?:leaving|left|'ll leave|will leave|leave|swapping|swapped|"
    r"trading|traded|ditching|ditched|quitting|quit)\s+(?:the\s+)?"
    r"(?-i:(?P<old>[A-Z][\w'.-]*(?:\s+[A-Z][\w'.-]*)*))\s+for\s+(?:the\s+)?" + REST
)


def swaps(clause: str) -> list[Statement]:
    for match in SWAP[0].finditer(clause):
        value = proper_name(match.group("v"), lenient=is_lowercase_text(clause))
        if not value or value.lower() in NOT_A_VALUE_AFTER_FOR:
            continue
        evidence = evidence_of(clause, match, value)
        place = "country" if value.lower() in COUNTRIES else "city"
        return [
            replace(said("employer", value, evidence, *_trust(match)), ended=match.group("old")),
            replace(said(place, value, evidence, *_home_trust(match)), ended=match.group("old")),
        ]
    return []


# Every rule for a clause that states something; birthday runs apart (it is about the past).
STATEMENT_RULES: list[Rule] = [
    employer,
    workplace,
    job_title,
    place,
    stay,
    contact,
    relationships,
    diet,
    likes,
    languages,
    skills,
    children,
    pets,
]
