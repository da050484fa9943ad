"""Where, in the whole database, a text is still held: every model of every installed app
(ours, Django's, django-q's), every text and JSON column, read row by row."""

import json

from django.apps import apps
from django.db import models


def _texts(value: object) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bytes | memoryview):
        return bytes(value).decode("utf-8", errors="replace")
    return json.dumps(value, ensure_ascii=False, default=str)


def rows_holding(*needles: str) -> list[str]:
    """``"app.Model.field #pk: needle"`` for every row whose text or JSON column holds one of
    ``needles`` (in any case). Vectors and numbers are not text and are skipped."""
    wanted = [n.casefold() for n in needles]
    found = []
    for model in apps.get_models(include_auto_created=True):
        columns = [
            f.attname
            for f in model._meta.concrete_fields
            if isinstance(f, models.CharField | models.TextField | models.JSONField)
            # django-q's pickled payloads and results: read back as the objects they hold.
            or f.get_internal_type() in {"TextField", "CharField", "BinaryField"}
        ]
        if not columns:
            continue
        for row in model._base_manager.values_list("pk", *columns).iterator():
            pk, values = row[0], row[1:]
            for column, value in zip(columns, values, strict=True):
                if value is None:
                    continue
                text = _texts(value).casefold()
                found += [
                    f"{model._meta.label}.{column} #{pk}: {needles[i]}"
                    for i, needle in enumerate(wanted)
                    if needle in text
                ]
    return found
