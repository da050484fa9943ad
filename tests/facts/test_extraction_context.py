"""Statements read in their context: the couple as a subject, a title after the employer, a
value without its emoji, words taken back or reported, a negation that comes after."""

import pytest

from tests.facts.test_extraction import said

E = "ended"


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A name and the speaker as a couple.
        ("Dara and I got married last Saturday 💍", {("spouse", "", "Dara")}),
        ("Mehmet and I tied the knot", {("spouse", "", "Mehmet")}),
        ("Sipho and I got engaged!", {("partner", "", "Sipho")}),
        ("I have a new boyfriend, Marcus", {("partner", "", "Marcus")}),
        ("Kenji and I got divorced", {("spouse", "", (E, "Kenji"))}),
        # The title after the employer.
        (
            "I work for Mercado Libre as a product designer.",
            {("employer", "", "Mercado Libre"), ("job_title", "", "product designer")},
        ),
        (
            "I got hired by Figma as a senior designer",
            {("employer", "", "Figma"), ("job_title", "", "senior designer")},
        ),
        ("I was made professor this spring!", {("job_title", "", "professor")}),
        ("they promoted me to partner at the firm", {("job_title", "", "partner")}),
        ("I'm a flight instructor now", {("job_title", "", "flight instructor")}),
        # Where one lives, in more words.
        ("moved into my new flat in Busan yesterday!", {("city", "", "Busan")}),
        ("home is Marseille now", {("city", "", "Marseille")}),
        ("we moved to Windhoek in Namibia", {("city", "", "Windhoek"), ("country", "", "Namibia")}),
        ("first week at Rivian done", {("employer", "", "Rivian")}),
        ("I switched jobs, now at M-KOPA", {("employer", "", "M-KOPA")}),
        # Diets, likes, skills and languages.
        ("I switched to a vegan diet in May", {("diet", "", "vegan")}),
        ("got promoted to engineering lead 🎉", {("job_title", "", "engineering lead")}),
        ("I adore Turkish coffee ☕", {("likes", "turkish coffee", "Turkish coffee")}),
        ("I hate traffic jams more than anything", {("dislikes", "traffic jams", "traffic jams")}),
        ("I'm good at Python, it's my main tool", {("skill", "python", "Python")}),
        (
            "I speak French and now Arabic too",
            {("language", "french", "French"), ("language", "arabic", "Arabic")},
        ),
        ("I can't speak French anymore", {("language", "french", (E, "French"))}),
        ("really into pottery now", {("likes", "pottery", "pottery")}),
        # Endings.
        ("my contract with Sony ends on the 30th", {("employer", "", (E, "Sony"))}),
        ("we gave Goldie away to my cousin", {("pet", "goldie", (E, "Goldie"))}),
        ("my old email lars@telia.se doesn't work anymore", {("email", "", (E, "lars@telia.se"))}),
        ("new phone number: 0412 998 331", {("phone", "", "0412 998 331")}),
        # A courtesy is no condition; a name may come in the next sentence; "there" is where
        # the flat is.
        (
            "my email is kofi@example.org if you ever need it",
            {("email", "", "kofi@example.org")},
        ),
        ("If you want, I can move to Rome", set()),
        ("we got a dog! his name is Bongo", {("pet", "bongo", "Bongo")}),
        ("My neighbour got a dog. His name is Rex.", set()),
        ("we bought a flat in Maribor and moved there", {("city", "", "Maribor")}),
        ("we're relocating to Uganda in 2031", {("country", "", "Uganda")}),
        # Contacts given in other words.
        ("email: ana.b@mail.com", {("email", "", "ana.b@mail.com")}),
        ("ana.b@mail.com is my email", {("email", "", "ana.b@mail.com")}),
        ("best email for me is ana.b@mail.com", {("email", "", "ana.b@mail.com")}),
        ("new cell: (555) 123-4567", {("phone", "", "(555) 123-4567")}),
        ("+1 415 555 0101 is my new number", {("phone", "", "+1 415 555 0101")}),
        ("my sister's email is sis@mail.com", set()),
        ("555 123 4567 is my sister's number", set()),
        # Employers and homes in other words.
        (
            "I'm an engineer over at Stripe",
            {("job_title", "", "engineer"), ("employer", "", "Stripe")},
        ),
        ("Bosch hired me", {("employer", "", "Bosch")}),
        ("I accepted Bosch's offer", {("employer", "", "Bosch")}),
        ("currently employed at Bosch", {("employer", "", "Bosch")}),
        ("Google hired my brother", set()),
        ("I've lived in Lyon for 5 years", {("city", "", "Lyon")}),
        ("I lived in Lyon for 5 years", set()),
        ("I live with my parents in Lyon", {("city", "", "Lyon")}),
        ("based out of Lyon", {("city", "", "Lyon")}),
        ("I'm in the office these days", set()),
        # Pets and children named in other words.
        ("we've got a pet rabbit now, Pip", {("pet", "pip", "Pip")}),
        ("we adopted a puppy, her name is Nova", {("pet", "nova", "Nova")}),
        (
            "Just adopted two cats, Salt and Pepper",
            {("pet", "salt", "Salt"), ("pet", "pepper", "Pepper")},
        ),
        (
            "Finally got a dog!! Her name is Tofu. My last dog, Pepper, was a lab",
            {("pet", "tofu", "Tofu")},
        ),
        ("We had a baby boy! Welcome to the world, Ezra", {("child", "ezra", "Ezra")}),
        # Endings in other words.
        (
            "ok so. I quit. no more Deloitte",
            {
                ("employer", "", (E, None)),
                ("employer", "", (E, "Deloitte")),
                ("city", "", (E, "Deloitte")),
            },
        ),
        ("no more coffee for me", {("likes", "coffee", (E, "coffee"))}),
        ("ex-vegan here, eating eggs again", {("diet", "", (E, "vegan"))}),
        ("Dropped keto.", {("diet", "", (E, "keto"))}),
        ("Our divorce was finalised today", {("spouse", "", (E, None))}),
        ("Divorced from Maarten", {("spouse", "", (E, "Maarten"))}),
        ("I've been made redundant by Wise", {("employer", "", (E, "Wise"))}),
        ("we had to rehome Kiko", {("pet", "kiko", (E, "Kiko"))}),
        ("I left London for a week", set()),
        ("Been promoted! I'm Head of Data now", {("job_title", "", "Head of Data")}),
        # Emoji and ellipses as chat uses them.
        (
            "Rex died last night 💔 if we ever get another dog it'll be a rescue",
            {("pet", "rex", (E, "Rex"))},
        ),
        ("what if I just... moved to Bali and taught yoga", set()),
        ("in a parallel universe I speak fluent Mandarin", set()),
        ("Dad's convinced I'm marrying Olu next year", set()),
        # The past in more words, and what stands beside it.
        ("at my last job my email was a.nowak@oldfirm.pl", set()),
        ("my work phone at Sky was 0161 496 0500", set()),
        ("I went vegan for Lent once", set()),
        ("I was vegan for two years", set()),
        ("as a kid I hated fish, but these days I love sushi", {("likes", "sushi", "sushi")}),
        ("my birthday is actually September 4th, not the 14th", {("birthday", "", "--09-04")}),
        ("Ines isn't my girlfriend any more", {("partner", "", (E, "Ines"))}),
        ("I'm senior product manager now", {("job_title", "", "senior product manager")}),
        (
            "I'm a physiotherapist at Bupa",
            {("job_title", "", "physiotherapist"), ("employer", "", "Bupa")},
        ),
        # Not being into something is no dislike.
        ("I'm not into golf", set()),
        # Knowing someone well is no skill.
        ("I know Tom really well", set()),
        ("I know Python really well", {("skill", "python", "Python")}),
        ("I know statistics pretty well", {("skill", "statistics", "statistics")}),
    ],
)
def test_statements_read_in_context(text, expected):
    assert said(text) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        # A negation after the statement does not take it back ...
        ("I live in Lima, not Cusco", {("city", "", "Lima")}),
        ("my daughter Amara starts school soon, can't believe it", {("child", "amara", "Amara")}),
        ("I'm a pescatarian, fish yes, meat no", {("diet", "", "pescatarian")}),
        (
            "I'm a paramedic, but if I could start over I'd be a vet",
            {("job_title", "", "paramedic")},
        ),
        # ... words taken back do.
        ("I live in Paris, well not really", set()),
        ("I'm a vegan - not!", set()),
        ("I work at Google. Not!", set()),
        ("I moved to Bali... in my dreams", set()),
        # Only the reporter's own words stand.
        ("My wife Ingrid says hi!", {("spouse", "", "Ingrid")}),
        ("people think I'm vegan", set()),
        ("my friends keep saying I live in Kobe", set()),
        ("I live in Kobe, or so my friends claim", set()),
        ("I'm the best engineer in the team, according to my boss", set()),
        ("I moved to Berlin, as I said", {("city", "", "Berlin")}),
    ],
)
def test_what_is_taken_back_and_what_stands(text, expected):
    assert said(text) == expected
