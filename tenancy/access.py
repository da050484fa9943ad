"""The one place where "who may see what" is decided.

Every interface (REST, dashboard, CLI, tasks) builds an :class:`Access` for its caller and
loads agents through it; other apps load their objects through the agent it returns, so an
object of another workspace is never found: it is a 404, exactly like one that does not exist.
"""

import unicodedata
from dataclasses import dataclass

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import AnonymousUser
from django.core.exceptions import ObjectDoesNotExist
from django.db.models import Model, QuerySet
from django.http import HttpRequest

from dewee.errors import NotFound
from tenancy.audit import key_actor, operator_actor
from tenancy.exceptions import (
    AgentAmbiguous,
    AgentNotFound,
    InsufficientScope,
    NoMembership,
    WorkspaceNotFound,
)
from tenancy.models import (
    Agent,
    AgentQuerySet,
    ApiKey,
    MemberRole,
    Scope,
    Workspace,
    WorkspaceMember,
)
from tenancy.validation import DB_ID_MAX, clean_agent_id

# The workspace a member of several chose with the dashboard's switcher: its id, in their
# session under this key; the dashboard's mount gate puts it on the request's user under
# the attribute, where access_for_user finds it (dewee.middleware.MountGate).
WORKSPACE_SESSION_KEY = "dewee_workspace"
CHOSEN_WORKSPACE_ATTR = "dewee_chosen_workspace_id"


@dataclass(frozen=True)
class Access:
    """``actor`` is recorded in audit events and sources; ``workspace`` of None means every
    workspace (staff operators, the CLI on the server). ``can_act`` is False for people who
    may only read (workspace viewers): they must not settle, delete or forget anything."""

    actor: str
    workspace: Workspace | None = None
    can_act: bool = True
    # An API key's limits (access_for_key); None: none, as for people and the CLI.
    # ``agent_ids`` are the only agents visible; ``scopes`` what the caller may do.
    agent_ids: frozenset[str] | None = None
    scopes: frozenset[Scope] | None = None
    # Every workspace a member belongs to, by slug (the switcher's choices); empty for
    # staff and keys.
    workspace_choices: tuple[Workspace, ...] = ()

    def agents(self) -> AgentQuerySet:
        agents = Agent.objects.select_related("workspace")
        if self.workspace is not None:
            agents = agents.in_workspace(self.workspace)
        if self.agent_ids is not None:
            agents = agents.filter(agent_id__in=self._agent_id_forms())
        return agents

    def _agent_id_forms(self) -> set[str]:
        """The listed ids in NFC (as listed) and NFD, as ``AgentQuerySet.with_id`` finds
        an agent stored before ids were normalised."""
        assert self.agent_ids is not None
        return {unicodedata.normalize(form, a) for a in self.agent_ids for form in ("NFC", "NFD")}

    def may_use_agent(self, agent_id: str) -> bool:
        return self.agent_ids is None or bool(
            {unicodedata.normalize(form, agent_id) for form in ("NFC", "NFD")}
            & self._agent_id_forms()
        )

    def workspace_for_agent(self, agent_id: str) -> Workspace:
        """The workspace in which this caller may reach, or create, the agent ``agent_id``
        (which need not exist yet): a key limited to other agents gets AgentNotFound, as
        if the agent did not exist. Only callers of one workspace (API keys) create."""
        clean_agent_id(agent_id)
        if self.workspace is None or not self.may_use_agent(agent_id):
            raise AgentNotFound(f"Agent {agent_id!r} not found")
        return self.workspace

    def require_every_agent(self, what: str) -> None:
        """For what reaches every agent of the workspace (a person's erasure, the
        workspace's quotas), which a key limited to some agents may not see."""
        if self.agent_ids is not None:
            raise InsufficientScope(
                f"A key limited to some agents cannot {what}, which reaches every agent of "
                "the workspace: use a key for all agents",
                details={"required": "all_agents"},
            )

    def require_scope(self, scope: Scope) -> None:
        """For what one operation needs only with some input (e.g. facts/check with
        apply): its declared scope was checked when the key was authenticated."""
        if self.scopes is not None and scope not in self.scopes:
            raise InsufficientScope(
                f"This request needs the '{scope}' scope; this key has "
                f"{', '.join(s.value for s in Scope if s in self.scopes)}",
                details={"required": scope.value},
            )

    def agent(self, agent_id: str) -> Agent:
        """The visible agent ``agent_id`` (in NFC or as it was stored: see
        ``AgentQuerySet.with_id``); a malformed id is a 400, an unseen one a 404.

        Agent ids are unique per workspace, so where every workspace is visible
        (``workspace`` None) an agent is named ``<workspace-slug>/<agent-id>``, which wins
        when that workspace has that agent (slugs hold no '/'; an agent stored with a '/'
        before ids could not hold one is still found by its id, or qualified). An
        unqualified id found in several workspaces is ``AgentAmbiguous``, naming the
        qualified forms; found in one, it is that agent, as before."""
        agent_id = clean_agent_id(agent_id)
        agents = self.agents()
        if self.workspace is not None:
            agent = agents.with_id(agent_id)
        else:
            agent = self._qualified(agent_id)
            if agent is None:
                found = agents.each_with_id(agent_id)
                if len(found) > 1:
                    raise AgentAmbiguous(agent_id, [each.qualified_id for each in found])
                agent = found[0] if found else None
        if agent is None:
            raise AgentNotFound(f"Agent {agent_id!r} not found")
        return agent

    def _qualified(self, reference: str) -> Agent | None:
        slug, slash, agent_id = reference.partition("/")
        if not slash or not slug or not agent_id:
            return None
        return self.agents().filter(workspace__slug=slug).with_id(agent_id)

    def agent_ref(self, agent: Agent) -> str:
        """How this caller names ``agent`` in links and forms so that :meth:`agent` finds
        it again: its id within a workspace, qualified where every workspace is visible."""
        return agent.agent_id if self.workspace is not None else agent.qualified_id

    def load[M: Model](
        self,
        objects: QuerySet[M],
        pk: object,
        *,
        missing: type[NotFound],
        label: str,
        agent: Agent | None = None,
    ) -> M:
        """One object of an agent-owned model (its ``agent`` field), if the caller may see it
        and, when ``agent`` is given, it is that agent's; otherwise ``missing``, whether it
        exists elsewhere or not at all."""
        if self.workspace is not None:
            objects = objects.filter(agent__workspace=self.workspace)
        if self.agent_ids is not None:
            objects = objects.filter(agent__agent_id__in=self._agent_id_forms())
        if agent is not None:
            objects = objects.filter(agent=agent)
        if isinstance(pk, int) and not 1 <= pk <= DB_ID_MAX:
            # No row has it, and SQLite cannot even bind it: not found, on every engine.
            raise missing(f"{label} {pk} not found")
        try:
            return objects.get(pk=pk)
        except (ObjectDoesNotExist, ValueError, TypeError):
            raise missing(f"{label} {pk} not found") from None


def access_for_user(
    user: AbstractBaseUser | AnonymousUser, workspace: Workspace | None = None
) -> Access:
    """The Access of a signed-in person. Staff see every workspace (only ``workspace`` when it
    is given) and may act. A member sees one workspace of theirs: ``workspace`` if given,
    else the one they chose with the switcher (``CHOSEN_WORKSPACE_ATTR``) while they still
    belong to it, else their first by slug. Managers may act, viewers only read; the role
    is read afresh on every call, so a change takes effect on the next request.
    A member asking for a workspace not theirs gets ``WorkspaceNotFound``; anyone else is
    told they belong to no workspace (``NoMembership``, a kind of ``WorkspaceNotFound``)."""
    if not user.is_authenticated or not user.is_active:
        raise NoMembership("No workspace for this account")
    actor = operator_actor(user.get_username())
    if getattr(user, "is_staff", False):
        return Access(actor=actor, workspace=workspace)
    memberships = list(
        WorkspaceMember.objects.filter(user_id=user.pk)
        .select_related("workspace")
        .order_by("workspace__slug")
    )
    wanted = workspace.pk if workspace is not None else getattr(user, CHOSEN_WORKSPACE_ATTR, None)
    member = next((m for m in memberships if m.workspace_id == wanted), None)
    if member is None and workspace is not None:
        raise WorkspaceNotFound(f"No workspace {workspace.slug!r}")
    member = member or (memberships[0] if memberships else None)
    if member is None:
        raise NoMembership("No workspace for this account")
    return Access(
        actor=actor,
        workspace=member.workspace,
        can_act=member.role == MemberRole.MANAGER,
        workspace_choices=tuple(m.workspace for m in memberships),
    )


def access_for_key(key: ApiKey) -> Access:
    """The Access of an API key: its workspace, its agents (all when it lists none), its
    scopes, and its name as the actor (tenancy.audit.key_actor)."""
    return Access(
        actor=key_actor(key.name, key.pk),
        workspace=key.workspace,
        agent_ids=frozenset(key.agent_ids) if key.agent_ids else None,
        scopes=key.scopes,
    )


def request_access(request: HttpRequest) -> Access:
    """The Access the API's authentication attached to ``request``."""
    access = getattr(request, "auth", None)
    if not isinstance(access, Access):
        raise TypeError("request was not authenticated by the API")
    return access
