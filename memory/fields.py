"""A vector column that works on both editions.

PostgreSQL stores pgvector's ``vector`` type (dimension left open so an agent can use any
model; the HNSW index is a partial expression index per dimension). SQLite stores the raw
little-endian float32 bytes, which the in-process scan turns into a matrix without parsing.
"""

from typing import Any

import numpy as np
from django.db import models
from django.db.backends.base.base import BaseDatabaseWrapper


def to_vector(value: Any) -> np.ndarray | None:
    if value is None:
        return None
    if isinstance(value, np.ndarray):
        return value.astype(np.float32, copy=False)
    if isinstance(value, bytes | memoryview | bytearray):
        return np.frombuffer(bytes(value), dtype="<f4")
    if isinstance(value, str):
        return np.array(value.strip("[]").split(","), dtype=np.float32)
    return np.asarray(value, dtype=np.float32)


class EmbeddingField(models.Field):
    description = "A float32 vector (pgvector on PostgreSQL, bytes elsewhere)"

    def db_type(self, connection: BaseDatabaseWrapper) -> str:
        return "vector" if connection.vendor == "postgresql" else "blob"

    def from_db_value(self, value: Any, expression: Any, connection: Any) -> np.ndarray | None:
        return to_vector(value)

    def to_python(self, value: Any) -> np.ndarray | None:
        return to_vector(value)

    def get_db_prep_value(
        self, value: Any, connection: BaseDatabaseWrapper, prepared: bool = False
    ) -> Any:
        vector = to_vector(value)
        if vector is None:
            return None
        if connection.vendor == "postgresql":
            return "[" + ",".join(repr(float(x)) for x in vector) + "]"
        return vector.astype("<f4").tobytes()
