from dewee.errors import ConfirmationRequired, Conflict, DeweeError, InvalidInput, NotFound


class MemoryNotFound(NotFound):
    code = "memory_not_found"


class SessionNotFound(NotFound):
    code = "session_not_found"


class EmbeddingModelMismatch(Conflict):
    """The agent's vectors were made by another model than the one configured now."""

    code = "embedding_model_mismatch"


class TooManyCandidates(DeweeError):
    """A whole-agent operation was asked of more memories than it takes at once."""

    status = 422
    code = "too_many_candidates"


class InvalidMemoryPolicy(InvalidInput):
    code = "invalid_memory_policy"


class InvalidLink(InvalidInput):
    code = "invalid_link"


class LinkExists(Conflict):
    code = "link_exists"


class LinkNotFound(NotFound):
    code = "link_not_found"


class EntityNotFound(NotFound):
    code = "entity_not_found"


class PathNotFound(NotFound):
    code = "no_path"


class TooManyJobs(DeweeError):
    """A workspace has as many jobs waiting in the worker's shared queue as it may."""

    status = 429
    code = "too_many_jobs"
    # About how long a waiting job takes to start when the worker is not busy.
    retry_after = 60


class QuotaExceeded(DeweeError):
    """A write that would take an agent or workspace over a hard quota; nothing of it was
    written. ``details`` names the quota, its scope, limit and usage."""

    status = 413
    code = "quota_exceeded"


class MixedUsers(DeweeError):
    """A merge of memories of different users (or of a user's and shared ones): the merged
    memory would hand one user's words to another, so it is refused."""

    status = 400
    code = "mixed_users"


class JobAlreadyRunning(Conflict):
    """A run of the same maintenance job is under way, on this worker or another host's."""

    code = "job_running"


class QuotaBelowUsage(ConfirmationRequired):
    """A hard quota set below what its scope already holds: every write that adds to it
    would be refused until enough is deleted. Set only with the explicit confirmation;
    ``details["below"]`` lists each such kind with its limit and usage."""
