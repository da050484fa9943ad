"""Logs without the values of erased data, and without people's ids in paths.

PostgreSQL adds a DETAIL line to some errors that names the values involved: a unique
violation says ``Key (agent_id, name)=(7, ana.lopez) already exists``. Logged with a
traceback, or kept as a job's error, that value would outlive the erasure of the person it
belongs to. Every log line and every stored error message goes without these lines.
"""

import json
import logging
import re
from datetime import UTC, datetime
from urllib.parse import unquote

# At most 200 blank characters before it: from each of 20,000 blank lines, \s* read them all.
_DETAIL = re.compile(r"^\s{0,200}DETAIL:.*(?:\n|$)", re.MULTILINE)
_FORMATTER = logging.Formatter()
# The paths that hold a person's id (GET /v1/people/{user}/export; an id may hold '/'):
# the access log and Django's warnings about 4xx answers name them with the id masked.
# Whatever follows a "people" segment is masked, up to a final "/export" and the end of the
# path (a query string, or the request line's protocol), however many slashes come before
# or after it and whatever the id holds (slashes, spaces): "/v1/people//ana/export" and
# "/v1//people/team/ana/export" route to an export too. Only the bare endpoints
# ("/people/forget", the dashboard's "/people/export/") hold no id and are left as they are.
_PERSON_IN_PATH = re.compile(
    r"(/people/+)"
    r"(?!(?:forget|export)/*(?=\s+HTTP/|[?#\"]|$))"
    r"([^?#\"\n]+?)"
    r"(/+export/*)?"
    r"(?=(?<!\s)\s+HTTP/|[?#\"\n]|$)",
    re.IGNORECASE,
)
MASK = "***"


def masked_path(path: str) -> str:
    """``path`` (or a request line, or a message naming a path) with a person's id in it
    masked: /v1/people/***/export. A percent-encoded path ("/v1/people%2Fana/export", which
    the server decodes before routing) is masked in its decoded form."""
    if "%" in path:
        decoded = unquote(path)
        masked = _mask(decoded)
        if masked != decoded:
            return masked
    return _mask(path)


def _mask(path: str) -> str:
    if "people" not in path.lower():
        return path
    return _PERSON_IN_PATH.sub(lambda m: f"{m.group(1)}{MASK}{m.group(3) or ''}", path)


def without_values(text: str) -> str:
    """``text`` without the DETAIL lines of database errors."""
    return _DETAIL.sub("", text).rstrip("\n") if "DETAIL:" in text else text


class WithoutDatabaseValues(logging.Filter):
    """On the log handlers: drops the DETAIL lines from the message and the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "DETAIL:" in message or "people" in message.lower():
            record.msg, record.args = masked_path(without_values(message)), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = without_values(record.exc_text)
        return True


class RefusalsWithoutTraceback(logging.Filter):
    """On Django's request loggers: a refused request (a 4xx answer: 403 PermissionDenied,
    404, 400) is logged as its one warning line, without the traceback of the exception
    that refused it. A refusal is the code working as meant; a traceback per refused page
    buried the real errors (5xx keep theirs)."""

    def filter(self, record: logging.LogRecord) -> bool:
        status = getattr(record, "status_code", None)
        if isinstance(status, int) and status < 500:
            record.exc_info, record.exc_text = None, None
        return True


# The attributes every LogRecord has: what is left in its __dict__ was passed as `extra=`.
_RECORD_ATTRS = frozenset(logging.makeLogRecord({}).__dict__) | {"message", "asctime"}


class JsonFormatter(logging.Formatter):
    """One JSON object per line (DEWEE_LOG_FORMAT=json), for a log shipper to read without
    parsing text: time (UTC, ISO 8601), level, logger, message, process id, and the
    traceback as one string. Runs after WithoutDatabaseValues, so what it writes is
    already without values of erased data and with people's ids masked."""

    def format(self, record: logging.LogRecord) -> str:
        entry: dict[str, object] = {
            "time": datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds"),
            "level": record.levelname.lower(),
            "logger": record.name,
            "message": record.getMessage(),
            "pid": record.process,
        }
        for key, value in record.__dict__.items():
            if key not in _RECORD_ATTRS and not key.startswith("_"):
                entry[key] = value if isinstance(value, str | int | float | bool) else str(value)
        if record.exc_info and not record.exc_text:
            record.exc_text = self.formatException(record.exc_info)
        if record.exc_text:
            entry["exception"] = record.exc_text
        return json.dumps(entry, ensure_ascii=False)
