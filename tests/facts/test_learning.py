"""Facts learned from what agents store: each new memory about a user is checked against
the agent's facts about that user, through the REST API, inline or by the worker."""

import pytest
from django_q.models import OrmQ
from django_q.signing import SignedPackage

from facts.models import Fact, FactSource, SourceKind, Status
from facts.tasks import learn_facts
from memory.models import Memory
from tests.memory.test_policy import put

pytestmark = pytest.mark.django_db(transaction=True)


def store(api, content, **fields):
    response = api.post("/v1/memories", {"agent_id": "support-bot", "content": content, **fields})
    assert response.status_code == 201, response.content
    return response.json()


def current(agent, user="ana"):
    facts = Fact.objects.filter(agent=agent, user_ref=user, status=Status.CURRENT)
    return {(f.predicate, f.qualifier): f.value for f in facts}


def test_a_memory_stored_with_sync_learning_answers_with_the_facts_it_taught(api, agent):
    stored = store(
        api, "I just moved to Lisbon. I work at Figma.", user="ana", extract_facts="sync"
    )
    learned = {(f["predicate"], f["value"]) for f in stored["facts_learned"]}
    assert learned == {("city", "Lisbon"), ("employer", "Figma")}
    assert current(agent) == {("city", ""): "Lisbon", ("employer", ""): "Figma"}
    (source,) = FactSource.objects.filter(fact__predicate="city")
    assert source.memory_id == stored["id"]
    assert source.kind == SourceKind.MEMORY_DOCUMENT
    assert "Lisbon" in source.excerpt


def test_a_later_memory_supersedes_what_an_earlier_one_taught(api, agent):
    store(api, "I live in Jakarta and I work at Google", user="ana", extract_facts="sync")
    store(
        api,
        "I just moved to Surabaya for my new job at Anthropic",
        user="ana",
        extract_facts="sync",
    )
    assert current(agent) == {("city", ""): "Surabaya", ("employer", ""): "Anthropic"}
    old = Fact.objects.get(agent=agent, predicate="employer", value="Google")
    assert old.status == Status.HISTORY


def test_deleting_the_memory_erases_the_facts_learned_only_from_it(api, agent):
    stored = store(api, "I'm a vegetarian", user="ana", extract_facts="sync")
    assert current(agent) == {("diet", ""): "vegetarian"}
    assert api.delete(f"/v1/memories/{stored['id']}").status_code in (200, 204)
    assert not Fact.objects.filter(agent=agent).exists()


def test_nothing_is_learned_from_a_memory_about_no_user_or_not_in_the_users_words(api, agent):
    assert store(api, "I work at Google", extract_facts="sync")["facts_learned"] == []
    other = store(api, "Assistant: I work at Google", user="ana", extract_facts="sync")
    assert other["facts_learned"] == []
    traps = store(api, "Do you think I should move to Porto?", user="ana", extract_facts="sync")
    assert traps["facts_learned"] == []
    assert not Fact.objects.filter(agent=agent).exists()
    # A turn labelled with the user's own name, or "User", is the user's words.
    store(api, "[8 May 2030] ana: I work at Google", user="ana", extract_facts="sync")
    assert current(agent) == {("employer", ""): "Google"}


def test_a_session_gives_its_user_to_the_memories_that_teach(api, agent):
    session = api.post("/v1/sessions", {"agent_id": "support-bot", "user": "ana"}).json()
    store(api, "User: my email is ana@example.org", session_id=session["id"], extract_facts="sync")
    assert current(agent) == {("email", ""): "ana@example.org"}


def test_by_default_the_worker_learns_after_the_store(api, agent):
    stored = store(api, "I speak Portuguese", user="ana")
    assert "facts_learned" not in stored or stored["facts_learned"] is None
    assert not Fact.objects.filter(agent=agent).exists()
    (task,) = [SignedPackage.loads(q.payload) for q in OrmQ.objects.all()]
    assert task["func"] == "facts.tasks.learn_facts"
    assert task["args"] == ([stored["id"]],)
    # What the worker runs:
    assert learn_facts(*task["args"])["memories"] == 1
    assert current(agent) == {("language", "portuguese"): "Portuguese"}


def test_a_policy_or_a_request_can_turn_learning_off(api, agent):
    assert (
        put(api, "/v1/agents/support-bot/memory_policy", {"extract_facts": False}).status_code
        == 200
    )
    store(api, "I work at Google", user="ana")
    assert not OrmQ.objects.exists()
    store(api, "I work at Google", user="ana", extract_facts="off")
    assert not OrmQ.objects.exists()
    # The request still wins over the policy.
    store(api, "I work at Google", user="ana", extract_facts="sync")
    assert current(agent) == {("employer", ""): "Google"}


def test_a_memory_erased_before_the_worker_runs_teaches_nothing(api, agent):
    stored = store(api, "I work at Google", user="ana")
    Memory.objects.filter(pk=stored["id"]).delete()
    assert learn_facts([stored["id"]]) == {"memories": 0, "applied": 0, "failed": 0}
    assert not Fact.objects.filter(agent=agent).exists()


def test_an_unknown_learning_mode_is_refused_and_nothing_is_stored(api, agent):
    response = api.post(
        "/v1/memories",
        {"agent_id": "support-bot", "content": "I work at Google", "extract_facts": "now"},
    )
    assert response.status_code == 400
    assert not Memory.objects.filter(agent=agent).exists()


@pytest.mark.parametrize(
    ("text", "learned"),
    [
        ("fyi: I moved to Lisbon", ("city", "Lisbon")),
        ("Fyi: I moved to Lisbon", ("city", "Lisbon")),
        ("update: I work at Acme now", ("employer", "Acme")),
        ("Update: I work at Acme now", ("employer", "Acme")),
        ("Note: I moved to Lisbon", ("city", "Lisbon")),
        ("btw: I moved to Lisbon", ("city", "Lisbon")),
        ("ps: I moved to Lisbon", ("city", "Lisbon")),
        ("edit: I moved to Lisbon", ("city", "Lisbon")),
        ("note: I moved to Lisbon", ("city", "Lisbon")),
        ("ok so: I moved to Lisbon", ("city", "Lisbon")),
        ("10:30 I moved to Lisbon", ("city", "Lisbon")),
        ("I moved to Lisbon, see https://example.org/lisbon for the flat", ("city", "Lisbon")),
        ("https://example.org/move I moved to Lisbon", ("city", "Lisbon")),
        ("I moved to Lisbon: the flat is small but lovely", ("city", "Lisbon")),
        ("Me: I moved to Lisbon", ("city", "Lisbon")),
        ("Customer: I moved to Lisbon", ("city", "Lisbon")),
        ("Bob: I moved to Lisbon", ("city", "Lisbon")),
    ],
)
def test_a_colon_that_names_no_speaker_does_not_stop_learning(api, agent, text, learned):
    stored = store(api, text, user="bob", extract_facts="sync")
    assert learned in {(f["predicate"], f["value"]) for f in stored["facts_learned"]}
    assert current(agent, user="bob")[(learned[0], "")] == learned[1]


@pytest.mark.parametrize(
    "text",
    ["Assistant: you work at Acme", "Assistant: I work at Acme", "Maria: I moved to Rome"],
)
def test_someone_elses_turn_teaches_nothing_about_the_user(api, agent, text):
    stored = store(api, text, user="bob", extract_facts="sync")
    assert stored["facts_learned"] == []
    assert not Fact.objects.filter(agent=agent, user_ref="bob").exists()
