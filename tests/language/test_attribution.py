"""Whose words a message holds: a pasted email, a forward, a draft for someone else or a
quotation is never the user speaking about themselves; the user's own words around it
(and their own signature) are."""

import time

import pytest

from language.attribution import attribute, own_words

# (message, words of someone else that must be gone, the user's own words that must stay)
NOT_THE_USERS = [
    (
        "Thanks, will do!\n\nOn Mon, 3 Jun 2030 at 10:02, Ana Silva <ana@x.org> wrote:\n"
        "> I work at Google now and live in Porto",
        ["Google", "Porto"],
        ["Thanks, will do!"],
    ),
    ("lol look what he sent\n> I'm a vegan now\n> moved to Oslo", ["vegan", "Oslo"], ["lol"]),
    (
        "see below\n---------- Forwarded message ---------\nFrom: Tom <t@x.com>\nDate: Mon\n"
        "Subject: hi\n\nI live in Rome now.\n--\nTom Baker\nSenior Engineer, Acme",
        ["Rome", "Senior Engineer", "Acme"],
        ["see below"],
    ),
    ("Fwd: news\n\nHi all, I started at Acme today and moved to Leeds.", ["Acme", "Leeds"], []),
    (
        "-----Original Message-----\nFrom: HR <hr@acme.com>\nSent: Monday\nI am the new CFO.",
        ["CFO"],
        [],
    ),
    (
        "ugh\nFrom: Maria <m@x.es>\nTo: team@x.es\nSubject: update\n\nI'm moving to Madrid.",
        ["Madrid"],
        ["ugh"],
    ),
    ("can you check my reply: 'Hi, I'm the new manager at Tesco'", ["Tesco"], ["check my"]),
    (
        "here's the bio I wrote for my sister: Maria is a nurse at St Mary's and lives in Cork.",
        ["nurse", "Cork"],
        ["my sister"],
    ),
    ("proofread this for my mum pls: I am a retired teacher from Sevilla", ["Sevilla"], []),
    ('my boss said: "I\'m moving to Berlin next month"', ["Berlin"], ["my boss"]),
    ("he texted: i work at the bakery on king street now", ["bakery"], ["he texted"]),
    (
        "i'm in madrid and work at bbva, can u proofread this for my mum: I am a teacher from"
        " Sevilla",
        ["Sevilla", "teacher"],
        ["madrid", "bbva"],
    ),
]


@pytest.mark.parametrize(("text", "gone", "kept"), NOT_THE_USERS)
def test_what_is_someone_elses_is_taken_out(text, gone, kept):
    reading = attribute(text)
    for words in gone:
        assert words not in reading.own, (text, reading.own)
        assert any(words in other for other in reading.others)
    for words in kept:
        assert words in reading.own


OWN = [
    "fyi: I moved to Lisbon",
    "note: i'm vegan now",
    'we got a cat called "Mochi" lol',
    "I said: I'm moving to Berlin",
    "please use my new email from now on: t.okafor@example.com",
    # The user's own signature.
    "Best,\n--\nPriya Shah\nHead of Design, Lumen Ltd\n+44 20 7946 0018",
    "I'm in Madrid and work at BBVA",
    "I can't wait 'cause I'm moving to Porto",
]


@pytest.mark.parametrize("text", OWN)
def test_the_users_own_words_are_kept(text):
    assert own_words(text) == text
    assert attribute(text).others == ()


def test_attribution_is_linear_on_long_hostile_text():
    for piece in (
        '"' + "a " * 10,
        "On x wrote:" * 3 + "\n",
        "> " * 50 + "\n",
        "can you check my reply to him about ",
        "'x " * 20,
    ):
        text = (piece * (20_000 // len(piece) + 1))[:20_000]
        started = time.perf_counter()
        own_words(text)
        assert time.perf_counter() - started < 0.5, piece
