"""One way to show a time on every page: in the viewer's zone (dewee.middleware's
viewer_time_zone), with seconds and the zone's name, and the UTC time on hover and in the
machine-readable ``datetime``. Built into every template (settings.TEMPLATES builtins)."""

from datetime import UTC, date, datetime

from django import template
from django.utils import timezone
from django.utils.html import format_html
from django.utils.safestring import SafeString
from django.utils.timesince import timesince, timeuntil

register = template.Library()

UTC_FORMAT = "%Y-%m-%d %H:%M:%S"


def local_text(value: datetime) -> str:
    """``2026-05-04 14:03:09 CEST``: the viewer's zone, by its usual abbreviation."""
    local = timezone.localtime(value)
    return f"{local.strftime(UTC_FORMAT)} {local.tzname()}"


@register.filter(is_safe=True)
def when(value: datetime | date | None, style: str = "time") -> SafeString | str:
    """``<time datetime="...Z" title="... UTC">`` around the time in the viewer's zone.
    ``style``: "time" (date, time with seconds, zone), "date" (the day in the viewer's
    zone), "ago" ("3 hours ago"), "age" ("3 hours"), "in" ("in 5 minutes"). Nothing for
    no value, so that ``|default:"never"`` applies."""
    if value is None or value == "":
        return ""
    if not isinstance(value, datetime):
        return format_html('<time datetime="{}">{}</time>', value.isoformat(), value.isoformat())
    if timezone.is_naive(value):
        value = timezone.make_aware(value, UTC)
    utc = value.astimezone(UTC)
    texts = {
        "time": local_text,
        "date": lambda v: timezone.localtime(v).strftime("%Y-%m-%d"),
        "ago": lambda v: f"{timesince(v)} ago",
        "age": timesince,
        "in": lambda v: f"in {timeuntil(v)}",
    }
    text = texts.get(style, local_text)(value)
    return format_html(
        '<time datetime="{}" title="{} UTC">{}</time>',
        utc.strftime("%Y-%m-%dT%H:%M:%SZ"),
        utc.strftime(UTC_FORMAT),
        text,
    )


@register.filter
def local_time(value: datetime | None) -> str:
    """The time as plain text in the viewer's zone, where no element may go (an SVG
    ``<title>``, an attribute)."""
    return "" if value is None else local_text(value)
