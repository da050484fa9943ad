from dewee.errors import Conflict, InvalidInput, NotFound


class AgentNotFound(NotFound):
    code = "agent_not_found"


class WorkspaceNotFound(NotFound):
    code = "workspace_not_found"


class MemoryNotFound(NotFound):
    code = "memory_not_found"


class SessionNotFound(NotFound):
    code = "session_not_found"


class AgentExists(Conflict):
    code = "agent_exists"


class WorkspaceExists(Conflict):
    code = "workspace_exists"


class ApiKeyNotFound(NotFound):
    code = "api_key_not_found"


class InvalidAgentId(InvalidInput):
    code = "invalid_agent_id"


class EmbeddingModelMismatch(Conflict):
    """The agent's vectors were made by another model than the one configured now."""

    code = "embedding_model_mismatch"
