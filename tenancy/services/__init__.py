"""Writes for workspaces, their members, agents, API keys and the audit log.

Every interface imports from here; each function is the one place its rule lives. The
modules of this package import one another by their own paths, never through this one.
"""

from tenancy.services.agents import create_agent, ensure_agent, rename_agent
from tenancy.services.keys import (
    API_KEY_PREFIX,
    DEFAULT_KEY_SCOPES,
    KEY_AGENTS_MAX,
    clean_key_agent_ids,
    clean_key_expiry,
    clean_key_scopes,
    create_api_key,
    hash_api_key,
    revoke_api_key,
    update_api_key,
)
from tenancy.services.members import (
    Invitation,
    add_member,
    change_member_role,
    invite_member,
    is_pending,
    remove_member,
    renew_invite,
)
from tenancy.services.saved_views import (
    clean_view_name,
    clean_view_query,
    delete_saved_view,
    save_view,
)
from tenancy.services.workspaces import (
    clean_workspace_slug,
    create_workspace,
    default_workspace,
    get_workspace,
)

__all__ = [
    "API_KEY_PREFIX",
    "DEFAULT_KEY_SCOPES",
    "KEY_AGENTS_MAX",
    "Invitation",
    "add_member",
    "change_member_role",
    "clean_key_agent_ids",
    "clean_key_expiry",
    "clean_key_scopes",
    "clean_view_name",
    "clean_view_query",
    "clean_workspace_slug",
    "create_agent",
    "create_api_key",
    "create_workspace",
    "default_workspace",
    "delete_saved_view",
    "ensure_agent",
    "get_workspace",
    "hash_api_key",
    "invite_member",
    "is_pending",
    "remove_member",
    "rename_agent",
    "renew_invite",
    "revoke_api_key",
    "save_view",
    "update_api_key",
]
