from typing import Any

from django import template

from dewee.dashboard import mount_url as reverse_in_mount

register = template.Library()


@register.simple_tag(takes_context=True)
def mount_url(context: template.Context, name: str, *args: Any) -> str:
    """``{% url %}`` for a link to another app: it stays in the mount (/dashboard/ or
    /app/) of the page."""
    return reverse_in_mount(context["request"], name, *args)
