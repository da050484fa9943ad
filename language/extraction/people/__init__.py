"""The people and animals of the speaker's life: spouse, partner, children, pets.

They count only with a name, read the ways people write it: after the word for them ("my son
jake", "my wife, Priya", "hubby (Rangi)", "my dog's name is Rex", "my kids are tane and
mere"), before it ("Farida, my wife", "Lola (my parrot)"), in a list of an introduction
("married to Declan, one daughter, Niamh", "mum of Timur and Dana"), or in the next clause or
sentence ("we got a kitten, named him Chorizo"). Only the speaker's own: "my friend's son
Leo" names nobody of theirs.

- words.py: the words for them, and the patterns that find them said as the speaker's own;
- names.py: a name, read where the word for them leaves off;
- relatives.py: a relative or a pet named after the word for them ("my son jake");
- name_first.py: named before it ("Farida, my wife");
- couples.py: a spouse or a partner named with a verb ("married to Declan");
- parenthood.py: the speaker as their parent ("mum of Timur and Dana"), a birth, a litter;
- unnamed.py: the name said later of one said without ("we got a dog! his name is Bongo");
- rules.py: the three rules (relationships, children, pets) over one clause, read once."""

from language.extraction.people.names import nationality
from language.extraction.people.rules import children, pets, presupposed, relationships
from language.extraction.people.unnamed import named_later
from language.extraction.people.words import is_unnamed

__all__ = [
    "children",
    "is_unnamed",
    "named_later",
    "nationality",
    "pets",
    "presupposed",
    "relationships",
]
