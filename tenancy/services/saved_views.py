"""Writes of a person's saved views (tenancy.preferences): saving the filters and order of
a list page under a name, and deleting one. Personal settings, not workspace data: not
audited, and open to every signed-in person, viewers included."""

from collections.abc import Collection
from typing import Any

from django.db import IntegrityError, transaction
from django.http import QueryDict

from dewee.errors import InvalidInput
from tenancy.preferences import (
    SAVED_VIEWS_MAX,
    VIEW_NAME_MAX_CHARS,
    VIEW_QUERY_MAX_CHARS,
    SavedView,
)


def clean_view_name(name: object) -> str:
    """The name trimmed (and its runs of spaces made one): required, at most
    VIEW_NAME_MAX_CHARS characters."""
    text = " ".join(name.split()) if isinstance(name, str) else ""
    if not text:
        raise InvalidInput("name", "Give the view a name.")
    if len(text) > VIEW_NAME_MAX_CHARS:
        raise InvalidInput("name", f"Keep the name to {VIEW_NAME_MAX_CHARS} characters or fewer.")
    return text


def clean_view_query(query: str, *, params: Collection[str]) -> str:
    """``query`` with only the parameters in ``params`` (the page's filters and order) that
    hold a value, in the order given: anything else (a cursor, a stray parameter) is not
    kept. At most VIEW_QUERY_MAX_CHARS."""
    given = QueryDict(query[: VIEW_QUERY_MAX_CHARS * 4])
    kept = QueryDict(mutable=True)
    for name in given:
        values = [value for value in given.getlist(name) if value]
        if name in params and values:
            kept.setlist(name, values)
    text = kept.urlencode()
    if len(text) > VIEW_QUERY_MAX_CHARS:
        raise InvalidInput("query", "These filters are too long to save: shorten them.")
    return text


def save_view(*, user: Any, page: str, query: str, name: str, params: Collection[str]) -> SavedView:
    """Save the list ``page`` (its URL name) with ``query`` under ``name`` for ``user``.

    Invariants: the name is clean (clean_view_name) and no other view of the same person
    and page has it, in any case (also a constraint of the table); the query holds only
    ``params``, the parameters the page's filter form knows; a person keeps at most
    SAVED_VIEWS_MAX views. A refused save writes nothing."""
    name = clean_view_name(name)
    query = clean_view_query(query, params=params)
    with transaction.atomic():
        mine = SavedView.objects.filter(user=user)
        if mine.filter(page=page, name__iexact=name).exists():
            raise InvalidInput("name", f"You already have a view named “{name}” on this page.")
        if mine.count() >= SAVED_VIEWS_MAX:
            raise InvalidInput(
                "name", f"You have {SAVED_VIEWS_MAX} saved views: delete one to save another."
            )
        try:
            with transaction.atomic():
                return SavedView.objects.create(user=user, page=page, name=name, query=query)
        except IntegrityError:  # saved by another request of theirs in between
            raise InvalidInput(
                "name", f"You already have a view named “{name}” on this page."
            ) from None


def delete_saved_view(*, view: SavedView) -> None:
    """Delete ``view`` (loaded for its owner: tenancy.queries.get_saved_view). Nothing else
    goes: the list and its data stay as they are."""
    view.delete()
