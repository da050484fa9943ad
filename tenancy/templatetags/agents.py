from django import template

from tenancy.access import Access
from tenancy.models import Agent

register = template.Library()


@register.filter
def agent_ref(agent: Agent | None, access: Access) -> str:
    """``{{ agent|agent_ref:access }}``: how links and forms name ``agent`` for this viewer
    (qualified where every workspace is visible: see ``Access.agent_ref``); no agent is ""
    (the lists' "all agents")."""
    return access.agent_ref(agent) if agent is not None else ""
