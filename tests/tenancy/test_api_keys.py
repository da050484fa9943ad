"""API keys' scopes, agents and expiry through the services, the CLI (its real entry point),
the Django admin, and the migration that gave existing keys every scope."""

import json
from datetime import datetime, timedelta

import pytest
from django.db import connection
from django.db.migrations.executor import MigrationExecutor
from django.utils import timezone

from dewee.cli import main
from dewee.errors import InvalidInput
from tenancy.exceptions import ApiKeyNotFound
from tenancy.models import ApiKey, AuditAction, AuditEvent
from tenancy.services import create_api_key, hash_api_key, update_api_key
from tests.conftest import ApiClient
from tests.factories import make_workspace

KEYS = "/admin/tenancy/apikey/"


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def run_json(capsys, *argv):
    code, out, err = run(capsys, *argv, "--json")
    assert code == 0, err
    return json.loads(out)


# --- services ---


@pytest.mark.django_db
def test_changing_a_key_is_checked_whole_and_audited(workspace, other_workspace):
    key, secret = create_api_key(workspace=workspace, name="bot", actor="ops")
    with pytest.raises(InvalidInput):
        update_api_key(key_id=key.pk, actor="ops", scopes=["read"], agent_ids=["a/b"])
    with pytest.raises(InvalidInput):
        update_api_key(key_id=key.pk, actor="ops", scopes=[])
    key.refresh_from_db()
    assert (key.scope_names(), key.agent_ids) == (["read", "write"], [])
    with pytest.raises(ApiKeyNotFound):
        update_api_key(key_id=key.pk, actor="ops", workspace=other_workspace, scopes=["read"])
    soon = timezone.now() + timedelta(days=1)
    update_api_key(
        key_id=key.pk, actor="ops", scopes=["read"], agent_ids=["bot-a"], expires_at=soon
    )
    key.refresh_from_db()
    assert (key.scope_names(), key.agent_ids, key.expires_at) == (["read"], ["bot-a"], soon)
    event = AuditEvent.objects.get(action=AuditAction.KEY_UPDATE)
    assert event.actor == "ops"
    assert event.details["changes"] == {
        "scopes": [["read", "write"], ["read"]],
        "agents": [[], ["bot-a"]],
        "expires_at": [None, soon.isoformat()],
    }
    # Nothing changed, nothing recorded.
    update_api_key(key_id=key.pk, actor="ops", scopes=["read"])
    assert AuditEvent.objects.filter(action=AuditAction.KEY_UPDATE).count() == 1
    # The change takes effect at once: the key can no longer write.
    writer = ApiClient(secret)
    refused = writer.post("/v1/memories", {"agent_id": "bot-a", "content": "x"})
    assert refused.json()["error"]["code"] == "insufficient_scope"


# --- the CLI ---


@pytest.mark.django_db(transaction=True)
def test_keys_commands_set_scopes_agents_and_expiry(capsys):
    run_json(capsys, "workspaces", "create", "acme")
    key = run_json(
        capsys,
        "keys",
        "create",
        "--workspace",
        "acme",
        "--name",
        "ingest",
        "--scope",
        "read,write",
        "--scope",
        "admin",
        "--agent",
        "bot-a",
        "--agent",
        "bot-b",
        "--expires",
        "90d",
    )
    assert key["scopes"] == ["read", "write", "admin"]
    assert key["agents"] == ["bot-a", "bot-b"]
    expires = datetime.fromisoformat(key["expires_at"])
    assert timedelta(days=89) < expires - timezone.now() <= timedelta(days=90)
    plain = run_json(capsys, "keys", "create", "--workspace", "acme", "--name", "plain")
    assert (plain["scopes"], plain["agents"], plain["expires_at"]) == (["read", "write"], [], None)

    code, out, _ = run(capsys, "keys", "list", "--workspace", "acme")
    assert code == 0
    header, *rows = out.splitlines()
    assert header.split() == [
        "ID", "WORKSPACE", "NAME", "PREFIX", "SCOPES", "AGENTS", "EXPIRES", "LAST", "USED", "STATE"
    ]  # fmt: skip
    ingest = next(row for row in rows if " ingest " in row)
    assert "read,write,admin" in ingest
    assert "bot-a,bot-b" in ingest
    assert "active" in ingest
    assert "all" in next(row for row in rows if " plain " in row)

    changed = run_json(
        capsys, "keys", "update", str(key["id"]), "--scope", "read", "--all-agents",
        "--never-expires",
    )  # fmt: skip
    assert (changed["scopes"], changed["agents"], changed["expires_at"]) == (["read"], [], None)
    revoked = run_json(capsys, "keys", "revoke", str(key["id"]), "--yes")
    assert revoked["state"] == "revoked"

    code, _, err = run(
        capsys, "keys", "create", "--workspace", "acme", "--name", "x", "--scope", "root"
    )
    assert code == 1
    assert "scopes: must be among read, write, admin; got root" in err
    code, _, err = run(
        capsys, "keys", "create", "--workspace", "acme", "--name", "x", "--expires", "soon"
    )
    assert code == 1
    assert "neither a duration" in err
    assert ApiKey.objects.count() == 2


# --- the admin ---


@pytest.mark.django_db
def test_a_key_added_in_the_admin_is_created_by_the_service_and_its_secret_shown_once(
    admin_client, admin_user, workspace
):
    page = admin_client.post(
        f"{KEYS}add/",
        {
            "workspace": workspace.pk,
            "name": "from-admin",
            "scopes": ["read", "admin"],
            "agents": "bot-a, bot-b",
            "expires_at_0": "",
            "expires_at_1": "",
        },
    )
    assert page.status_code == 200, page.content
    key = ApiKey.objects.get(name="from-admin")
    secret = page.context["secret"]
    assert hash_api_key(secret) == key.key_hash
    assert secret in page.content.decode()
    assert (key.scope_names(), key.agent_ids) == (["read", "admin"], ["bot-a", "bot-b"])
    event = AuditEvent.objects.get(action=AuditAction.KEY_CREATE)
    assert event.actor == f"operator:{admin_user.username}"
    # The key's page never shows it again.
    change = admin_client.get(f"{KEYS}{key.pk}/change/").content.decode()
    assert secret not in change
    assert key.key_hash not in change


@pytest.mark.django_db
def test_the_admin_refuses_bad_scopes_and_agents_on_the_form(admin_client, workspace):
    page = admin_client.post(
        f"{KEYS}add/",
        {"workspace": workspace.pk, "name": "bad", "scopes": [], "agents": "a/b"},
    )
    assert page.status_code == 200
    errors = page.context["adminform"].form.errors
    assert "scopes" in errors
    assert errors["agents"][0].startswith("agents: 'a/b' must not contain '/'")
    assert not ApiKey.objects.exists()


@pytest.mark.django_db
def test_editing_a_key_in_the_admin_is_audited(admin_client, admin_user, workspace):
    key, _secret = create_api_key(workspace=workspace, name="bot", actor="ops")
    saved = admin_client.post(
        f"{KEYS}{key.pk}/change/",
        {"scopes": ["read"], "agents": "bot-a", "expires_at_0": "", "expires_at_1": ""},
    )
    assert saved.status_code == 302, saved.content
    key.refresh_from_db()
    assert (key.scope_names(), key.agent_ids) == (["read"], ["bot-a"])
    event = AuditEvent.objects.get(action=AuditAction.KEY_UPDATE)
    assert event.actor == f"operator:{admin_user.username}"
    assert event.details["changes"]["scopes"] == [["read", "write"], ["read"]]


@pytest.mark.django_db
def test_the_admin_revokes_keys_after_a_confirmation_and_never_deletes_them(
    admin_client, workspace
):
    key, _secret = create_api_key(workspace=workspace, name="bot", actor="ops")
    chosen = {"action": "revoke_keys", "_selected_action": [key.pk]}
    asked = admin_client.post(KEYS, chosen)
    assert asked.status_code == 200
    assert "stop working at once" in asked.content.decode()
    key.refresh_from_db()
    assert key.revoked_at is None
    done = admin_client.post(KEYS, {**chosen, "confirm": "1"})
    assert done.status_code == 302
    key.refresh_from_db()
    assert key.revoked_at is not None
    assert AuditEvent.objects.filter(action=AuditAction.KEY_REVOKE).count() == 1
    assert admin_client.get(f"{KEYS}{key.pk}/delete/").status_code == 403
    assert "delete_selected" not in admin_client.get(KEYS).content.decode()


# --- the migration ---


@pytest.mark.django_db(transaction=True)
def test_keys_that_existed_before_scopes_keep_every_power():
    executor = MigrationExecutor(connection)
    before = [("tenancy", "0003_audit_action_memory_link")]
    executor.migrate(before)
    old = executor.loader.project_state(before).apps
    workspace = old.get_model("tenancy", "Workspace").objects.create(slug="acme")
    old.get_model("tenancy", "ApiKey").objects.create(
        workspace=workspace, name="old", prefix="dw_old", key_hash="e" * 64
    )
    executor = MigrationExecutor(connection)
    executor.loader.build_graph()
    executor.migrate(executor.loader.graph.leaf_nodes())
    key = ApiKey.objects.get(name="old")
    assert key.scope_names() == ["read", "write", "admin"]
    assert (key.agent_ids, key.expires_at) == ([], None)
    fresh, _secret = create_api_key(workspace=make_workspace(), name="new", actor="t")
    assert fresh.scope_names() == ["read", "write"]
