"""Moving a time by a span without leaving the years 1 to 9999: what reading "yesterday"
in a message sent on 0001-01-01 and a window before a client's earliest time both need."""

from datetime import UTC, datetime, timedelta

# The first and last instants a datetime can hold, in UTC: where ``shifted`` stops.
EARLIEST = datetime.min.replace(tzinfo=UTC)
LATEST = datetime.max.replace(tzinfo=UTC)


def shifted(moment: datetime, delta: timedelta) -> datetime:
    """``moment + delta``, stopped at EARLIEST or LATEST. A client may give any time in the
    years 1 to 9999 (0001-01-01 for "long ago" is common), and a window reaching a gap
    before or after it would otherwise raise OverflowError; as a bound, the first or last
    instant selects the same rows as the time beyond it would."""
    try:
        return moment + delta
    except OverflowError:
        return EARLIEST if delta < timedelta(0) else LATEST


# The calendar's words, written once for every reader of text (dates in messages, entity
# tags, the recall router, the stored form of a birthday).
MONTHS = (
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
)
WEEKDAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
# The first three letters, which every way of writing a month or a day starts with ("Sept.",
# "Weds"): an alternation for patterns compiled with re.IGNORECASE.
MONTH_STEMS = "|".join(month[:3].lower() for month in MONTHS)
WEEKDAY_STEMS = "|".join(day[:3].lower() for day in WEEKDAYS)
