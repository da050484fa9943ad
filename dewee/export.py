"""Export of a dashboard list as CSV or JSON, streamed: rows are read from the database a
chunk at a time and written out as they come, so an export of any size holds one chunk in
memory, never the list.

Any list with a query function exports in one line::

    return export_response(request, events, to_row=event_to_dict, columns=EVENT_COLUMNS,
                           name="audit")

CSV: a header row, then one row per item, UTF-8 (with a byte-order mark, so that
spreadsheets read it as UTF-8). A text cell that starts with a character a spreadsheet
reads as a formula (= + - @, a tab, a carriage return) is prefixed with ``'``. Lists and
objects are written as JSON; times in ISO 8601 with their offset; nothing is empty.

JSON: one array of objects, streamed element by element (the file is one valid JSON
document, loadable as a whole by any JSON reader).
"""

import csv
import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from datetime import date, datetime
from typing import Any

from django import forms
from django.core.exceptions import BadRequest
from django.core.serializers.json import DjangoJSONEncoder
from django.db.models import QuerySet
from django.http import HttpRequest, StreamingHttpResponse
from django.utils import timezone

# Rows written out per chunk of the response: one chunk per row costs more in the response's
# machinery than the row itself.
ROWS_PER_WRITE = 200
# Rows fetched per database round trip: large enough that 100,000 rows take 50 trips,
# small enough that one chunk (with its prefetched relations) stays a few megabytes.
CHUNK_SIZE = 2000
FORMATS = {"csv": "text/csv; charset=utf-8", "json": "application/json"}
# What spreadsheets read as the start of a formula (OWASP's list for CSV injection).
FORMULA_STARTS = frozenset("=+-@\t\r")
BYTE_ORDER_MARK = "\ufeff"


class ExportForm(forms.Form):
    """``format`` of an export link: csv or json."""

    format = forms.ChoiceField(choices=[(f, f) for f in FORMATS])


def export_format(request: HttpRequest) -> str:
    """The export's format from the query string; anything else is a 400."""
    form = ExportForm(request.GET)
    if not form.is_valid():
        raise BadRequest("Export as format=csv or format=json.")
    return str(form.cleaned_data["format"])


def csv_cell(value: Any) -> Any:
    """One CSV cell: text defused against formula injection; times, lists and objects as
    text; numbers and None (an empty cell) as the csv module writes them. The checks go
    from the most common type down: this runs for every cell of every row."""
    if type(value) is str:
        return f"'{value}" if value[:1] in FORMULA_STARTS else value
    if value is None or type(value) in (int, float):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, datetime | date):
        return value.isoformat()
    if isinstance(value, list | dict):
        return json.dumps(value, ensure_ascii=False, cls=DjangoJSONEncoder)
    return csv_cell(str(value))


class _Line:
    """A file-like target for csv.writer that hands back the line it was given."""

    def write(self, line: str) -> str:
        return line


def csv_lines(rows: Iterable[dict[str, Any]], columns: Sequence[str]) -> Iterator[str]:
    writer = csv.writer(_Line())
    yield BYTE_ORDER_MARK + writer.writerow(columns)
    for row in rows:
        yield writer.writerow([csv_cell(row.get(column)) for column in columns])


def json_lines(rows: Iterable[dict[str, Any]], columns: Sequence[str]) -> Iterator[str]:
    yield "["
    separator = "\n"
    for row in rows:
        item = {column: row.get(column) for column in columns}
        yield separator + json.dumps(item, ensure_ascii=False, cls=DjangoJSONEncoder)
        separator = ",\n"
    yield "\n]\n"


def streamed_rows[T](
    items: Iterable[T], to_row: Callable[[T], dict[str, Any]]
) -> Iterator[dict[str, Any]]:
    """``items`` a chunk at a time when it is a queryset (its prefetches run once per
    chunk, and its result cache is never filled)."""
    rows: Iterable[T] = items
    if isinstance(items, QuerySet):
        rows = items.iterator(chunk_size=CHUNK_SIZE)
    for item in rows:
        yield to_row(item)


def export_response[T](
    request: HttpRequest,
    items: Iterable[T],
    *,
    to_row: Callable[[T], dict[str, Any]],
    columns: Sequence[str],
    name: str,
) -> StreamingHttpResponse:
    """``items`` (a queryset, ordered as the list shows them, or an already bounded list)
    streamed in the format the request asks for, as a download named
    ``<name>-<UTC time>.<format>``. Reading only: nothing is written while exporting."""
    fmt = export_format(request)
    lines = csv_lines if fmt == "csv" else json_lines
    response = StreamingHttpResponse(
        _batched(lines(streamed_rows(items, to_row), columns)), content_type=FORMATS[fmt]
    )
    stamp = timezone.now().strftime("%Y%m%dT%H%M%SZ")
    filename = f"{_safe(name)}-{stamp}.{fmt}"
    response["Content-Disposition"] = f'attachment; filename="{filename}"'
    response["X-Content-Type-Options"] = "nosniff"
    # Proxies must not buffer the whole stream before passing it on.
    response["X-Accel-Buffering"] = "no"
    return response


def _batched(lines: Iterator[str]) -> Iterator[str]:
    batch: list[str] = []
    for line in lines:
        batch.append(line)
        if len(batch) >= ROWS_PER_WRITE:
            yield "".join(batch)
            batch = []
    if batch:
        yield "".join(batch)


def _safe(name: str) -> str:
    """A file name of letters, digits, dots, dashes and underscores (agent ids may hold
    anything)."""
    cleaned = "".join(c if c.isascii() and (c.isalnum() or c in "._-") else "-" for c in name)
    return cleaned.strip("-.")[:80] or "export"
