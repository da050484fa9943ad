from django import template

from facts.queries import count_label as _count_label

register = template.Library()


@register.filter
def count_label(count: int) -> str:
    """``1,234`` or, past the dashboard's counting cap, ``1,000+``."""
    return _count_label(count)


@register.filter
def count_kind(kind: str) -> str:
    """A receipt's count key as words: ``audit_events`` reads "Audit events"."""
    return kind.replace("_", " ").capitalize()
