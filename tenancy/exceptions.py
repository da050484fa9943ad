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


class AgentAmbiguous(InvalidInput):
    """An unqualified agent id that agents of several workspaces hold, asked where every
    workspace is visible (staff, the CLI): ``details["choices"]`` are the qualified forms
    (``<workspace-slug>/<agent-id>``) that name each one."""

    code = "agent_ambiguous"

    def __init__(self, agent_id: str, choices: list[str]) -> None:
        super().__init__(
            "agent_id",
            f"{agent_id!r} names agents in {len(choices)} workspaces; name one as "
            + " or ".join(repr(choice) for choice in choices),
        )
        self.details = {"field": "agent_id", "agent_id": agent_id, "choices": choices}
        self.choices = choices
