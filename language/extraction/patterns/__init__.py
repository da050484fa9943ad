"""The patterns of first-person statements, one function per predicate family. Each takes
a clause (already cleared of traps) and returns the statements it makes.

- work.py: the employer and the job title ("I work at Shopify", "got promoted to team lead");
- home.py: the city and the country ("I live in Lyon", "we moved to Seoul", "I'm in Nairobi");
- birthdays.py: the birthday, as a date or as a day near the message's ("it's my bday!!");
- preferences.py: likes, dislikes and diet;
- abilities.py: languages, skills and crafts;
- left_for.py: an employer or a place left for another ("I left Google for Meta").

The people of the speaker's life are read in language/extraction/people, contacts in
language/extraction/contacts.py."""

from collections.abc import Callable

from language.extraction.contacts import contact
from language.extraction.patterns.abilities import languages, skills, with_craft_named
from language.extraction.patterns.birthdays import birthday, birthday_on
from language.extraction.patterns.home import place, stay
from language.extraction.patterns.left_for import swaps
from language.extraction.patterns.preferences import diet, dislikes, likes
from language.extraction.patterns.work import employer, job_title, workplace
from language.extraction.people import children, pets, relationships
from language.extraction.statements import Statement

__all__ = [
    "STATEMENT_RULES",
    "Rule",
    "birthday",
    "birthday_on",
    "dislikes",
    "swaps",
    "with_craft_named",
    "workplace",
]

Rule = Callable[[str], list[Statement]]

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
