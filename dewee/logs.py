"""Logs without the values of erased data.

PostgreSQL adds a DETAIL line to some errors that names the values involved: a unique
violation says ``Key (agent_id, name)=(7, ana.lopez) already exists``. Logged with a
traceback, or kept as a job's error, that value would outlive the erasure of the person it
belongs to. Every log line and every stored error message goes without these lines.
"""

import logging
import re

_DETAIL = re.compile(r"^\s*DETAIL:.*(?:\n|$)", re.MULTILINE)
_FORMATTER = logging.Formatter()


def without_values(text: str) -> str:
    """``text`` without the DETAIL lines of database errors."""
    return _DETAIL.sub("", text).rstrip("\n") if "DETAIL:" in text else text


class WithoutDatabaseValues(logging.Filter):
    """On the log handlers: drops the DETAIL lines from the message and the traceback."""

    def filter(self, record: logging.LogRecord) -> bool:
        message = record.getMessage()
        if "DETAIL:" in message:
            record.msg, record.args = without_values(message), ()
        if record.exc_info and not record.exc_text:
            record.exc_text = _FORMATTER.formatException(record.exc_info)
        if record.exc_text:
            record.exc_text = without_values(record.exc_text)
        return True
