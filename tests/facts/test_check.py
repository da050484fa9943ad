"""POST /v1/facts/check and `dewee memory facts check`: what a text contradicts, confirms and
adds, and applying it through the fact services."""

import json
from datetime import UTC, datetime

import pytest

from dewee.cli import main
from facts.models import Fact, FactSource, Status
from memory.services import MemoryInput, store_memories
from tenancy.models import AuditEvent
from tenancy.services import default_workspace
from tests.factories import make_agent, state

pytestmark = pytest.mark.django_db

SEED = "I just moved to Surabaya for my new job at Anthropic"


def check(api, text, agent_id="support-bot", **extra):
    return api.post("/v1/facts/check", {"agent_id": agent_id, "user": "u1", "text": text, **extra})


def ok(response):
    assert response.status_code == 200, response.content
    return response.json()


def seed(agent):
    employer = state(agent, "Google").fact
    city = state(agent, "Jakarta", predicate="city").fact
    return employer, city


def counts():
    return Fact.objects.count(), FactSource.objects.count(), AuditEvent.objects.count()


def by_predicate(items):
    return {item["predicate"]: item for item in items}


def test_the_seed_example_reports_both_contradictions_and_writes_nothing(api, agent):
    employer, city = seed(agent)
    before = counts()
    data = ok(check(api, SEED))
    contradicted = by_predicate(data["contradicted"])
    assert set(contradicted) == {"employer", "city"}
    assert contradicted["employer"]["old_value"] == "Google"
    assert contradicted["employer"]["new_value"] == "Anthropic"
    assert contradicted["employer"]["fact"]["id"] == employer.pk
    assert contradicted["employer"]["evidence"] == "for my new job at Anthropic"
    assert contradicted["employer"]["level"] == "pattern"
    assert contradicted["city"]["old_value"] == "Jakarta"
    assert contradicted["city"]["new_value"] == "Surabaya"
    assert contradicted["city"]["evidence"] == "I just moved to Surabaya"
    assert (data["confirmed"], data["new"], data["applied"]) == ([], [], [])
    actions = {(a["action"], a["fact_id"], a["value"]) for a in data["suggested_actions"]}
    assert actions == {("UPDATE", employer.pk, "Anthropic"), ("UPDATE", city.pk, "Surabaya")}
    assert counts() == before


def test_the_seed_example_applied_supersedes_both_facts_citing_the_evidence(api, agent):
    employer, city = seed(agent)
    (memory,) = store_memories(agent=agent, items=[MemoryInput(content=SEED)])
    source = {"kind": "channel_message", "reference": "msg-9", "memory_id": memory.pk}
    data = ok(check(api, SEED, apply=True, source=source))
    applied = {a["fact"]["predicate"]: a for a in data["applied"]}
    assert {p: (a["action"], a["outcome"]) for p, a in applied.items()} == {
        "employer": ("UPDATE", "superseded"),
        "city": ("UPDATE", "superseded"),
    }
    current = {f.predicate: f for f in Fact.objects.filter(agent=agent).current()}
    assert (current["employer"].value, current["city"].value) == ("Anthropic", "Surabaya")
    assert Fact.objects.get(pk=employer.pk).status == Status.HISTORY
    assert Fact.objects.get(pk=city.pk).status == Status.HISTORY
    learned = FactSource.objects.get(fact=current["employer"])
    assert (learned.kind, learned.reference, learned.memory_id) == (
        "channel_message",
        "msg-9",
        memory.pk,
    )
    assert learned.excerpt == "for my new job at Anthropic"
    assert FactSource.objects.get(fact=current["city"]).excerpt == "I just moved to Surabaya"
    assert applied["employer"]["fact"]["sources"][0]["excerpt"] == "for my new job at Anthropic"


def test_a_plain_statement_of_the_same_value_confirms(api, agent):
    employer = state(agent, "Google").fact
    data = ok(check(api, "I work at Google."))
    assert [c["fact"]["id"] for c in data["confirmed"]] == [employer.pk]
    assert data["confirmed"][0]["level"] == "value"
    assert data["suggested_actions"][0]["action"] == "CONFIRM"


def test_new_facts_are_suggested_as_additions_with_their_category(api, agent):
    data = ok(check(api, "My dog Rex loves the beach, and I speak Portuguese."))
    new = {(n["predicate"], n["qualifier"], n["value"]) for n in data["new"]}
    assert new == {("pet", "rex", "Rex"), ("language", "portuguese", "Portuguese")}
    assert by_predicate(data["new"])["pet"]["category"] == "relationship"
    assert {a["action"] for a in data["suggested_actions"]} == {"ADD"}

    applied = ok(check(api, "My dog Rex loves the beach, and I speak Portuguese.", apply=True))
    assert {a["outcome"] for a in applied["applied"]} == {"created"}
    source = FactSource.objects.get(fact__predicate="pet")
    assert (source.kind, source.excerpt) == ("conversation_summary", "My dog Rex")


def test_a_lower_trust_change_is_disputed_not_applied_over_a_confirmed_fact(api, agent):
    city = state(agent, "Jakarta", predicate="city", verification="confirmed").fact
    data = ok(check(api, "We moved to Bandung.", apply=True))
    assert data["suggested_actions"][0]["action"] == "DISPUTE"
    assert data["applied"][0]["outcome"] == "disputed"
    assert Fact.objects.get(pk=city.pk).status == Status.CURRENT
    assert Fact.objects.get(agent=agent, value="Bandung").status == Status.DISPUTED


def test_an_ending_ends_the_current_fact_without_inventing_a_value(api, agent):
    employer = state(agent, "Dropbox").fact
    moment = "2026-11-02T10:00:00+00:00"
    data = ok(check(api, "I left Dropbox.", apply=True, now=moment))
    contradiction = data["contradicted"][0]
    assert (contradiction["predicate"], contradiction["new_value"]) == ("employer", None)
    assert data["applied"][0]["outcome"] == "ended"
    ended = Fact.objects.get(pk=employer.pk)
    assert ended.status == Status.HISTORY
    assert ended.valid_to == datetime(2026, 11, 2, 10, tzinfo=UTC)
    assert ended.believed_until is not None
    assert not Fact.objects.filter(agent=agent).current().exists()
    event = AuditEvent.objects.get(action="fact.end")
    assert event.target_id == str(employer.pk)


def test_an_ending_naming_another_value_ends_nothing(api, agent):
    employer = state(agent, "Google").fact
    data = ok(check(api, "I'm not with Acme anymore.", apply=True))
    assert data["contradicted"] == []
    assert data["applied"] == []
    assert [a["action"] for a in data["suggested_actions"]] == ["NONE"]
    assert Fact.objects.get(pk=employer.pk).status == Status.CURRENT


def test_a_future_change_holds_from_its_date(api, agent):
    state(agent, "Google")
    data = ok(check(api, "I join Canva next month.", now="2026-12-01T09:00:00Z", apply=True))
    contradiction = data["contradicted"][0]
    assert contradiction["new_value"] == "Canva"
    # The answer says when the change takes effect, before anything is applied too.
    assert contradiction["valid_from"] == "2027-01-01T00:00:00Z"
    assert [a["valid_from"] for a in data["suggested_actions"]] == ["2027-01-01T00:00:00Z"]
    canva = Fact.objects.get(agent=agent, value="Canva")
    assert canva.valid_from == datetime(2027, 1, 1, tzinfo=UTC)
    # Google still holds until then: it is the employer a check before that date sees.
    google = Fact.objects.get(agent=agent, value="Google")
    assert (google.status, google.valid_to) == (Status.HISTORY, canva.valid_from)
    before = ok(check(api, "I work at Google.", now="2026-12-15T09:00:00Z", apply=True))
    assert [c["fact"]["value"] for c in before["confirmed"]] == ["Google"]
    assert before["contradicted"] == []
    assert before["applied"] == []
    after = ok(check(api, "I work at Google.", now="2027-01-15T09:00:00Z"))
    assert [c["old_value"] for c in after["contradicted"]] == ["Canva"]


def test_an_ending_now_and_a_later_value_leave_the_slot_empty_until_then(api, agent):
    state(agent, "Paystack")
    text = "I left Paystack today. Starting at Moniepoint on March 1"
    data = ok(check(api, text, now="2026-12-01T09:00:00Z", apply=True))
    assert [(c["old_value"], c["new_value"]) for c in data["contradicted"]] == [("Paystack", None)]
    assert [(n["value"], n["valid_from"]) for n in data["new"]] == [
        ("Moniepoint", "2027-03-01T00:00:00Z")
    ]
    between = ok(check(api, "I work at Moniepoint", now="2027-01-15T09:00:00Z"))
    assert (between["contradicted"], between["confirmed"]) == ([], [])
    after = ok(check(api, "I work at Moniepoint", now="2027-03-15T09:00:00Z"))
    assert [c["fact"]["value"] for c in after["confirmed"]] == ["Moniepoint"]


def test_marrying_ones_partner_ends_them_as_partner(api, agent):
    partner = state(agent, "Dara", predicate="partner").fact
    data = ok(check(api, "Dara and I got married last Saturday", apply=True))
    assert [n["predicate"] for n in data["new"]] == ["spouse"]
    assert [(c["predicate"], c["new_value"]) for c in data["contradicted"]] == [("partner", None)]
    partner.refresh_from_db()
    assert partner.status == Status.HISTORY
    assert Fact.objects.get(agent=agent, predicate="spouse").value == "Dara"


def test_marrying_someone_else_leaves_the_partner_to_the_operator(api, agent):
    state(agent, "Dara", predicate="partner")
    data = ok(check(api, "Sam and I got married"))
    assert [n["value"] for n in data["new"]] == ["Sam"]
    assert data["contradicted"] == []


def test_leaving_one_value_for_another_changes_the_slot_that_held_it(api, agent):
    state(agent, "Google")
    state(agent, "Tallinn", predicate="city")
    data = ok(check(api, "We left Tallinn for Tartu last week", apply=True))
    assert [(c["predicate"], c["new_value"]) for c in data["contradicted"]] == [("city", "Tartu")]
    assert data["new"] == []
    current = Fact.objects.filter(agent=agent, status=Status.CURRENT)
    assert {(f.predicate, f.value) for f in current} == {("employer", "Google"), ("city", "Tartu")}
    # Leaving something the agent does not hold changes nothing.
    again = ok(check(api, "I left Lyon for Paris", apply=True))
    assert (again["contradicted"], again["new"], again["applied"]) == ([], [], [])


def test_only_facts_valid_now_count_as_held(api, agent):
    state(agent, "Google", valid_to=datetime(2021, 1, 1, tzinfo=UTC))
    data = ok(check(api, "I work at Anthropic."))
    assert data["contradicted"] == []
    assert [n["value"] for n in data["new"]] == ["Anthropic"]


def test_traps_change_nothing(api, agent):
    state(agent, "Google")
    before = counts()
    for text in [
        "Do you think I should relocate to Porto?",
        "If we ever lived in Vienna I'd learn German.",
        "I might apply at Spotify.",
        "My sister works at Adobe.",
        "Back in 2015 I worked at IBM.",
        "I don't work at Google.",
        "Tom said I work at Oracle.",
    ]:
        data = ok(check(api, text, apply=True))
        assert (data["contradicted"], data["new"], data["applied"]) == ([], [], []), text
    assert counts() == before


def test_the_agents_own_predicate_is_matched_by_meaning(api, agent):
    works_for = state(agent, "Google", predicate="works_for").fact
    data = ok(check(api, "I just joined Anthropic."))
    contradiction = data["contradicted"][0]
    assert (contradiction["predicate"], contradiction["level"]) == ("works_for", "semantic")
    assert contradiction["fact"]["id"] == works_for.pk
    assert data["new"] == []


def test_apply_is_all_or_nothing(api, agent):
    state(agent, "Google")
    before = counts()
    # The second fact's value is over the limit: the first one, valid, is not kept either.
    text = "I just joined Anthropic. My dog is called " + "A" * 5000
    response = check(api, text, apply=True)
    assert response.status_code == 413, response.content
    assert response.json()["error"]["code"] == "too_large"
    assert counts() == before
    assert Fact.objects.get(agent=agent).value == "Google"


def test_another_workspaces_agent_is_404(other_api, agent):
    response = check(other_api, SEED)
    assert response.status_code == 404
    assert response.json()["error"]["code"] == "agent_not_found"


def test_another_agents_memory_as_source_is_404(api, agent, workspace):
    (other,) = store_memories(agent=make_agent(workspace), items=[MemoryInput(content="x")])
    response = check(api, SEED, source={"kind": "memory_document", "memory_id": other.pk})
    assert response.status_code == 404, response.content


@pytest.mark.parametrize(
    ("body", "field"),
    [
        ({"text": ""}, "text"),
        ({"text": 12}, "text"),
        ({"user": ""}, "user"),
        ({"apply": "yes"}, "apply"),
        ({"source": {"kind": "gossip"}}, "source"),
        ({"source": {"kind": "operator"}}, "source.operator"),
        ({"now": "yesterday"}, "now"),
        ({"surprise": 1}, "surprise"),
    ],
)
def test_bad_input_is_400_and_writes_nothing(api, agent, body, field):
    before = counts()
    data = {"agent_id": "support-bot", "user": "u1", "text": SEED, "apply": True, **body}
    response = api.post("/v1/facts/check", data)
    assert response.status_code == 400, response.content
    assert response.json()["error"]["code"] in {"invalid_input", "invalid_time"}
    assert counts() == before


@pytest.mark.django_db(transaction=True)
def test_cli_check_prints_contradictions_and_applies(capsys):
    agent = make_agent(default_workspace(), "A")
    state(agent, "Google", user="U")
    code = main(["memory", "facts", "check", "--agent", "A", "--user", "U", SEED])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert "Google -> Anthropic" in out
    assert "UPDATE" in out
    assert Fact.objects.filter(value="Anthropic").count() == 0

    code = main(["memory", "facts", "check", "--agent", "A", "--user", "U", SEED, "--apply"])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert Fact.objects.get(value="Anthropic").status == Status.CURRENT

    code = main(["memory", "facts", "check", "--agent", "A", "--user", "U", SEED, "--json"])
    out, err = capsys.readouterr()
    data = json.loads(out)
    assert sorted(c["fact"]["value"] for c in data["confirmed"]) == ["Anthropic", "Surabaya"]
    assert FactSource.objects.get(fact__value="Surabaya").kind == "operator"


def current_slots(agent):
    return {
        (f.predicate, f.qualifier): f.value
        for f in Fact.objects.filter(agent=agent, user_ref="u1").current()
    }


def test_a_timeline_applied_turn_by_turn_keeps_the_current_slots_right(api, agent):
    turns = [
        ("Hi! I work at Google and I live in Jakarta.", {"employer": "Google", "city": "Jakarta"}),
        ("My sister works at Adobe.", {"employer": "Google", "city": "Jakarta"}),
        (SEED, {"employer": "Anthropic", "city": "Surabaya"}),
        ("I might apply at Spotify though.", {"employer": "Anthropic", "city": "Surabaya"}),
        ("I left Anthropic.", {"city": "Surabaya"}),
        ("Just joined Figma!", {"employer": "Figma", "city": "Surabaya"}),
        ("I love sushi.", {"employer": "Figma", "city": "Surabaya", "likes[sushi]": "sushi"}),
        # A like that ended in a dislike (issue 22: a reversal ends one and adds the other).
        (
            "I don't like sushi anymore.",
            {"employer": "Figma", "city": "Surabaya", "dislikes[sushi]": "sushi"},
        ),
    ]
    for text, expected in turns:
        ok(check(api, text, apply=True))
        slots = {
            f"{predicate}[{qualifier}]" if qualifier else predicate: value
            for (predicate, qualifier), value in current_slots(agent).items()
        }
        assert slots == expected, text


def test_a_pasted_email_or_a_draft_teaches_nothing_about_the_user_but_their_own_words_do(
    api, agent
):
    text = (
        "I live in Leeds and work at Asda. can you check my reply to Tom: 'Hi Tom, I'm the new"
        " manager at Tesco and I live in York now'\n\nOn Mon, Tom <t@x.com> wrote:\n"
        "> I moved to Cardiff and I work at Lidl"
    )
    answer = ok(check(api, text, apply=True))
    learned = {(i["predicate"], i["value"]) for i in answer["new"]}
    assert learned == {("city", "Leeds"), ("employer", "Asda")}
    assert set(Fact.objects.values_list("value", flat=True)) == {"Leeds", "Asda"}
