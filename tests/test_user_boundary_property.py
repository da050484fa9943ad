"""The user boundary as a property: one agent serves several users, through its API key, in
generated sequences of stores (with and without sessions, with and without a user), session
ends with summaries, deduplication and the graph the stores build; after every step, a
recall or a turn's context for a user holds only that user's memories and the agent's
shared ones, and without a user only the shared ones.

Every text carries its owner's token (a user's, or the shared one), so a leak shows in the
prompt's text as well as in the ids. The sequences are derandomized: every run walks the
same ones.
"""

from dataclasses import dataclass, field

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule, run_state_machine_as_test

from tests.conftest import ApiClient
from tests.factories import make_key, make_workspace

pytestmark = pytest.mark.django_db

USERS = ("ana", "bob", "cyd")
TOKENS = {"ana": "amberfox", "bob": "bluejay", "cyd": "cyanowl", None: "sharedkit"}
WORDS = ("garden", "invoice", "holiday", "piano", "trip")
AGENT = "helpdesk"


@dataclass
class Stored:
    owner: dict[int, str | None] = field(default_factory=dict)


def _text(owner: str | None, word: str, n: int) -> str:
    return f"{TOKENS[owner]} note {n} about the {word} plan and the {word} budget"


class OneAgentManyUsers(RuleBasedStateMachine):
    examples = 0

    def __init__(self) -> None:
        super().__init__()
        OneAgentManyUsers.examples += 1
        workspace = make_workspace(f"users-{OneAgentManyUsers.examples}")
        self.api = ApiClient(make_key(workspace))
        self.stored = Stored()
        self.sessions: dict[int, str] = {}
        self.count = 0

    def _keep(self, response) -> None:
        assert response.status_code == 201, response.content
        items = response.json().get("items") or [response.json()]
        for item in items:
            self.stored.owner[item["id"]] = item["user"]

    @rule(owner=st.sampled_from([*USERS, None]), word=st.sampled_from(WORDS))
    def store_without_session(self, owner: str | None, word: str) -> None:
        self.count += 1
        body = {"agent_id": AGENT, "content": _text(owner, word, self.count)}
        if owner is not None:
            body["user"] = owner
        self._keep(self.api.post("/v1/memories", body))

    @rule(user=st.sampled_from(USERS))
    def start_session(self, user: str) -> None:
        started = self.api.post("/v1/sessions", {"agent_id": AGENT, "user": user})
        assert started.status_code == 201, started.content
        self.sessions[started.json()["id"]] = user

    @rule(data=st.data(), word=st.sampled_from(WORDS), turns=st.integers(1, 4))
    def store_turns_in_a_session(self, data: st.DataObject, word: str, turns: int) -> None:
        if not self.sessions:
            return
        session_id = data.draw(st.sampled_from(sorted(self.sessions)))
        user = self.sessions[session_id]
        items = []
        for _ in range(turns):
            self.count += 1
            items.append({"content": _text(user, word, self.count), "session_id": session_id})
        self._keep(self.api.post("/v1/memories/batch", {"agent_id": AGENT, "items": items}))

    @rule(data=st.data())
    def end_a_session(self, data: st.DataObject) -> None:
        if not self.sessions:
            return
        session_id = data.draw(st.sampled_from(sorted(self.sessions)))
        user = self.sessions[session_id]
        summary = f"{TOKENS[user]} summary of the trip and the garden"
        self.api.post(f"/v1/sessions/{session_id}/end", {"summary": summary})
        # Ending may store the summary as a memory: it must be the session user's.
        self.stored.owner = {m["id"]: m["user"] for m in self._all_memories()}

    @rule()
    def deduplicate(self) -> None:
        body = {"agent_id": AGENT, "confirm": True}
        response = self.api.post("/v1/memories/deduplicate", body)
        assert response.status_code in (200, 404), response.content
        if response.status_code == 200:
            # Merged memories are gone; the survivors keep their owners.
            listed = self._all_memories()
            self.stored.owner = {m["id"]: m["user"] for m in listed}

    def _all_memories(self) -> list[dict]:
        found, cursor = [], None
        while True:
            params = {"agent_id": AGENT, "limit": 100}
            if cursor:
                params["cursor"] = cursor
            page = self.api.get("/v1/memories", **params).json()
            found += page["items"]
            cursor = page["next_cursor"]
            if not cursor:
                return found

    def _check(self, items: list[dict], text: str, user: str | None) -> None:
        allowed = {user, None}
        for item in items:
            assert item["user"] in allowed, (user, item)
        for other, token in TOKENS.items():
            if other not in allowed:
                assert token not in text, (user, other, text)

    @invariant()
    def recall_and_context_keep_to_their_user(self) -> None:
        if not self.stored.owner:
            return
        for user in (*USERS, None):
            for word in ("plan", "trip garden summary"):
                body = {"agent_id": AGENT, "query": word, "top_k": 20}
                if user is not None:
                    body["user"] = user
                recalled = self.api.post("/v1/memory/recall", body)
                assert recalled.status_code == 200, recalled.content
                items = recalled.json()["items"]
                self._check(items, " ".join(i["content"] for i in items), user)
                expected = {i for i, owner in self.stored.owner.items() if owner in (user, None)}
                assert {i["id"] for i in items} <= expected
                context = self.api.post("/v1/context", {**body, "budget_tokens": 4000})
                assert context.status_code == 200, context.content
                answer = context.json()
                self._check(answer["episodic"] + answer["working"], answer["prompt"], user)
        for session_id, user in self.sessions.items():
            context = self.api.post(
                "/v1/context", {"agent_id": AGENT, "query": "plan", "session_id": session_id}
            )
            assert context.status_code == 200, context.content
            answer = context.json()
            self._check(answer["episodic"] + answer["working"], answer["prompt"], user)


def test_recall_and_context_never_cross_users():
    run_state_machine_as_test(
        OneAgentManyUsers,
        settings=settings(
            max_examples=5,
            stateful_step_count=20,
            derandomize=True,
            database=None,
            deadline=None,
            suppress_health_check=list(HealthCheck),
            phases=[Phase.explicit, Phase.reuse, Phase.generate],
        ),
    )
