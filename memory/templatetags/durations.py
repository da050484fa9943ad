from django import template

register = template.Library()

UNITS = [("day", 86400), ("hour", 3600), ("minute", 60), ("second", 1)]


@register.filter
def duration_words(seconds: int) -> str:
    """3600 -> "1 hour", 5400 -> "90 minutes": the largest unit that divides evenly."""
    seconds = int(seconds)
    for name, size in UNITS:
        if seconds >= size and seconds % size == 0:
            count = seconds // size
            return f"{count} {name}{'' if count == 1 else 's'}"
    return f"{seconds} seconds"
