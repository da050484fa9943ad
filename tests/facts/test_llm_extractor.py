"""The optional LLM extractor: an OpenAI-compatible chat completions API the operator
configures, here a real HTTP server on loopback that plays the model."""

import json
import threading
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.checks import run_checks

from facts.models import Fact, Status
from language.extraction.llm import check_extractor
from tests.factories import state

pytestmark = pytest.mark.django_db


class _Model(BaseHTTPRequestHandler):
    """Answers every completion with ``statements`` as the model's JSON, or with ``status``."""

    status = 200
    statements: list[dict] = []
    received: list[dict] = []

    def do_POST(self):
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        type(self).received.append(
            {"path": self.path, "body": body, "auth": self.headers.get("Authorization")}
        )
        if self.status != 200:
            self.send_response(self.status)
            self.end_headers()
            return
        content = json.dumps({"statements": self.statements})
        answer = {"choices": [{"message": {"role": "assistant", "content": content}}]}
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(json.dumps(answer).encode())

    def log_message(self, *args):
        pass


@pytest.fixture
def model(settings):
    handler = type("Handler", (_Model,), {"received": [], "statements": []})
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.DEWEE_FACTS_EXTRACTOR = "llm"
    settings.DEWEE_FACTS_LLM_URL = f"http://127.0.0.1:{server.server_address[1]}/v1"
    settings.DEWEE_FACTS_LLM_MODEL = "local-model"
    settings.DEWEE_FACTS_LLM_API_KEY = "sk-test"
    settings.DEWEE_FACTS_LLM_TIMEOUT_SECS = 5
    yield handler
    server.shutdown()
    server.server_close()
    thread.join()


def check(api, text, **extra):
    body = {"agent_id": "support-bot", "user": "ana", "text": text, **extra}
    response = api.post("/v1/facts/check", body)
    assert response.status_code == 200, response.content
    return response.json()


def test_the_models_statements_are_checked_and_applied_like_the_rules(api, agent, model):
    text = "Things are good, I'm at Netflix these days."
    model.statements = [
        {
            "predicate": "employer",
            "value": "Netflix",
            "evidence": "I'm at Netflix",
            "confidence": 0.9,
        },
        # Left out: outside the vocabulary, and evidence the text does not hold.
        {"predicate": "mood", "value": "good", "evidence": "Things are good"},
        {"predicate": "city", "value": "Oslo", "evidence": "I live in Oslo"},
    ]
    data = check(api, text, apply=True)
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("employer", "Netflix")]
    fact = Fact.objects.get(agent=agent, user_ref="ana")
    assert (fact.predicate, fact.value, fact.status) == ("employer", "Netflix", Status.CURRENT)
    assert fact.sources.get().excerpt == "I'm at Netflix"
    (request,) = model.received
    assert request["path"] == "/v1/chat/completions"
    assert request["auth"] == "Bearer sk-test"
    assert request["body"]["model"] == "local-model"
    assert request["body"]["messages"][-1]["content"] == text


def test_a_future_date_without_a_zone_is_read_as_utc_and_applied(api, agent, model):
    state(agent, "Google", user="ana")
    model.statements = [
        {
            "predicate": "employer",
            "value": "Canva",
            "evidence": "I join Canva",
            "valid_from": "2031-01-01",
            "confidence": 1.0,
        },
    ]
    data = check(api, "I join Canva in January.", apply=True, now="2030-12-01T09:00:00Z")
    assert data["applied"][0]["outcome"] == "superseded"
    canva = Fact.objects.get(agent=agent, value="Canva")
    assert canva.valid_from == datetime(2031, 1, 1, tzinfo=UTC)
    assert Fact.objects.get(agent=agent, value="Google").valid_to == canva.valid_from


def test_a_failing_model_falls_back_to_the_rules(api, agent, model):
    model.status = 500
    data = check(api, "I work at Google")
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("employer", "Google")]
    assert len(model.received) == 1


def test_an_answer_that_is_not_the_asked_shape_falls_back_to_the_rules(api, agent, model):
    model.statements = "employer: Google"
    data = check(api, "I work at Google")
    assert [(n["predicate"], n["value"]) for n in data["new"]] == [("employer", "Google")]


def test_by_default_no_model_is_asked(api, agent, model, settings):
    settings.DEWEE_FACTS_EXTRACTOR = "rules"
    check(api, "I work at Google")
    assert model.received == []


def test_the_llm_extractor_without_a_url_is_a_system_check_error(settings):
    settings.DEWEE_FACTS_EXTRACTOR = "llm"
    settings.DEWEE_FACTS_LLM_URL = ""
    assert [e.id for e in check_extractor()] == ["facts.E002"]
    settings.DEWEE_FACTS_EXTRACTOR = "gpt"
    assert [e.id for e in check_extractor()] == ["facts.E001"]
    settings.DEWEE_FACTS_EXTRACTOR = "rules"
    assert "facts.E001" not in [e.id for e in run_checks()]
