"""Who an MCP connection acts as: an API key (the one REST accepts) and one agent of its
workspace. HTTP reads the key from ``Authorization: Bearer``, stdio from DEWEE_API_KEY."""

from dataclasses import dataclass

from dewee.errors import DeweeError
from dewee.replicas import note_key
from tenancy.access import Access, access_for_key
from tenancy.exceptions import InsufficientScope
from tenancy.models import Agent, ApiKey, Scope
from tenancy.queries import authenticate_api_key


@dataclass(frozen=True)
class Caller:
    """Who calls a tool: an API key's access, acting for one agent of its workspace."""

    access: Access
    agent_id: str

    def agent(self) -> Agent:
        return self.access.agent(self.agent_id)


class Unauthenticated(DeweeError):
    status = 401
    code = "unauthenticated"


def key_for_token(token: str) -> ApiKey:
    """The key of ``token``, whatever its scopes: a connection may list what its key may
    call, and each tool checks the scope its REST operation declares. Authenticated by
    REST's own function (expiry, revocation, last use), scope by scope."""
    for scope in Scope:
        try:
            key = authenticate_api_key(token, scope=scope)
        except InsufficientScope:
            continue
        if key is None:
            break
        # Its writes make it read the primary for a while, as a REST key's do (over HTTP).
        note_key(key.pk)
        return key
    raise Unauthenticated("A valid API key is required: send 'Authorization: Bearer <key>'")


def caller_for(key: ApiKey, agent_id: str) -> Caller:
    """The key acting for ``agent_id``: a malformed id is invalid_agent_id, an agent the key
    may not use agent_not_found (as REST answers both). The agent need not exist yet:
    remember and session_start create it, as REST's store does."""
    access = access_for_key(key)
    access.workspace_for_agent(agent_id)
    return Caller(access=access, agent_id=agent_id)
