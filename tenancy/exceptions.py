"""Errors of workspaces, members, agents and API keys."""

from dewee.errors import Conflict, DeweeError, InvalidInput, NotFound


class AgentNotFound(NotFound):
    code = "agent_not_found"


class WorkspaceNotFound(NotFound):
    code = "workspace_not_found"


class NoMembership(WorkspaceNotFound):
    """A signed-in person who belongs to no workspace (yet): the dashboard explains whom to
    ask instead of showing a bare 404."""

    code = "no_membership"


class UserNotFound(NotFound):
    code = "user_not_found"


class MemberNotFound(NotFound):
    code = "member_not_found"


class MemberExists(Conflict):
    code = "member_exists"


class AgentExists(Conflict):
    code = "agent_exists"


class WorkspaceExists(Conflict):
    code = "workspace_exists"


class ApiKeyNotFound(NotFound):
    code = "api_key_not_found"


class InvalidAgentId(InvalidInput):
    code = "invalid_agent_id"


class ApiKeyExpired(DeweeError):
    """An expired key is refused as a revoked one is (401), with a message that says why."""

    status = 401
    code = "unauthenticated"


class InsufficientScope(DeweeError):
    """The key is valid but lacks the scope the operation needs."""

    status = 403
    code = "insufficient_scope"
