"""The context's semantic tier: the entities a turn names, with their current facts, within
its share of the budget, from the agent's own rows only, writing nothing but the accesses
a turn records."""

import pytest

from facts.models import Fact, Status
from facts.services import Claim, SourceInput, assert_fact
from knowledge.context import ENTITIES_SHARE, HEADINGS, HEADINGS_TOKENS, estimate_tokens
from memory.models import Entity, EntityMention, Memory, MemoryEdge
from tenancy.models import Agent
from tests.factories import make_agent

pytestmark = pytest.mark.django_db

OPERATOR = SourceInput(kind="operator", operator="op")


def remember(api, content, agent_id="support-bot", **fields):
    response = api.post("/v1/memories", {"agent_id": agent_id, "content": content, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def state(agent, subject, predicate, value, user=""):
    return assert_fact(
        agent=agent,
        claim=Claim(user=user, subject=subject, predicate=predicate, value=value),
        source=OPERATOR,
        actor="t",
    )


def context(api, query, **fields):
    body = {"agent_id": "support-bot", "query": query, "budget_tokens": 1000, **fields}
    response = api.post("/v1/context", body)
    assert response.status_code == 200, response.content
    return response.json()


def test_a_turn_naming_a_stored_person_gets_the_person_and_their_current_fact(api, agent):
    remember(api, "Caroline: I moved to Boston last spring")
    state(agent, "Caroline", "city", "Denver")
    state(agent, "Caroline", "city", "Boston")
    assert Fact.objects.get(value="Denver").status == Status.HISTORY

    body = context(api, "Where does Caroline live now?")

    (caroline,) = body["entities"]
    assert (caroline["type"], caroline["name"], caroline["mention_count"]) == (
        "person",
        "Caroline",
        1,
    )
    assert [(f["subject"], f["predicate"], f["value"]) for f in caroline["facts"]] == [
        ("Caroline", "city", "Boston")
    ]
    assert caroline["facts"][0]["status"] == "current"
    assert (
        f"{HEADINGS[1]}\n- Caroline (person, in 1 memory)\n  - Caroline.city: Boston"
        in (body["prompt"])
    )
    assert "Denver" not in body["prompt"]


def test_an_entity_is_matched_by_alias_and_case_and_a_fact_by_its_value(api, agent):
    remember(api, "Caroline: hi there")
    Entity.objects.filter(name="Caroline").update(
        aliases=["Caro"], search_keys="\ncaroline\ncaro\n"
    )
    state(agent, "user", "sister", "Caroline", user="u1")

    body = context(api, "Did I tell CARO about it? Caro knows.", user="u1")

    (caroline,) = body["entities"]
    assert caroline["name"] == "Caroline"
    assert [(f["subject"], f["value"], f["user"]) for f in caroline["facts"]] == [
        ("user", "Caroline", "u1")
    ]


def test_facts_of_the_user_or_of_no_user_are_served_never_another_users(api, agent):
    remember(api, "Caroline: I moved to Boston")
    state(agent, "Caroline", "employer", "Acme")
    state(agent, "Caroline", "mood", "cheerful", user="u1")
    state(agent, "Caroline", "mood", "grumpy", user="u2")

    def facts_for(**fields):
        (caroline,) = context(api, "How is Caroline?", **fields)["entities"]
        return {(f["predicate"], f["value"]) for f in caroline["facts"]}

    assert facts_for(user="u1") == {("employer", "Acme"), ("mood", "cheerful")}
    assert facts_for(user="u2") == {("employer", "Acme"), ("mood", "grumpy")}
    assert facts_for() == {("employer", "Acme")}


def test_facts_that_no_longer_hold_are_left_out(api, agent):
    remember(api, "Caroline: I moved to Boston")
    ended = state(agent, "Caroline", "employer", "Acme")
    Fact.objects.filter(pk=ended.fact.pk).update(valid_to="2001-01-01T00:00:00Z")
    state(agent, "Caroline", "hobby", "chess")
    rejected = state(agent, "Caroline", "hobby", "darts")
    Fact.objects.filter(pk=rejected.fact.pk).update(status=Status.REJECTED)

    (caroline,) = context(api, "What about Caroline?")["entities"]

    assert [f["value"] for f in caroline["facts"]] == []


def test_nothing_of_another_agent_or_workspace_comes_in(api, other_api, agent, workspace):
    colleague = make_agent(workspace, "sales-bot")
    remember(api, "Caroline: I moved to Boston", agent_id="sales-bot")
    state(colleague, "Caroline", "city", "Boston")
    remember(other_api, "Caroline: I moved to Paris", agent_id="globex-bot")
    state(Agent.objects.get(agent_id="globex-bot"), "Caroline", "city", "Paris")

    body = context(api, "Where does Caroline live?")

    assert body["entities"] == []
    assert "Boston" not in body["prompt"]
    assert "Paris" not in body["prompt"]
    # Its own entity of the same name gets only its own facts.
    remember(api, "Caroline: hello")
    (caroline,) = context(api, "Where does Caroline live?")["entities"]
    assert Entity.objects.get(pk=caroline["id"]).agent == agent
    assert caroline["facts"] == []


def test_the_tier_keeps_to_its_share_of_the_budget(api, agent):
    remember(api, "Caroline: I moved to Boston")
    for i in range(10):
        state(agent, "Caroline", f"note{i}", f"detail {i}: " + "long words " * 4)

    body = context(api, "Tell me about Caroline", budget_tokens=600)

    (caroline,) = body["entities"]
    assert 0 < len(caroline["facts"]) < 10
    section = body["prompt"].split("\n\n")[0]
    assert section.startswith(HEADINGS[1])
    lines = section.split("\n")[1:]
    assert len(lines) == 1 + len(caroline["facts"])
    share = int((600 - HEADINGS_TOKENS) * ENTITIES_SHARE)
    assert sum(estimate_tokens(line + "\n") for line in lines) <= share
    assert body["used_tokens"] <= 600
    # A budget with no room for even the entity's line leaves it out.
    tight = context(api, "Tell me about Caroline " + "please " * 10, budget_tokens=50)
    assert tight["used_tokens"] <= 50


def test_a_turn_that_names_nothing_known_gets_no_entities(api, agent):
    remember(api, "Caroline: I moved to Boston")
    state(agent, "Caroline", "city", "Boston")

    for query in ["where did she move?", "Where does Melanie live?", ""]:
        body = context(api, query)
        assert body["entities"] == []
        assert HEADINGS[1] not in body["prompt"]


def test_the_tier_writes_nothing_but_the_access_of_the_facts_it_serves(api, agent):
    remember(api, "Caroline: I moved to Boston")
    remember(api, "Caroline went to the support group")
    served = state(agent, "Caroline", "city", "Boston").fact
    entity = Entity.objects.get(name="Caroline")
    entities = Entity.objects.order_by("id").values_list(
        "id", "mention_count", "last_seen", "aliases"
    )

    def snapshot() -> tuple:
        return (
            list(entities),
            EntityMention.objects.count(),
            MemoryEdge.objects.count(),
            Memory.objects.count(),
            Fact.objects.count(),
        )

    before = snapshot()
    context(api, "Where does Caroline live?")
    assert snapshot() == before
    assert entity.mention_count == 2
    served.refresh_from_db()
    assert served.access_count == 1


def test_a_whole_name_is_one_entity_that_its_first_name_finds(api, agent):
    remember(api, "Lunch with Maria Lopez at the harbour cafe")
    state(agent, "Maria Lopez", "employer", "Acme")

    body = context(api, "Where does Maria work?")

    (maria,) = body["entities"]
    assert (maria["name"], maria["mention_count"]) == ("Maria Lopez", 1)
    assert [(f["subject"], f["value"]) for f in maria["facts"]] == [("Maria Lopez", "Acme")]
