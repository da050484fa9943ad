"""How the CLI prints: stable JSON with --json, aligned tables for people otherwise."""

import argparse
import json
import sys
from collections.abc import Iterable, Sequence
from datetime import datetime
from typing import Any

from django.core.serializers.json import DjangoJSONEncoder


def print_json(data: Any) -> None:
    sys.stdout.write(json.dumps(data, cls=DjangoJSONEncoder, indent=2, ensure_ascii=False) + "\n")


def _cell(value: Any, width: int | None) -> str:
    if value is None:
        text = "-"
    elif isinstance(value, datetime):
        text = value.strftime("%Y-%m-%d %H:%M:%S")
    elif isinstance(value, float):
        text = f"{value:.2f}"
    else:
        text = " ".join(str(value).split())
    if width is not None and len(text) > width:
        text = text[: width - 1] + "…"
    return text


def print_table(
    rows: Iterable[dict[str, Any]],
    columns: Sequence[tuple[str, str]],
    *,
    widths: dict[str, int] | None = None,
    empty: str = "Nothing to show.",
) -> None:
    """``columns`` are (key, heading) pairs; ``widths`` caps the columns that can run long."""
    widths = widths or {}
    cells = [[_cell(row.get(key), widths.get(key)) for key, _ in columns] for row in rows]
    if not cells:
        print(empty)
        return
    headings = [heading for _, heading in columns]
    sizes = [max(len(h), *(len(r[i]) for r in cells)) for i, h in enumerate(headings)]
    print("  ".join(h.ljust(sizes[i]) for i, h in enumerate(headings)).rstrip())
    for row in cells:
        print("  ".join(c.ljust(sizes[i]) for i, c in enumerate(row)).rstrip())


def print_fields(data: dict[str, Any], keys: Sequence[tuple[str, str]]) -> None:
    label_width = max(len(label) for _, label in keys)
    for key, label in keys:
        print(f"{label.ljust(label_width)}  {_cell(data.get(key), None)}")


def add_json_flag(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", action="store_true", help="Print machine-readable JSON.")
