"""Agent ids that read the same are the same id, or refused: a new id is stored in NFC and
found typed in either form, and ids with invisible characters, bidirectional controls,
control characters, compatibility forms or mixed scripts are refused with
``invalid_agent_id`` and the reason, through every way agents are created. Agents stored
before these rules keep working under their ids."""

import unicodedata
from urllib.parse import quote

import pytest

from dewee.cli import main
from memory.models import Memory
from tenancy.access import Access
from tenancy.exceptions import InvalidAgentId
from tenancy.models import Agent
from tenancy.services import ensure_agent
from tenancy.validation import clean_new_agent_id
from tests.facts.test_api import assert_error, body

pytestmark = pytest.mark.django_db

CAFE_NFC = "caf\u00e9-bot"  # é as one code point
CAFE_NFD = "cafe\u0301-bot"  # e + COMBINING ACUTE ACCENT

# Each reads as an ordinary id in the agent list, yet is a different string.
LOOKALIKES = [
    ("p\u0430ypal-bot", "mixed_scripts"),  # Cyrillic а among Latin letters
    ("support\u200bbot", "invisible_character"),  # ZERO WIDTH SPACE
    ("support\u2060bot", "invisible_character"),  # WORD JOINER
    ("\ufeffsupport-bot", "invisible_character"),  # ZERO WIDTH NO-BREAK SPACE
    ("support\u00a0bot", "invisible_character"),  # NO-BREAK SPACE
    ("support-bot\ufe0f", "invisible_character"),  # VARIATION SELECTOR-16
    ("bot\u202egnp.exe", "bidirectional_control"),  # RIGHT-TO-LEFT OVERRIDE
    ("bot\u2067x", "bidirectional_control"),  # RIGHT-TO-LEFT ISOLATE
    ("bot\u0085x", "control_character"),  # NEXT LINE, a C1 control
    ("\uff53\uff55\uff50\uff50\uff4f\uff52\uff54", "compatibility_form"),  # fullwidth
    ("\ufb01le-bot", "compatibility_form"),  # the ligature ﬁ
    ("agent\u09ea", "mixed_scripts"),  # Bengali digit four, read as 8
]

ACCEPTED = [
    "support-bot",
    "Support_Bot.v2",
    "agent 7",
    CAFE_NFC,
    "\u0430\u0433\u0435\u043d\u0442-7",  # Cyrillic only: агент-7
    "\u03c0\u03c1\u03c9\u03c4\u03bf",  # Greek only
    "\u6771\u4eac\u30a8\u30fc\u30b8\u30a7\u30f3\u30c8",  # Japanese: Han + Katakana + ー
    "\uc11c\uc6b8-bot",  # Hangul with Latin
    "\u0648\u0643\u064a\u0644\u0661",  # Arabic letters with an Arabic-Indic digit
    "Hawai\u02bbi",  # a modifier letter belongs to every script
]


@pytest.mark.parametrize(("agent_id", "reason"), LOOKALIKES)
def test_a_lookalike_id_is_refused_with_its_reason(agent_id, reason):
    with pytest.raises(InvalidAgentId) as refused:
        clean_new_agent_id(agent_id)
    assert refused.value.code == "invalid_agent_id"
    assert refused.value.details["reason"] == reason


@pytest.mark.parametrize("agent_id", ACCEPTED)
def test_ordinary_ids_in_any_one_script_are_accepted(agent_id):
    assert clean_new_agent_id(agent_id) == agent_id


def test_the_error_names_the_character_and_the_scripts(api, workspace):
    error = assert_error(
        api.post("/v1/agents", {"agent_id": "support\u200bbot"}), 400, "invalid_agent_id"
    )
    assert error["details"] == {
        "field": "agent_id",
        "reason": "invisible_character",
        "character": "U+200B ZERO WIDTH SPACE",
    }
    assert "U+200B ZERO WIDTH SPACE" in error["message"]
    mixed = assert_error(
        api.post("/v1/agents", {"agent_id": "p\u0430ypal"}), 400, "invalid_agent_id"
    )
    assert "(Cyrillic, Latin)" in mixed["message"]
    wide = assert_error(
        api.post("/v1/agents", {"agent_id": "\uff41\uff42"}), 400, "invalid_agent_id"
    )
    assert "write 'ab' instead" in wide["message"]


@pytest.mark.parametrize(("agent_id", "reason"), LOOKALIKES)
def test_the_api_creates_no_agent_with_a_lookalike_id(api, workspace, agent_id, reason):
    for response in [
        api.post("/v1/agents", {"agent_id": agent_id}),
        api.post("/v1/memories", {"agent_id": agent_id, "content": "hello"}),
        api.post("/v1/memories/batch", {"agent_id": agent_id, "items": [{"content": "hi"}]}),
    ]:
        error = assert_error(response, 400, "invalid_agent_id")
        assert error["details"]["reason"] == reason
    assert not Agent.objects.exists()
    assert not Memory.objects.exists()


def test_the_cli_refuses_a_lookalike_id(capsys, workspace):
    code = main(["agents", "create", "support\u200bbot", "--workspace", "acme"])
    _, err = capsys.readouterr()
    assert code == 1
    assert "U+200B ZERO WIDTH SPACE" in err
    assert not Agent.objects.exists()


def test_an_id_is_stored_in_nfc_and_found_typed_either_way(api, workspace):
    created = api.post("/v1/agents", {"agent_id": CAFE_NFD})
    assert created.status_code == 201, created.content
    assert created.json()["agent_id"] == CAFE_NFC
    assert Agent.objects.get().agent_id == CAFE_NFC
    assert_error(api.post("/v1/agents", {"agent_id": CAFE_NFC}), 409, "agent_exists")
    for typed in (CAFE_NFC, CAFE_NFD):
        stored = api.post("/v1/memories", {"agent_id": typed, "content": f"as {typed}"})
        assert stored.status_code == 201, stored.content
        assert api.get(f"/v1/agents/{quote(typed)}").json()["agent_id"] == CAFE_NFC
        assert api.post("/v1/facts", body(agent_id=typed)).status_code == 200
        assert len(api.get("/v1/facts", agent_id=typed).json()["items"]) == 1
    assert Agent.objects.count() == 1
    assert Memory.objects.count() == 2


def test_the_cli_and_the_dashboard_find_an_agent_typed_either_way(capsys, admin_client, workspace):
    assert main(["agents", "create", CAFE_NFD, "--workspace", "acme"]) == 0
    capsys.readouterr()
    assert Agent.objects.get().agent_id == CAFE_NFC
    assert main(["memory", "facts", "list", "--agent", CAFE_NFD, "--json"]) == 0
    page = admin_client.get("/dashboard/facts/", {"agent": CAFE_NFD})
    assert page.status_code == 200
    assert page.context["agent"].agent_id == CAFE_NFC


# Agents stored before ids were checked for look-alikes and normalised: each stays
# reachable by the id it has, through every interface; only new ids are refused.
LEGACY = ["support\u200bbot", "p\u0430ypal-bot", "bot\u202egnp.exe", CAFE_NFD]


@pytest.mark.parametrize("agent_id", LEGACY)
def test_an_agent_stored_before_the_rules_keeps_working(api, workspace, agent_id):
    legacy = Agent.objects.create(workspace=workspace, agent_id=agent_id)
    stored = api.post("/v1/memories", {"agent_id": agent_id, "content": "Ann likes tea"})
    assert stored.status_code == 201, stored.content
    assert api.get(f"/v1/agents/{quote(agent_id)}").json()["agent_id"] == agent_id
    assert api.post("/v1/facts", body(agent_id=agent_id)).status_code == 200
    assert len(api.get("/v1/facts", agent_id=agent_id).json()["items"]) == 1
    recalled = api.post("/v1/memory/recall", {"agent_id": agent_id, "query": "tea"})
    assert recalled.status_code == 200, recalled.content
    assert Access(actor="test").agent(agent_id) == legacy
    assert ensure_agent(workspace=workspace, agent_id=agent_id) == legacy
    assert [a.agent_id for a in Agent.objects.all()] == [agent_id]
    assert Memory.objects.get().agent == legacy


def test_a_legacy_decomposed_id_is_found_precomposed_and_not_taken_twice(api, workspace):
    legacy = Agent.objects.create(workspace=workspace, agent_id=CAFE_NFD)
    assert unicodedata.normalize("NFC", legacy.agent_id) == CAFE_NFC
    assert Access(actor="test").agent(CAFE_NFC) == legacy
    assert_error(api.post("/v1/agents", {"agent_id": CAFE_NFC}), 409, "agent_exists")
    stored = api.post("/v1/memories", {"agent_id": CAFE_NFC, "content": "hello"})
    assert stored.status_code == 201, stored.content
    assert Agent.objects.count() == 1


def test_an_exact_legacy_id_wins_over_its_normal_form(workspace):
    decomposed = Agent.objects.create(workspace=workspace, agent_id=CAFE_NFD)
    composed = Agent.objects.create(workspace=workspace, agent_id=CAFE_NFC)
    access = Access(actor="test")
    assert access.agent(CAFE_NFD) == decomposed
    assert access.agent(CAFE_NFC) == composed
