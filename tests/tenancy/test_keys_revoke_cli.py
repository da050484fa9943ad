"""``dewee keys revoke`` through the CLI's real entry point: --yes, the prompt at a terminal,
and the deprecation warning a script without --yes gets (it still revokes, this release)."""

import json
import sys

import pytest

from dewee.cli import main
from tenancy.models import ApiKey
from tenancy.services import create_api_key

pytestmark = pytest.mark.django_db

DEPRECATION = "--yes will be required in the next release"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def key(workspace) -> ApiKey:
    return create_api_key(workspace=workspace, name="helpdesk-prod", actor="ops")[0]


@pytest.fixture
def script(monkeypatch):
    """stdin is a pipe, as in cron or CI: nobody can answer a prompt."""
    monkeypatch.setattr(sys.stdin, "isatty", lambda: False)

    def no_prompt(prompt):
        raise AssertionError("a script must not be asked anything")

    monkeypatch.setattr("builtins.input", no_prompt)


@pytest.fixture
def terminal(monkeypatch):
    monkeypatch.setattr(sys.stdin, "isatty", lambda: True)

    def answering(text):
        monkeypatch.setattr("builtins.input", lambda prompt: text)

    return answering


def revoked(key: ApiKey) -> bool:
    key.refresh_from_db()
    return key.revoked_at is not None


def test_revoke_with_yes_revokes_without_a_warning(capsys, script, key):
    code, out, err = run(capsys, "keys", "revoke", str(key.pk), "--yes")
    assert code == 0, err
    assert out == f"Revoked API key #{key.pk} 'helpdesk-prod'.\n"
    assert err == ""
    assert revoked(key)


def test_revoke_with_yes_and_json_prints_the_revoked_key(capsys, script, key):
    code, out, err = run(capsys, "keys", "revoke", str(key.pk), "--yes", "--json")
    assert code == 0, err
    assert json.loads(out)["state"] == "revoked"
    assert err == ""


def test_revoke_without_yes_in_a_script_still_revokes_but_warns(capsys, script, key):
    code, out, err = run(capsys, "keys", "revoke", str(key.pk))
    assert code == 0, err
    assert out == f"Revoked API key #{key.pk} 'helpdesk-prod'.\n"
    assert err.startswith("dewee: warning: ")
    assert DEPRECATION in err
    assert revoked(key)


def test_revoke_at_a_terminal_asks_for_the_id_or_yes(capsys, terminal, key):
    terminal("no")
    code, _out, err = run(capsys, "keys", "revoke", str(key.pk))
    assert code == 2
    assert "refusing to revoke API key" in err
    assert not revoked(key)

    terminal(str(key.pk))
    code, _out, err = run(capsys, "keys", "revoke", str(key.pk))
    assert code == 0, err
    assert DEPRECATION not in err
    assert revoked(key)


def test_typing_yes_at_the_terminal_revokes(capsys, terminal, key):
    terminal("yes")
    code, _out, err = run(capsys, "keys", "revoke", str(key.pk))
    assert code == 0, err
    assert revoked(key)


def test_revoking_an_unknown_key_asks_nothing(capsys, terminal, key):
    terminal("yes")
    code, _out, err = run(capsys, "keys", "revoke", str(key.pk + 1))
    assert code == 1
    assert f"No API key #{key.pk + 1}" in err
    assert not revoked(key)
