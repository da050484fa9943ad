"""Shapes every part of the REST API shares: strict request bodies and the value types their
fields use (each checked by pydantic before a view runs)."""

from typing import Annotated, Any

from ninja import Schema
from pydantic import ConfigDict, Field, Strict, StrictFloat

from tenancy.validation import DB_ID_MAX

# A number from 0 to 1: importance, confidence, a threshold.
UnitFloat = Annotated[StrictFloat, Field(ge=0.0, le=1.0, allow_inf_nan=False)]
# The id of a row, in a query parameter (text that must read as one) or, strict, in a JSON
# body. Out of range it is a 400 invalid_input, like any bad value; an id in a URL path is
# looked up instead (tenancy.access), so there it is the resource's 404.
DbId = Annotated[int, Field(ge=1, le=DB_ID_MAX)]
StrictDbId = Annotated[DbId, Strict()]


class StrictSchema(Schema):
    """A request body: a field the API does not know is refused, not ignored."""

    model_config = ConfigDict(extra="forbid")


class ErrorBody(Schema):
    code: str = Field(description="Stable and machine-readable, e.g. invalid_input, not_found.")
    message: str = Field(description="For people; may change between versions.")
    details: Any = Field(description="What the code needs to say more, or null.")


class ErrorOut(Schema):
    """The one shape of every error the API answers."""

    error: ErrorBody
