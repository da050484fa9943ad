#!/usr/bin/env python
"""Build the labelled clauses the clause classifier (language/extraction/classifier.py) learns
from, embed them with the local model and fit a softmax regression over the sentence vector.

The data is generated here from templates and word lists written for it, plus hand-written
clauses (HAND below); nothing comes from bench/facts_quality. Every clause is labelled with
the predicate it states about the speaker, or "none": other people, jokes and sarcasm,
hypotheticals, questions, plans without a date, negations, reported speech, small talk.

    PYTHONPATH=$PWD .venv/bin/python scripts/train_clause_classifier.py
    PYTHONPATH=$PWD .venv/bin/python scripts/train_clause_classifier.py --limit 40 --out /tmp/c.npz

Seeded and deterministic: the same arguments write the same weights. Prints the held-out
accuracy on a split of the generated clauses (the split is by template, so a held-out clause
is worded as no training clause is).
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

PREDICATES = (
    "employer",
    "job_title",
    "city",
    "country",
    "email",
    "phone",
    "birthday",
    "spouse",
    "partner",
    "diet",
    "likes",
    "dislikes",
    "language",
    "skill",
    "child",
    "pet",
)
CLASSES = (*PREDICATES, "none")

# Word lists: made up for this script (companies real and invented, places of every size).
COMPANY = """Google|Shopify|Acme Corp|Deloitte|Stripe|Northwind Labs|Zalando|Siemens|Bluefin
Analytics|Kettle & Co|Monzo|the city council|Ikea|Spotify|Nokia|a small design studio|Accenture
|Rivertech|Unilever|Orbital Foods|Canva|Atlassian|Red Cedar Health|Mercado Libre|Rakuten|Philips
|Greenleaf Bakery|Tata Consultancy|Hollow Pine Games|Airbus|the local hospital|BBVA|Pinewood
Schools|Datadog|Figma|Lumen Legal|Vodafone|Heineken|Octopus Energy|Brightwave|Nimbus Cloud
|Stellar Robotics|McKinsey|Salesforce|Wix|Klarna|Revolut|Bosch|Sony|Novartis|Grab|Flipkart
|Infosys|Etsy|Duolingo|a startup called Quillo|Harbor & Finch|Bakerloo Dental|Tesco|Ocado"""
TITLE = """software engineer|nurse|product manager|data scientist|teacher|graphic designer
|accountant|barista|senior developer|UX researcher|chef|head of marketing|dentist|electrician
|project manager|pharmacist|civil engineer|lawyer|paralegal|sales rep|DevOps engineer|architect
|vet|physiotherapist|journalist|copywriter|QA tester|CTO|team lead|backend dev|HR manager
|financial analyst|librarian|social worker|pilot|tattoo artist|mechanic|translator|line cook
|product designer|staff engineer|research scientist|school counselor|web developer|midwife"""
CITY = """Lisbon|Berlin|Toronto|Austin|Melbourne|Nairobi|Osaka|Bogotá|Kraków|Leeds|Porto|Denver
|Montreal|Lyon|Seattle|Dublin|Auckland|Cape Town|Manchester|Rotterdam|Gothenburg|Valencia
|Hamburg|Chicago|Boston|Edinburgh|Bristol|Munich|Vienna|Prague|Budapest|Athens|Seoul|Taipei
|Hanoi|Lima|Quito|Accra|Lagos|Cairo|Istanbul|Tbilisi|Vancouver|Calgary|Perth|Brisbane|Kyoto
|São Paulo|Mexico City|Buenos Aires|Oslo|Helsinki|Tallinn|Riga|Zurich|Geneva|Milan|Naples
|Seville|Bilbao|Marseille|Utrecht|Antwerp|Cork|Glasgow|Cardiff|Phoenix|Portland|Nashville"""
COUNTRY = """Portugal|Germany|Canada|Japan|Brazil|Kenya|Norway|Spain|Italy|France|Ireland
|New Zealand|Australia|Mexico|Chile|Argentina|Poland|the Netherlands|Belgium|Sweden|Finland
|Denmark|Greece|Turkey|Vietnam|Thailand|South Korea|India|Nigeria|Ghana|Egypt|Morocco|Peru
|Colombia|the UK|the US|Scotland|Austria|Switzerland|Czechia|Estonia|Georgia|Indonesia"""
FIRST = """Anna|Ben|Carlos|Dana|Elif|Farid|Greta|Hiro|Ines|Jonas|Kemi|Liam|Maya|Nils|Olu
|Priya|Quinn|Rosa|Sami|Tomás|Uma|Viktor|Wen|Ximena|Yusuf|Zoe|Marco|Lena|Aisha|Diego|Freya
|Hugo|Ivy|Jack|Kai|Leila|Mateo|Nora|Oscar|Pia|Rafael|Sofia|Theo|Vera|Will|Yara|Emil|Chloe"""
PET_NAME = """Biscuit|Luna|Max|Pepper|Mochi|Rex|Nala|Ziggy|Olive|Bruno|Pickles|Tofu|Ginger|Milo
|Coco|Shadow|Noodle|Basil|Peanut|Otis|Juniper|Waffles|Kiwi|Sprout"""
SPECIES = "dog|cat|puppy|kitten|rabbit|hamster|parrot|gecko|tortoise|guinea pig|ferret|budgie"
DIET = """vegan|vegetarian|pescatarian|keto|gluten-free|plant-based|dairy-free|halal|kosher
|paleo|lactose intolerant|on a low-carb diet"""
THING = """sushi|hiking|jazz|board games|bouldering|spicy food|horror movies|gardening|coffee
|running|k-pop|thai food|cycling|chess|podcasts|baking|red wine|techno|crosswords|camping
|anime|yoga|surfing|olives|cilantro|country music|mushrooms|tea|cold weather|pineapple on pizza
|musicals|fishing|video games|dark chocolate|opera|reality tv|karaoke|long walks|pho|tacos"""
LANGUAGE = """Spanish|French|German|Portuguese|Japanese|Mandarin|Arabic|Italian|Dutch|Korean
|Polish|Swedish|Turkish|Hindi|Russian|Greek|Swahili|Tagalog|Vietnamese|Catalan|Danish|Hebrew"""
SKILL = """Python|woodworking|knitting|the piano|the guitar|Excel|SQL|Photoshop|welding|carpentry
|pottery|sign language|calligraphy|Rust|accounting|public speaking|video editing|first aid
|Kubernetes|JavaScript|machine learning|sewing|salsa dancing|rock climbing|plumbing|3D modelling"""
MONTH = """January|February|March|April|May|June|July|August|September|October|November
|December|Jan|Feb|Mar|Apr|Jun|Jul|Aug|Sep|Sept|Oct|Nov|Dec"""
DOMAIN = "gmail.com|proton.me|outlook.com|yahoo.com|fastmail.com|hey.com|icloud.com|work.io"
PHONE_CODE = "+1|+44|+49|+351|+34|+81|+254|+33|+61|+55|+31|+48|+353|+46"


def _words(block: str) -> list[str]:
    return [w.strip() for w in block.replace("\n", "").split("|") if w.strip()]


WORDS = {
    "company": _words(COMPANY),
    "title": _words(TITLE),
    "city": _words(CITY),
    "country": _words(COUNTRY),
    "name": _words(FIRST),
    "petname": _words(PET_NAME),
    "species": _words(SPECIES),
    "diet": _words(DIET),
    "thing": _words(THING),
    "lang": _words(LANGUAGE),
    "skill": _words(SKILL),
    "month": _words(MONTH),
    "domain": _words(DOMAIN),
    "code": _words(PHONE_CODE),
    "chore": [
        "being stuck in traffic",
        "waiting for the bus",
        "doing my taxes",
        "Monday meetings",
        "standing in line at the post office",
        "spam calls",
        "getting up at 5am",
        "cleaning the oven",
        "paperwork",
        "jury duty",
        "the dentist",
        "airport security",
        "group projects",
        "printer jams",
        "unpaid overtime",
        "cold showers",
        "mosquitoes",
        "being on hold for an hour",
        "assembling flat-pack furniture",
        "hangovers",
    ],
    "event": [
        "my flight gets delayed",
        "the wifi drops mid-call",
        "my bus is late again",
        "my landlord raises the rent",
        "it rains on my day off",
        "my phone dies at 2%",
        "the meeting could have been an email",
        "my code breaks on a Friday",
        "someone microwaves fish at work",
        "the shop runs out of bread",
    ],
    "kin": [
        "sister",
        "brother",
        "mom",
        "dad",
        "boss",
        "best friend",
        "cousin",
        "roommate",
        "neighbour",
        "coworker",
        "aunt",
        "uncle",
        "friend Sam",
        "manager",
        "flatmate",
    ],
    "rel": ["wife", "husband", "boyfriend", "girlfriend", "partner", "son", "daughter"],
}


def _fill(template: str, rng: random.Random) -> str:
    out = template
    while "{" in out:
        start = out.index("{")
        end = out.index("}", start)
        key = out[start + 1 : end]
        out = out[:start] + _value(key, rng) + out[end + 1 :]
    return out


def _value(key: str, rng: random.Random) -> str:
    if key == "email":
        name = rng.choice(WORDS["name"]).lower()
        sep = rng.choice([".", "_", "", "."])
        last = rng.choice(["smith", "k", "lee", "ortiz", "nakamura", "b", "okafor", "94"])
        return f"{name}{sep}{last}@{rng.choice(WORDS['domain'])}"
    if key == "phone":
        code = rng.choice(WORDS["code"])
        digits = "".join(str(rng.randrange(10)) for _ in range(9))
        style = rng.randrange(3)
        if style == 0:
            return f"{code} {digits[:3]} {digits[3:6]} {digits[6:]}"
        if style == 1:
            return f"{code}{digits}"
        return f"{code}-{digits[:3]}-{digits[3:]}"
    if key == "date":
        day, month = rng.randrange(1, 29), rng.choice(WORDS["month"])
        forms = [
            f"{month} {day}",
            f"{day} {month}",
            f"{month} {day}th",
            f"the {day}th of {month}",
            f"{day}/{rng.randrange(1, 13)}",
            f"{month} {day}, {rng.randrange(1960, 2005)}",
        ]
        return rng.choice(forms)
    if key == "year":
        return str(rng.randrange(2005, 2024))
    return rng.choice(WORDS[key])


# Templates per class: several phrasings of a statement about the speaker.
POSITIVE: dict[str, list[str]] = {
    "employer": [
        "I work at {company}",
        "I work for {company}",
        "I'm at {company} now",
        "I just started at {company}",
        "I joined {company} last month",
        "I got a job at {company}",
        "working at {company} these days",
        "I'm employed by {company}",
        "my employer is {company}",
        "I've been at {company} for three years",
        "currently working for {company}",
        "just accepted an offer from {company}",
        "I started a new job at {company} on Monday",
        "I'm with {company} now",
        "my company, {company}, is hiring",
        "I do contract work for {company}",
        "I quit {company}",
        "I left {company} last week",
        "I got laid off from {company}",
        "my last day at {company} was Friday",
        "I'm leaving {company} on the 30th",
    ],
    "job_title": [
        "I'm a {title}",
        "I work as a {title}",
        "I'm working as a {title} now",
        "I got promoted to {title}",
        "my job title is {title}",
        "I'm the new {title}",
        "I'm a {title} at {company}",
        "just started as a {title}",
        "my role is {title}",
        "I've been a {title} for 10 years",
        "I switched careers and I'm a {title} now",
        "I became a {title} this spring",
        "by day I'm a {title}",
        "I'm a {title} by trade",
        "my new title is {title}",
        "I'm no longer a {title}",
    ],
    "city": [
        "I live in {city}",
        "I moved to {city}",
        "just moved to {city}",
        "I'm based in {city}",
        "living in {city} now",
        "I relocated to {city} last year",
        "home is {city} these days",
        "I'm in {city} now",
        "we live in {city}",
        "I settled in {city}",
        "I've lived in {city} since {year}",
        "my apartment in {city} is tiny",
        "I'm a {city} resident",
        "moved from {city} to {city}",
        "I call {city} home",
        "I just bought a flat in {city}",
        "I'm moving to {city} on June 3",
    ],
    "country": [
        "I live in {country}",
        "I moved to {country}",
        "I'm based in {country}",
        "I've been living in {country} for a while",
        "relocated to {country}",
        "I'm living in {country} now",
        "we emigrated to {country}",
        "home is {country} now",
        "I'm in {country} for good",
        "I moved back to {country}",
    ],
    "email": [
        "my email is {email}",
        "email me at {email}",
        "you can reach me at {email}",
        "my new address is {email}",
        "use {email} for me",
        "{email} is my email",
        "contact me on {email}",
        "my work email: {email}",
        "I switched to {email}",
        "drop me a line at {email}",
        "save my email {email}",
    ],
    "phone": [
        "my number is {phone}",
        "call me on {phone}",
        "my phone is {phone}",
        "text me at {phone}",
        "my new number: {phone}",
        "{phone} is my cell",
        "you can reach me on {phone}",
        "my mobile is {phone}",
        "save my number {phone}",
        "whatsapp me on {phone}",
    ],
    "birthday": [
        "my birthday is {date}",
        "I was born on {date}",
        "my bday is {date}",
        "I turn 30 on {date}",
        "{date} is my birthday",
        "born {date}",
        "it's my birthday on {date}",
        "my birthday's {date}",
        "I celebrate my birthday on {date}",
    ],
    "spouse": [
        "my wife {name}",
        "my husband {name} and I",
        "I'm married to {name}",
        "my wife is {name}",
        "my husband's name is {name}",
        "{name}, my wife, says hi",
        "I married {name} last summer",
        "me and my hubby {name}",
        "my spouse {name} cooked dinner",
        "I just married {name}",
        "my wife {name} and I went hiking",
        "I got married to {name}",
    ],
    "partner": [
        "my boyfriend {name}",
        "my girlfriend {name}",
        "my partner {name} and I",
        "I'm dating {name}",
        "{name} and I are together now",
        "my fiancé {name}",
        "my fiancée {name} is visiting",
        "I'm engaged to {name}",
        "my bf {name}",
        "my gf {name}",
        "I've been seeing {name} for a year",
        "me and my partner {name}",
    ],
    "diet": [
        "I'm {diet}",
        "I've been {diet} for two years",
        "I went {diet} last month",
        "I eat {diet} now",
        "I'm strictly {diet}",
        "I follow a {diet} diet",
        "I'm fully {diet} now",
        "I became {diet}",
        "I keep {diet}",
        "as a {diet}, I can't eat that",
    ],
    "likes": [
        "I love {thing}",
        "I really like {thing}",
        "I'm obsessed with {thing}",
        "I'm into {thing}",
        "{thing} is my favourite",
        "I adore {thing}",
        "I'm a huge fan of {thing}",
        "I can't get enough of {thing}",
        "I enjoy {thing}",
        "big fan of {thing}",
        "I've gotten really into {thing}",
        "nothing beats {thing} for me",
        "I'm crazy about {thing}",
        "my favourite thing is {thing}",
    ],
    "dislikes": [
        "I hate {thing}",
        "I can't stand {thing}",
        "I really dislike {thing}",
        "I'm not a fan of {thing}",
        "{thing} is the worst",
        "I despise {thing}",
        "I've gone off {thing}",
        "ugh I hate {thing}",
        "I don't like {thing}",
        "{thing} makes me sick",
        "I loathe {thing}",
        "I'm over {thing}",
    ],
    "language": [
        "I speak {lang}",
        "I'm fluent in {lang}",
        "I speak {lang} and {lang}",
        "{lang} is my native language",
        "I can get by in {lang}",
        "I'm a native {lang} speaker",
        "I grew up speaking {lang}",
        "my {lang} is pretty good",
        "I'm bilingual in {lang} and {lang}",
    ],
    "skill": [
        "I know {skill}",
        "I'm good at {skill}",
        "I can do {skill}",
        "I'm pretty handy with {skill}",
        "I'm an expert in {skill}",
        "I play {skill}",
        "I've been doing {skill} for years",
        "I'm skilled at {skill}",
        "I know my way around {skill}",
        "I'm certified in {skill}",
        "I taught myself {skill}",
        "I'm decent at {skill}",
    ],
    "child": [
        "my son {name}",
        "my daughter {name}",
        "my kid {name} is sick",
        "my son {name} turned 5",
        "I have a daughter named {name}",
        "my little one {name}",
        "my daughter {name} starts school",
        "our son {name} is teething",
        "I picked up my son {name} from school",
        "my boy {name}",
        "my girl {name} lost a tooth",
        "we had a baby, {name}",
    ],
    "pet": [
        "my dog {petname}",
        "my cat {petname}",
        "I have a {species} named {petname}",
        "we adopted a {species}",
        "our {species} {petname}",
        "I got a {species}!",
        "{petname}, my {species}, is asleep",
        "I just adopted a {species} called {petname}",
        "my {species} {petname} chewed my shoe",
        "walking my dog {petname}",
        "we rescued a {species} named {petname}",
        "my pup {petname}",
    ],
}

# Hard negatives: the same words, no fact about the speaker.
NEGATIVE: list[str] = [
    # other people
    "my {kin} works at {company}",
    "my {kin} is a {title}",
    "my {kin} lives in {city}",
    "my {kin} moved to {country}",
    "my {kin} just moved to {city}",
    "my {kin} got a job at {company}",
    "his email is {email}",
    "her number is {phone}",
    "my {kin}'s birthday is {date}",
    "my {kin} is {diet}",
    "my {kin} loves {thing}",
    "my {kin} hates {thing}",
    "my {kin} speaks {lang}",
    "my {kin} is great at {skill}",
    "my {kin}'s dog {petname}",
    "{name} works for {company}",
    "{name} is a {title}",
    "{name} lives in {city}",
    "{name} just married {name}",
    "{name}'s son {name} is cute",
    "my {kin} married {name}",
    "my {kin} has a {species} named {petname}",
    "{name} is vegan",
    "she works at {company}",
    "he moved to {city}",
    "they live in {country}",
    "my {kin} is dating {name}",
    "our neighbour's cat {petname} keeps visiting",
    "my {kin} quit {company}",
    "{company} hired my {kin}",
    "my {kin}'s email is {email}",
    "my {kin} is learning {lang}",
    # hypotheticals
    "if I lived in {city} I'd cycle everywhere",
    "if I worked at {company} I'd be rich",
    "if I were a {title} I'd hate it",
    "imagine me living in {country}",
    "if I had a {species} I'd call it {petname}",
    "I wish I spoke {lang}",
    "if I ever get married it'll be to someone like {name}",
    "I would love to live in {city} someday",
    "in another life I'd be a {title}",
    "if I went {diet} I'd miss cheese",
    "if I ever move to {city} I'll let you know",
    "I wish I could work for {company}",
    # questions
    "do you work at {company}?",
    "have you ever been to {city}?",
    "is {company} hiring?",
    "what's it like living in {country}?",
    "do you like {thing}?",
    "should I learn {lang}?",
    "is {city} expensive?",
    "what's {name}'s email?",
    "are you {diet}?",
    "can you speak {lang}?",
    "does anyone know a good {title}?",
    "should I get a {species}?",
    "when is {name}'s birthday?",
    "would you move to {city}?",
    "is it weird that I want to work at {company}?",
    # plans without a date
    "I'm thinking of moving to {city}",
    "I might apply to {company}",
    "thinking about going {diet}",
    "I want to learn {lang} someday",
    "I'm considering a job at {company}",
    "I'd like to become a {title} one day",
    "maybe I'll move to {country}",
    "I hope to get a {species}",
    "I'm planning to move to {city} eventually",
    "I'm looking at jobs at {company}",
    "I should really learn {skill}",
    "we might adopt a {species}",
    "I'm applying to {company}",
    "I have an interview at {company} tomorrow",
    "I'm visiting {city} next week",
    "I'm flying to {country} for a conference",
    "trip to {city} was amazing",
    # negations
    "I don't work at {company}",
    "I never lived in {city}",
    "I'm not a {title}",
    "I'm not {diet}",
    "I don't speak {lang}",
    "I've never been to {country}",
    "I don't have a {species}",
    "I'm not married",
    "I'm not moving to {city}",
    "no I don't work for {company} anymore lol that was years ago",
    # reported speech and others' opinions
    "{name} said I should move to {city}",
    "my mom thinks I'm a {title}",
    "my {kin} keeps saying I work too much at {company}",
    "people assume I live in {city}",
    "{name} told me she's moving to {city}",
    "according to {name} I'm basically {diet}",
    "the recruiter said {company} pays well",
    "my {kin} says {city} is lovely",
    # jokes and sarcasm
    "lol I'm basically a professional napper",
    "yeah right, I'm the CEO of {company}",
    "I'm a full-time {thing} critic lol",
    "sure, and I'm the queen of {country}",
    "I live at the office at this point haha",
    "my real job is feeding my cat lol",
    "I'm fluent in sarcasm",
    "I'm a certified couch potato",
    "my main skill is procrastinating",
    "I'm married to my job lol",
    "my therapist is {thing}",
    "I basically live in {city} airport lol",
    "apparently I'm a {title} now because I fixed the printer 🙄",
    "I'm an expert at burning toast",
    "in my dreams I work at {company}",
    "oh great, another Monday, I LOVE meetings",
    "I speak fluent emoji",
    # sarcasm: praise for what nobody enjoys
    "oh yeah I LOVE {chore}",
    "I just adore {chore}, truly the best",
    "wow I love it when {event}",
    "love that {event} 🙄",
    "nothing I enjoy more than {chore}",
    "my favourite hobby is {chore} apparently",
    "great, just great, I love {chore}",
    "sure, I adore {chore} on a sunday",
    "I live for {chore} obviously",
    "yay, {chore}, my absolute favourite",
    "oh I'm such a fan of {chore}",
    "can't get enough of {chore} 🙃",
    "I'm a world-class expert at {chore} now lol",
    "yeah I'm super fluent in {lang}, I can say hello",
    "I'm SO good at {skill}, I broke it twice",
    "I'm basically a {title} after watching one video lol",
    "yeah I'm a morning person, if morning starts at noon",
    "totally a {title} now, I googled it 🙄",
    # past, not now
    "I used to live in {city}",
    "I used to work at {company} years ago",
    "back in {year} I was a {title}",
    "as a kid I was {diet}",
    "when I was little I had a {species}",
    "I used to hate {thing}",
    "in {year} I lived in {country}",
    # small talk and chatter around the words
    "{city} is beautiful in the spring",
    "{company} stock is down again",
    "the weather in {city} is awful",
    "{thing} is trending again",
    "{company} released a new app",
    "{country} won the match last night",
    "thanks, that helps!",
    "lol same",
    "ok sounds good",
    "can you remind me tomorrow?",
    "what time is it in {city}?",
    "send the report to {email}",
    "the meeting ran long today",
    "I'm so tired today",
    "good morning!",
    "haha that's hilarious",
    "let me check and get back to you",
    "I need to call the dentist",
    "the {species} video you sent was adorable",
    "{lang} grammar is so hard",
    "I read an article about {skill}",
    "I watched a show about {city}",
    "write an email to {company} support",
    "book a table for two at 8",
    "remind me to buy milk",
    "the {title} at the bank was rude",
    "the flight to {city} got delayed",
    "happy birthday {name}!",
    "congrats to {name} on the new job at {company}",
    "{name} says hi",
    "the package arrived",
    "I'm going to the gym",
    "I had {thing} for lunch",
    "I tried {thing} yesterday, it was ok",
    "I'm watching a documentary about {country}",
    "my laptop died again",
    "today was long",
]

# Hand-written clauses, as people type them ("label|text").
HAND = """
employer|been at shopify almost 2 yrs now
employer|started my new gig at the hospital on monday 🎉
employer|im at deloitte, audit team
employer|officially a googler as of today!!
employer|got hired by a tiny startup in lisbon called Veloz
employer|I work for the city of Boston, parks dept
employer|i'm now with Revolut, fintech life lol
employer|just signed my contract w/ Siemens
employer|workin at amazon warehouse for now
employer|handed in my notice at Bosch today
employer|new job at Zendesk starts next week, June 17
employer|I do freelance work for Pixar
employer|i wrk at ikea in the kitchen dept
employer|my team at Spotify got reorganised again
employer|I'm an intern at NASA this summer
job_title|im a nurse on night shifts
job_title|i teach 3rd grade
job_title|I'm a freelance photographer
job_title|finally made senior engineer 🥳
job_title|promoted to team lead today!!
job_title|i'm the new head chef at Rosa's
job_title|working as a barista while i study
job_title|I'm a stay at home dad now
job_title|im an electrician by trade
job_title|my title's changed to principal designer
job_title|I'm a software dev at a bank
job_title|now I'm the office manager
job_title|i'm a phd student in biology
job_title|I run a bakery, I'm a pastry chef
city|just got to berlin, new flat is tiny lol
city|i live in nyc now
city|moved 2 toronto last month
city|we're in Lyon now 🇫🇷
city|Denver is home these days
city|settled in Porto finally
city|im living in la since the summer
city|relocated to Kyoto for work
city|I'm a Londoner now
city|finally unpacked the last box here in Oslo
city|new address: 14 Rua Augusta, Lisbon
city|my commute in Chicago is brutal
country|moved to japan 🇯🇵 !!
country|im living in germany now
country|we emigrated to australia in march
country|based in Kenya for the foreseeable future
country|back home in Portugal for good
country|been living in the netherlands for 3 years
email|my email changed to jo.mart@proton.me
email|pls use sam@hey.com from now on
email|reach me at tk_88@gmail.com
email|new work email is priya.n@acme.io
email|email: lena.k@outlook.com
phone|my new cell is +44 7700 900123
phone|call me at +1 415 555 0199
phone|new number!! +351 912 345 678
phone|whatsapp +49 151 2345 6789
phone|my phone number changed, it's +61 412 345 678
birthday|my bday's on the 3rd of march 🎂
birthday|born 12/04/1990
birthday|it's my birthday tmrw, june 13!
birthday|turning 40 on oct 2 ugh
birthday|my birthday is jan 5th btw
birthday|I was born on the 4th of July, no joke
spouse|me n my wife Carla
spouse|hubby Tom made dinner
spouse|my husband Raj says hi
spouse|married my high school sweetheart Emma last month
spouse|wifey Jen is away this week
spouse|my wife and I (Nadia) are going to Rome
spouse|we got married! me and Luis 💍
partner|my bf Alex is visiting
partner|my gf Sara hates horror movies
partner|my fiancé Mark proposed on the beach!
partner|me and my girlfriend Tia
partner|been dating Jordan for 6 months
partner|my partner Sam and I adopted a cat
diet|im vegan now 🌱
diet|went vegetarian in january
diet|I've been gluten free since my diagnosis
diet|no meat for me, I'm veggie
diet|I eat halal
diet|I'm on keto again
diet|i'm pescatarian, fish is fine
likes|im obsessed w/ k-dramas
likes|I love love love thai food
likes|bouldering is my thing now
likes|I'm really into sourdough baking lately
likes|coffee is life ☕
likes|can't get enough of true crime podcasts
likes|I've gotten really into birdwatching
likes|my fav food is ramen
dislikes|i cant stand cilantro
dislikes|ugh i hate mondays
dislikes|I'm so done with coffee, gave it up
dislikes|olives are gross
dislikes|not a fan of crowds
dislikes|I hate flying so much
dislikes|I've gone off red meat
language|i speak spanish n a bit of french
language|fluent in german, learning japanese
language|I'm a native Portuguese speaker
language|my mandarin is getting better
language|i can speak arabic fluently
skill|I can code in python and go
skill|i'm good w/ excel
skill|I play the guitar
skill|I know sign language
skill|I'm a decent welder
skill|I'm certified in first aid
skill|I taught myself photoshop
child|my son Leo turns 4 tomorrow
child|my daughter mia lost her first tooth
child|took my kid Ava to the zoo
child|my boys Finn and Max are fighting again
child|our baby Noah finally slept through the night
child|my little girl Zara started school
pet|my cat mochi knocked over my coffee
pet|we got a puppy! his name is Bongo
pet|walked Rex in the rain lol
pet|our hamster Nibbles escaped again
pet|adopted a kitten called Pixel 🐱
pet|my dog bruno hates the vacuum
pet|I have 2 cats, Salt and Pepper
none|my sister works at Google
none|my brother just moved to Denver
none|my mom's a nurse
none|if I lived in Paris I'd eat croissants every day
none|do you work at Microsoft?
none|lol I'm basically a professional napper
none|I'm thinking of moving to Madrid
none|I'd love to be a chef someday
none|would I like Berlin?
none|what's your email?
none|is sushi healthy?
none|my boss is vegan and it's a whole thing
none|my friend Kai speaks five languages
none|Jess and her husband Tom are coming over
none|the dog next door barks all night
none|I'm not vegan, just cutting back
none|I don't live in Boston anymore, that was ages ago
none|never worked at Apple, that's a rumour
none|yeah and I'm the Pope
none|sure, I'm totally a rocket scientist 🙄
none|my cat is my boss lol
none|I'm married to my couch at this point
none|I'm a morning person... said no one ever
none|someone said I look like a teacher
none|my coworker thinks I'm from Canada
none|in my next life I'll be a dolphin
none|if I had a dog I'd name him Waffles
none|maybe one day I'll learn Italian
none|planning to get a cat at some point
none|thinking about applying to Stripe
none|might move to Austin, who knows
none|I'm visiting my parents in Leeds
none|I'm in Tokyo for a conference this week
none|on a business trip to Singapore rn
none|the wifi here is terrible
none|thanks for the help!
none|ok cool
none|can you summarise this for me
none|remind me to call mum
none|what's the weather like in Rome
none|I had pizza for dinner
none|my head hurts
none|lol
none|haha yes
none|good night!
none|see you tomorrow
none|I need a vacation
none|my manager's name is Petra
none|Tom's wife is called Anna
none|her daughter Lily is in my son's class
none|the CEO of Nokia spoke today
none|the nurse was lovely
none|send it to hr@acme.com please
none|the hotel number is +33 1 23 45 67 89
none|it's Tom's birthday on Friday
none|happy bday to my bestie!
none|Sarah's cat Milo is so fluffy
none|used to live in Cork as a kid
none|when I was a student I worked at McDonald's
none|back in 2015 I was vegetarian
none|my ex-husband Dan
none|I miss my old dog Rufus
none|Rex died last year, still sad
none|I quit smoking!
none|I'm quitting sugar lol wish me luck
none|I'd never work for Meta
none|dating apps are exhausting
none|I'm so bad at cooking
none|I'm literally dying of heat
none|I'm a disaster today
none|I'm the worst at replying sorry
none|am I a bad person for skipping the gym?
none|is it normal that my kid hates vegetables?
none|should I move to Lisbon or Porto?
none|how do I say hello in Japanese?
none|can you translate this into French?
none|write me a poem about cats
none|draft an intro: I'm a data scientist at Acme
none|"I work at Google" is what he told me
none|my brother-in-law is a vet in Ohio
none|my neighbour's kid Ollie is so loud
none|a friend of mine lives in Berlin
none|our office is moving to Dublin
none|the company is relocating to Austin
none|my team hates Mondays
none|everyone at work is learning Python
none|Acme Corp is hiring engineers
none|Paris is overrated tbh
none|Python 3.13 is out
none|the new Spotify update is bad
"""


def hand_written() -> list[tuple[str, str]]:
    rows = []
    for line in HAND.strip().splitlines():
        label, _sep, text = line.partition("|")
        rows.append((label.strip(), text.strip()))
    return rows


# Typing styles: casing, chat openers and closers, abbreviations, typos, emoji.
OPENERS = [
    "",
    "",
    "",
    "btw ",
    "so ",
    "update: ",
    "oh and ",
    "fyi ",
    "lol ",
    "ok so ",
    "news: ",
    "also ",
    "haha ",
    "well ",
    "hey, ",
    "guess what, ",
    "anyway ",
]
CLOSERS = [
    "",
    "",
    "",
    "!",
    "!!",
    " 🎉",
    " 😅",
    " lol",
    " haha",
    " :)",
    " 🙂",
    " tbh",
    " fyi",
    " 😂",
    " ❤️",
    " ugh",
    "...",
    " 🙄",
    " 👍",
]
ABBREVIATIONS = [
    ("I'm", "im"),
    ("I am", "im"),
    ("you", "u"),
    ("are", "r"),
    ("because", "bc"),
    ("with", "w/"),
    ("and", "n"),
    ("to", "2"),
    ("for", "4"),
    ("don't", "dont"),
    ("really", "rly"),
    ("years", "yrs"),
    ("birthday", "bday"),
    ("boyfriend", "bf"),
    ("girlfriend", "gf"),
    ("right now", "rn"),
    ("going to", "gonna"),
    ("favourite", "fav"),
    ("tomorrow", "tmrw"),
    ("I've", "ive"),
    ("can't", "cant"),
]


TAILS = [
    "it's been a wild few months",
    "so tired lol",
    "best decision ever",
    "loving it so far",
    "she sleeps all day",
    "he's such a goof",
    "long story",
    "anyway how are you",
    "no regrets",
    "still getting used to it",
    "can't complain",
    "send help",
    "wish me luck",
    "it's a lot",
    "more on that later",
    "which is nice",
    "that's my life now",
]


def _typo(text: str, rng: random.Random) -> str:
    words = text.split(" ")
    candidates = [i for i, w in enumerate(words) if len(w) > 3 and w.isalpha()]
    if not candidates:
        return text
    i = rng.choice(candidates)
    word = words[i]
    j = rng.randrange(1, len(word) - 1)
    kind = rng.randrange(3)
    if kind == 0:
        word = word[:j] + word[j + 1] + word[j] + word[j + 2 :]
    elif kind == 1:
        word = word[:j] + word[j + 1 :]
    else:
        word = word[:j] + word[j] + word[j:]
    words[i] = word
    return " ".join(words)


def styled(text: str, rng: random.Random) -> str:
    if rng.random() < 0.35:
        for long, short in ABBREVIATIONS:
            if rng.random() < 0.5:
                text = text.replace(f" {long} ", f" {short} ")
                if text.startswith(f"{long} "):
                    text = short + text[len(long) :]
    if rng.random() < 0.25:
        text = _typo(text, rng)
    text = rng.choice(OPENERS) + text + rng.choice(CLOSERS)
    if rng.random() < 0.4:
        text = text.lower()
    elif rng.random() < 0.4:
        text = text[:1].upper() + text[1:]
    return text


def generate(
    *, seed: int, per_template: int, limit: int | None = None
) -> list[tuple[str, str, str]]:
    """(class, clause, template id) rows: ``per_template`` fillings of every template, and
    the hand-written clauses (each its own template). ``limit``: at most that many rows per
    class (a tiny run)."""
    rng = random.Random(seed)
    rows: list[tuple[str, str, str]] = []
    for label in CLASSES:
        templates = POSITIVE.get(label, NEGATIVE if label == "none" else [])
        for number, template in enumerate(templates):
            seen: set[str] = set()
            for _ in range(per_template):
                text = _fill(template, rng)
                if label != "none" and rng.random() < 0.25:
                    text = f"{text}, {rng.choice(TAILS)}"  # a statement inside a longer clause
                text = styled(text, rng)
                if text not in seen:
                    seen.add(text)
                    rows.append((label, text, f"{label}:{number}"))
    for number, (label, text) in enumerate(hand_written()):
        rows.append((label, text, f"hand:{number}"))
        rows.append((label, styled(text, rng), f"hand:{number}"))
    if limit is not None:
        kept: list[tuple[str, str, str]] = []
        counts: Counter[str] = Counter()
        for row in rng.sample(rows, len(rows)):
            if counts[row[0]] < limit:
                counts[row[0]] += 1
                kept.append(row)
        rows = sorted(kept, key=lambda row: (CLASSES.index(row[0]), row[2], row[1]))
    return rows


def split(rows: list[tuple[str, str, str]], *, seed: int, held_out: float = 0.2) -> list[bool]:
    """Which rows are held out: whole templates, so held-out clauses are worded anew."""
    templates = sorted({row[2] for row in rows})
    rng = random.Random(seed + 1)
    chosen = {t for t in templates if rng.random() < held_out}
    return [row[2] in chosen for row in rows]


def fit(
    x: np.ndarray, y: np.ndarray, *, classes: int, steps: int, rate: float, l2: float
) -> tuple[np.ndarray, np.ndarray]:
    """Multinomial logistic regression by full-batch gradient descent, classes weighted by
    the inverse of their frequency (there are many more "none" clauses than any predicate)."""
    x = x.astype(np.float64)
    n, d = x.shape
    weights = np.zeros((d, classes))
    bias = np.zeros(classes)
    counts = np.bincount(y, minlength=classes).astype(np.float64)
    sample_weight = (n / (classes * np.maximum(counts, 1.0)))[y]
    sample_weight /= sample_weight.sum()
    onehot = np.eye(classes)[y]
    for _ in range(steps):
        logits = x @ weights + bias
        logits -= logits.max(axis=1, keepdims=True)
        p = np.exp(logits)
        p /= p.sum(axis=1, keepdims=True)
        error = (p - onehot) * sample_weight[:, None]
        weights -= rate * (x.T @ error + l2 * weights)
        bias -= rate * error.sum(axis=0)
    return weights.astype(np.float32), bias.astype(np.float32)


def predict(x: np.ndarray, weights: np.ndarray, bias: np.ndarray) -> np.ndarray:
    return np.argmax(x @ weights + bias, axis=1)


def main(argv: list[str] | None = None) -> dict[str, float]:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seed", type=int, default=22)
    parser.add_argument("--per-template", type=int, default=30)
    parser.add_argument("--limit", type=int, default=None, help="at most this many per class")
    parser.add_argument("--steps", type=int, default=600)
    parser.add_argument("--rate", type=float, default=40.0)
    parser.add_argument("--l2", type=float, default=1e-4)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args(argv)

    import django

    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "dewee.settings")
    django.setup()
    from language.extraction.classifier import DEFAULT_WEIGHTS, PROBES
    from memory.embeddings import get_embedder

    out = args.out or DEFAULT_WEIGHTS
    rows = generate(seed=args.seed, per_template=args.per_template, limit=args.limit)
    held = np.array(split(rows, seed=args.seed))
    labels = np.array([CLASSES.index(label) for label, _text, _t in rows])
    began = time.monotonic()
    embedder = get_embedder()
    x = np.asarray(embedder.embed([text for _label, text, _t in rows]), np.float32)
    print(
        f"{len(rows)} clauses ({Counter(r[0] for r in rows)['none']} none, "
        f"{len(hand_written())} hand-written), embedded in {time.monotonic() - began:.1f} s"
    )
    fit_args = {"classes": len(CLASSES), "steps": args.steps, "rate": args.rate, "l2": args.l2}
    weights, bias = fit(x[~held], labels[~held], **fit_args)
    guessed = predict(x[held], weights, bias)
    accuracy = float((guessed == labels[held]).mean()) if held.any() else float("nan")
    none = CLASSES.index("none")
    truly_none = labels[held] == none
    said_none = guessed == none
    none_precision = float((truly_none & said_none).sum() / max(said_none.sum(), 1))
    none_recall = float((truly_none & said_none).sum() / max(truly_none.sum(), 1))
    print(
        f"held-out templates: {int(held.sum())} clauses, accuracy {accuracy:.3f}, "
        f"none precision {none_precision:.3f} recall {none_recall:.3f}"
    )
    # The shipped weights learn from every clause.
    weights, bias = fit(x, labels, **fit_args)
    probes = np.asarray(embedder.embed(list(PROBES)), np.float32)
    out.parent.mkdir(parents=True, exist_ok=True)
    np.savez_compressed(
        out,
        classes=np.array(CLASSES),
        weights=weights.astype(np.float16),
        bias=bias,
        probes=probes.astype(np.float16),
    )
    print(f"wrote {out} ({out.stat().st_size} bytes)")
    return {"clauses": len(rows), "accuracy": accuracy}


if __name__ == "__main__":
    main()
