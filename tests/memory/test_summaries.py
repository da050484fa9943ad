"""Session summaries: the extractive summariser, the HTTP one against a real loopback server,
and the setting that picks one (a system check refuses a bad one)."""

import json
import logging
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.core.checks import run_checks

from memory.sessions.summaries import (
    check_summariser,
    extractive_summary,
    http_summary,
    split_sentences,
)

TEA = ["Ann loves green tea.", "Ann really loves green tea!", "Green tea is what Ann loves."]
CONVERSATION = [
    "The quarterly tax report is due on Friday.",
    f"{TEA[0]} My car needs new brake pads before winter.",
    TEA[1],
    "The football match ended in a draw.",
    TEA[2],
    "Paris hosted the science conference in June.",
    "Please water the tomato plants tonight.",
]


def test_sentences_are_split_across_texts_in_order_each_once():
    assert split_sentences(["One two three. Four five six!\nSeven eight?", "One two three."]) == [
        "One two three.",
        "Four five six!",
        "Seven eight?",
    ]


def test_the_summary_is_the_most_central_sentences_in_their_original_order():
    # Three sentences say the same thing; the five others have nothing in common with them
    # or with each other, so the centroid of all eight lies toward the three.
    assert extractive_summary(CONVERSATION) == " ".join(TEA)


def test_a_short_input_is_still_shortened_and_an_empty_one_gives_nothing():
    two = ["Ann booked a flight to Lisbon.", "Ann booked a flight to Lisbon for May."]
    summary = extractive_summary(two)
    assert summary in two  # at most half of the sentences: one of two
    assert extractive_summary([]) == ""
    assert extractive_summary(["  ", "\n"]) == ""


def test_sentences_without_content_are_left_out():
    texts = ["Yes.", "Ok!", "Ann moved to Berlin in March.", "Thanks."]
    assert extractive_summary(texts) == "Ann moved to Berlin in March."


class _Summariser(BaseHTTPRequestHandler):
    """A summarising service: answers with the number of texts and the first one, or with
    the status the test asks for."""

    status = 200
    delay = 0.0
    received: list[dict] = []

    def do_POST(self):
        length = int(self.headers["Content-Length"])
        body = json.loads(self.rfile.read(length))
        type(self).received.append({"body": body, "type": self.headers["Content-Type"]})
        time.sleep(self.delay)
        if self.status != 200:
            self.send_response(self.status)
            self.end_headers()
            self.wfile.write(b"upstream exploded")
            return
        answer = json.dumps({"summary": f"{len(body['texts'])} turns, from: {body['texts'][0]}"})
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.end_headers()
        self.wfile.write(answer.encode())

    def log_message(self, *args):
        pass


class _QuietServer(ThreadingHTTPServer):
    def handle_error(self, request, client_address):
        """The timeout test hangs up before the answer: a broken pipe is expected."""


@pytest.fixture
def summariser_server(settings):
    handler = type("Handler", (_Summariser,), {"received": []})
    server = _QuietServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    settings.DEWEE_SUMMARISER_URL = f"http://127.0.0.1:{server.server_address[1]}/summarise"
    settings.DEWEE_SUMMARISER_TIMEOUT_SECS = 5
    yield handler
    server.shutdown()
    server.server_close()
    thread.join()


def test_http_summary_posts_the_texts_and_returns_the_services_summary(summariser_server):
    texts = ["Ann called about her order.", "It arrives on Monday."]
    assert http_summary(texts) == "2 turns, from: Ann called about her order."
    (request,) = summariser_server.received
    assert request == {"body": {"texts": texts}, "type": "application/json"}


def test_http_summary_falls_back_to_the_extractive_summary_when_the_service_fails(
    summariser_server, caplog
):
    summariser_server.status = 500
    with caplog.at_level(logging.WARNING, logger="dewee.summaries"):
        assert http_summary(CONVERSATION) == " ".join(TEA)
    assert len(summariser_server.received) == 1
    assert "HTTP Error 500" in caplog.text
    assert "using the extractive summary" in caplog.text


def test_http_summary_falls_back_when_the_service_is_too_slow(summariser_server, settings):
    summariser_server.delay = 1.0
    settings.DEWEE_SUMMARISER_TIMEOUT_SECS = 0.2
    assert http_summary(CONVERSATION) == " ".join(TEA)


def test_http_summary_falls_back_when_nothing_listens(settings):
    settings.DEWEE_SUMMARISER_URL = "http://127.0.0.1:9/summarise"  # discard: never HTTP
    assert http_summary(CONVERSATION) == " ".join(TEA)


def test_the_default_summariser_passes_the_system_check():
    assert check_summariser() == []


@pytest.mark.django_db  # other apps' checks read the database
@pytest.mark.parametrize(
    "path",
    [
        "memory.sessions.summaries.no_such_summariser",
        "no.such.module.summarise",
        "extractive_summary",
    ],
)
def test_a_summariser_that_cannot_be_imported_is_a_system_check_error(settings, path):
    settings.DEWEE_SESSION_SUMMARISER = path
    errors = [e for e in run_checks() if e.id == "memory.E001"]
    assert len(errors) == 1
    assert path in errors[0].msg


def test_a_summariser_that_is_not_callable_is_a_system_check_error(settings):
    settings.DEWEE_SESSION_SUMMARISER = "memory.sessions.summaries.SUMMARY_SENTENCES"
    (error,) = check_summariser()
    assert (error.id, "is not callable" in error.msg) == ("memory.E001", True)


def test_the_http_summariser_without_a_url_is_a_system_check_error(settings):
    settings.DEWEE_SESSION_SUMMARISER = "memory.sessions.summaries.http_summary"
    settings.DEWEE_SUMMARISER_URL = ""
    (error,) = check_summariser()
    assert error.id == "memory.E002"
    settings.DEWEE_SUMMARISER_URL = "http://summariser.internal/v1/summarise"
    assert check_summariser() == []
