"""The speaker's relatives and pets in a dependency parse (language.parse): the words for
them ("hubby", "dogs"), whether the speaker owns one ("my son", "we adopted a kitten"), and
the names the grammar joins to it ("my son jake", "my kids are Noa and Eli", "Meet Kiwi, my
budgie"); with the clause helpers that structure.py shares (a clause's head, subject,
negation or supposition)."""

import re

from language.extraction.statements import LIKELY, Statement, statement
from language.extraction.vocabulary import PET_SPECIES, STOP_WORDS
from language.parse import Parse, Token


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


_SPOUSE = frozenset({"wife", "husband", "spouse", "hubby", "wifey", "hubs", "missus", "missis"})
_PARTNER = frozenset(
    {"boyfriend", "girlfriend", "partner", "fiance", "fiancé", "fiancee", "fiancée", "bf", "gf"}
)
_CHILD = frozenset(
    {"son", "daughter", "kid", "child", "baby", "stepson", "stepdaughter", "children", "twins"}
)
FIRST_PERSON = frozenset({"i", "we", "me", "us"})
OWNERS = frozenset({"my", "our"})
# A relative or pet the speaker had, not has: "my late husband", "our old dog".
_FORMER = frozenset(
    {"late", "old", "last", "former", "previous", "ex", "first", "dead", "childhood", "school"}
)
# A clause about the death or loss of the one it names: "our dog Rex died", "we lost our
# cat Tom" ("my son Ravi lost his first tooth" is no loss of Ravi).
_DEATH = frozenset({"die", "pass", "divorce", "separate", "split"})
_LOSS = frozenset({"lose", "bury", "miss", "mourn", "put", "leave"})
# Verbs by which the speaker comes to have one: "we adopted a kitten called Pixel".
_HAVING = frozenset(
    {"have", "get", "adopt", "rescue", "welcome", "bring", "buy", "take", "meet", "introduce"}
)
# Nouns that follow a pet's or child's word without naming it: "my dog food", "my son's
# school", "my baby shower".
_NOT_NAMES = words(
    """food walker bed toy toys sitter school shower bottle stroller seat room park friend
    friends teacher class clothes vet insurance hair bowl house cage tank brother sister care
    daycare birthday party stuff things photo photos pics pictures years months weeks days
    name names lead leash crate collar treats breed hospital doctor mom mum dad mother father
    sitting walk walks today yesterday tonight now too also though lol haha omg btw here
    there boy girl boys girls man woman guy lady one twin practice game match lesson
    lessons club team coach homework appointment tbh imo lol lmao btw omg smh rn ngl idk fyi
    irl pls plz thx haha hehe xd asap"""
)
# Words for a relative that chat uses without "my" only for one's own: "hubby (Rangi)",
# "bf Cian", "wife's name is ..."; "baby Musa arrived" may be anyone's.
KIN_WORDS = _SPOUSE | _PARTNER | _CHILD | PET_SPECIES | {"kids"}
_BARE = _SPOUSE | _PARTNER | frozenset({"son", "daughter", "stepson", "stepdaughter"})
# Words that are no one's name: "my husband is great", "the kids are fine".
_NOT_PERSON_POS = frozenset(
    {"PRON", "DET", "ADP", "AUX", "VERB", "CCONJ", "SCONJ", "NUM", "PART", "PUNCT", "SYM", "ADV"}
)
_MODALS = frozenset({"would", "could", "might", "should", "'d", "may", "must"})
_SUPPOSING = frozenset({"if", "unless", "whether", "suppose", "imagine"})
_CLAUSE_DEPS = frozenset({"ROOT", "ccomp", "advcl", "conj", "relcl", "xcomp", "parataxis", "acl"})
# "Meet Kiwi", "Say hi to Rangi": capitalised words before a name that are not its part.
_GREETINGS = frozenset({"meet", "say", "hi", "hello", "hey", "welcome", "this", "dear"})
_NAME_CHARS = re.compile(r"^[^\W\d_][\w'-]{0,30}$")


def kin(token: Token) -> str | None:
    """The predicate of a word for a relative or a pet: "hubby" spouse, "dogs" pet."""
    word = token.lower.strip(".")
    for form in (word, word[:-1] if word.endswith("s") else word, token.lemma.lower()):
        if form in _SPOUSE:
            return "spouse"
        if form in _PARTNER:
            return "partner"
        if form in _CHILD or form in {"kids"}:
            return "child"
        if form in PET_SPECIES:
            return "pet"
    return None


_NOT_BAD = re.compile(r"not\s+(?:too\s+|that\s+|half\s+)?bad\b", re.IGNORECASE)


class Reader:
    def __init__(self, parse: Parse, lowercase: bool) -> None:
        self.parse = parse
        self.lowercase = lowercase

    # --- names -----------------------------------------------------------------------
    def name(self, token: Token, *, strict: bool) -> str | None:
        """``token`` as a name, with a hyphenated part ("mei-ling") and a capitalised first
        name before it; None when it is no name. ``strict``: only a capitalised word, or a
        proper noun in a text typed all in lowercase."""
        text = token.text
        if len(text) < 2 or not _NAME_CHARS.match(text) or token.pos in _NOT_PERSON_POS:
            return None
        lower = text.lower()
        if lower in STOP_WORDS or lower in FIRST_PERSON or lower in _NOT_NAMES or kin(token):
            return None
        capitalised = text[0].isupper()
        if not capitalised:
            if not self.lowercase:
                return None  # the writer capitalises names: a lowercase word is a word
            if strict and token.pos != "PROPN":
                return None
            if token.tag in {"NNS", "NNPS", "JJR", "JJS", "VBG"}:
                return None
        elif token.tag in {"NNS"} and not text[1:].islower():
            return None
        return self._joined(token)

    def _joined(self, token: Token) -> str:
        tokens = self.parse.tokens
        first = last = token.i
        # "mei-ling": the parts a hyphen joins without a space.
        while (
            last + 2 < len(tokens)
            and tokens[last + 1].text == "-"
            and tokens[last + 1].start == tokens[last].end
            and tokens[last + 2].start == tokens[last + 1].end
        ):
            last += 2
        while (
            first >= 2
            and tokens[first - 1].text == "-"
            and tokens[first - 1].end == tokens[first].start
            and tokens[first - 2].end == tokens[first - 1].start
            and not kin(tokens[first - 2])
        ):
            first -= 2
        # "my wife Ana Lucía": a capitalised first name before a capitalised surname.
        before = tokens[first - 1] if first else None
        if (
            before is not None
            and token.text[0].isupper()
            and before.dep == "compound"
            and before.head == token.i
            and before.text[:1].isupper()
            and before.pos == "PROPN"
            and before.lower not in _GREETINGS
            and not kin(before)
            and before.lower not in STOP_WORDS
        ):
            first -= 1
        return self.parse.text[tokens[first].start : tokens[last].end]

    def with_conjuncts(self, token: Token, *, strict: bool) -> list[Token]:
        """``token`` and the names coordinated with it: "Mateus, Inês and Beatriz"."""
        found, pending = [token], [token]
        while pending and len(found) < 8:
            for child in self.parse.children(pending.pop(), "conj"):
                if self.name(child, strict=strict):
                    found.append(child)
                    pending.append(child)
        return found

    # --- clauses -----------------------------------------------------------------------
    def clause_head(self, token: Token) -> Token:
        """The verb (or copula) whose clause holds ``token``."""
        for above in [token, *self.parse.ancestors(token)]:
            if above.pos in {"VERB", "AUX"} and above.dep in _CLAUSE_DEPS:
                return above
            if above.dep == "ROOT":
                return above
        return token

    def unreal(self, head: Token, before: int | None = None) -> bool:
        """A negated or supposed clause: "I don't have a dog called Rex", "I'd work at ...".
        A negation from character ``before`` on denies what follows, not what came first:
        "my birthday is the 4th, not the 14th"."""
        for clause in [head, *self._governors(head)]:
            kids = self.parse.children(clause)
            # Only a verb's negation denies its clause: in "not Slovenia, Slovakia" the "not"
            # is the word it denies, the value said against it stands.
            verb = clause.pos in ("VERB", "AUX")
            if verb and any(
                k.dep == "neg" and (before is None or k.start < before) and not self._modest(k)
                for k in kids
            ):
                return True
            if any(k.dep == "aux" and k.lower in _MODALS for k in kids):
                return True
            if any(k.dep == "mark" and k.lower in _SUPPOSING for k in kids):
                return True
        return False

    def _modest(self, negation: Token) -> bool:
        """ "I'm not bad at chess": praise said modestly, no denial."""
        return bool(_NOT_BAD.match(self.parse.text, negation.start))

    def was_named(self, head: Token) -> bool:
        """ "my boyfriend was called Dylan", "our dog was Rex": a name that was."""
        if head.lemma.lower() not in {"be", "call", "name"}:
            return False
        verbs = [head, *self.parse.children(head, "aux", "auxpass")]
        return any(v.tag == "VBD" for v in verbs)

    def _governors(self, head: Token) -> list[Token]:
        """The clauses ``head``'s clause hangs from by coordination: "I'd move to Oslo and
        work at Equinor" is supposed in both."""
        found: list[Token] = []
        # Only a verb that shares the subject of the one before: "I'm not a morning person,
        # but I do love hikes" has its own, and the first one's "not" is none of its.
        while head.dep == "conj" and len(found) < 10:
            if self.parse.children(head, "nsubj", "nsubjpass", "expl"):
                break
            head = self.parse.head(head)
            found.append(head)
        return found

    def subject(self, head: Token) -> Token | None:
        for clause in [head, *self._governors(head)]:
            subjects = self.parse.children(clause, "nsubj", "nsubjpass", "expl")
            if subjects:
                # "My partner Alexei and I live ...": the parse may give the verb two.
                mine = [s for s in subjects if s.lower in FIRST_PERSON]
                return (mine or subjects)[0]
            if clause.dep != "conj":
                break
        return None

    def first_person(self, subject: Token | None) -> bool:
        """I, we, "Mia and I"; a missing subject is the speaker's ("got a dog called Rex")."""
        if subject is None:
            return True
        # "My partner Alexei and I": the speaker anywhere among the coordinated subjects.
        words = {t.lower for t in self.parse.subtree(subject) if t.dep in {"conj", "appos"}}
        return bool(({subject.lower} | words) & FIRST_PERSON)

    # --- relatives and pets ----------------------------------------------------------
    def owned(self, noun: Token) -> bool:
        """The speaker's own: "my son", "our dogs", a bare "hubby", "we adopted a kitten"."""
        kids = self.parse.children(noun)
        if noun.dep == "compound":
            # "my tortoise gerald", "my dogs name": the owner belongs to the head.
            kids += self.parse.children(self.parse.head(noun))
        if any(k.lower in _FORMER for k in kids if k.dep in {"amod", "compound", "advmod"}):
            return False
        owners = [k for k in kids if k.dep == "poss"]
        if owners:
            return owners[0].lower in OWNERS
        determiners = [k for k in kids if k.dep in {"det", "nummod"}]
        if not determiners:
            # "wife's name is Siobhán", "hubby (Rangi) is cooking": chat leaves "my" out,
            # but "the mother of the son" or "for kids" is nobody's.
            return noun.dep not in {"pobj", "conj"} and noun.lower in _BARE
        if any(d.lower not in {"a", "an"} for d in determiners if d.dep == "det"):
            return False  # "the dog", "that kid", "this baby": nobody's in particular
        if noun.dep != "dobj":
            # "2 kids, a dog called Rolo" (a list with no verb) is the speaker's; "a dog
            # called Rex bit me" is a dog.
            head = self.clause_head(noun)
            return head.pos not in {"VERB", "AUX"} or self.first_person(self.subject(head))
        verb = self.parse.head(noun)
        while verb.dep in {"conj", "appos"} and verb.head != verb.i:
            verb = self.parse.head(verb)
        if noun.dep not in {"dobj", "appos", "conj"} and verb.pos != "VERB":
            return False
        if verb.lemma.lower() == "have" and verb.tag == "VBD" and kin(noun) == "pet":
            return False  # "we had a cat called Smudge growing up"
        if verb.dep == "xcomp" and self.parse.head(verb).lower in {"used", "use", "usta"}:
            return False  # "we used to have a cat called Tigger"
        return verb.lemma.lower() in _HAVING and self.first_person(self.subject(verb))

    def named(self, noun: Token) -> list[tuple[Token, bool]]:
        """The words that name ``noun``, each with whether a name there must look like one
        (capitalised, or a proper noun in lowercase text)."""
        parse = self.parse
        found: list[tuple[Token, bool]] = []
        for child in parse.children(noun, "appos"):
            # Right beside the noun ("my son, Jake", "3 kids: Mateus"): a word the parse
            # hangs there from further on is a misreading ("my wife and her sister love
            # sushi" is no wife named Sushi).
            own = {t.i for t in parse.subtree(child)}
            between = parse.tokens[noun.i + 1 : child.i]
            if all(t.pos == "PUNCT" or t.i in own for t in between):
                found.append((child, False))
        # "my tortoise gerald", "my budgie kiwi": the noun as the name's modifier.
        head = parse.head(noun)
        if noun.dep == "compound" and head.i == noun.i + 1 and head.lemma.lower() != "name":
            found.append((head, False))
        # "my son Jake": the word right after, whatever the parse made of it.
        following = parse.tokens[noun.i + 1] if noun.i + 1 < len(parse.tokens) else None
        if following is not None and following.text == "(" and noun.i + 2 < len(parse.tokens):
            following = parse.tokens[noun.i + 2]
        if following is not None and following.head in {noun.i, head.i}:
            found.append((following, True))
        # "a dog called Rolo", "a son named mateo".
        for acl in parse.children(noun, "acl"):
            if acl.lower in {"called", "named"}:
                found += [
                    (k, False) for k in parse.children(acl, "oprd", "attr", "dobj", "npadvmod")
                ]
                after = parse.tokens[acl.i + 1] if acl.i + 1 < len(parse.tokens) else None
                if after is not None:
                    found.append((after, False))
        # "my cat is called mochi", "the husband is Tomas", "my kids are Noa and Eli".
        if noun.dep in {"nsubj", "nsubjpass"} and head.lemma.lower() in {"be", "call", "name"}:
            strict = head.lemma.lower() == "be"
            for said in parse.children(head, "attr", "oprd", "acomp", "dobj"):
                # "is called Dmitri btw": the parse may hang the name on the word after it.
                found += [(k, strict) for k in parse.children(said, "compound")]
                found.append((said, strict))
        # "my dog's name is Rex", "my labradors name is Chutney".
        if noun.dep in {"poss", "compound"} and head.lemma.lower() == "name":
            copula = parse.head(head)
            if head.dep == "nsubj" and copula.lemma.lower() == "be":
                found += [(k, False) for k in parse.children(copula, "attr", "acomp")]
        return found

    def names_of(self, noun: Token, predicate: str) -> list[tuple[str, Token]]:
        named: list[tuple[str, Token]] = []
        for token, strict in self.named(noun):
            if self.name(token, strict=strict) is None:
                continue
            many = predicate in {"child", "pet"}
            for each in self.with_conjuncts(token, strict=strict) if many else [token]:
                value = self.name(each, strict=strict)
                if value and all(v != value for v, _ in named):
                    named.append((value, each))
            break
        return named

    def introduced(self, noun: Token) -> Token | None:
        """ "Meet Kiwi, my budgie", "This is Farida, my wife", "Lola (my parrot)",
        "Anton is my husband": a capitalised name the owned noun stands beside."""
        parse = self.parse
        head = parse.head(noun)
        if noun.dep == "appos" and head.pos in {"PROPN", "NOUN"}:
            return head
        if noun.dep == "attr" and head.lemma.lower() == "be":
            subjects = parse.children(head, "nsubj")
            return subjects[0] if subjects else None
        return None


def _ends(head: Token, noun: Token) -> bool:
    lemma = head.lemma.lower()
    return lemma in _DEATH or (lemma in _LOSS and noun.dep not in {"nsubj", "compound", "appos"})


def relatives(parse: Parse, lowercase: bool) -> list[Statement]:
    """The speaker's relatives and pets that the parse names."""
    reader = Reader(parse, lowercase)
    found: list[Statement] = []
    for noun in parse.tokens:
        predicate = kin(noun)
        if predicate is None or not reader.owned(noun):
            continue
        if noun.pos not in {"NOUN", "PROPN"} and not (noun.pos == "ADJ" and noun.dep == "compound"):
            continue
        head = reader.clause_head(noun)
        if reader.unreal(head) or _ends(head, noun) or reader.was_named(head):
            continue
        names = reader.names_of(noun, predicate)
        intro = reader.introduced(noun)
        if not names and intro is not None and intro.text[:1].isupper():
            value = reader.name(intro, strict=True)
            names = [(value, intro)] if value else []
        if predicate in {"spouse", "partner"}:
            names = names[:1]
        for value, token in names:
            start = min(noun.start, token.start)
            end = max(noun.end, token.end)
            evidence = parse.text[start:end]
            found.append(statement(predicate, value, evidence, LIKELY))
    return found
