"""The orders a dashboard list offers: each sortable column (SortKey), the list's choice of
them and its default (Sorting), and the order one request asked for (Sort). A sort is in
the query string, ``?sort=recorded`` (ascending) or ``?sort=-recorded`` (descending); a key
the list does not offer reads as its default order, never as an error.

Ties are broken by the id, in the sort's direction, so that every order is total and a page
continues exactly after the last row of the one before (dewee.pagination.keyset_page keeps
both values in its cursor).

A list of a table that grows with use (facts, memories, the audit log: a million rows and
more) is sorted by a column only when an index gives its rows in that order (``indexed``,
or ``agent_indexed`` where the list shows one agent's rows and an index leads with the
agent); any other column only over a filtered set of at most UNINDEXED_SORT_MAX rows,
checked by one bounded count (``within_bound``). Beyond it the list keeps its default order
and says which sort it refused, so that no request sorts a million rows."""

from collections.abc import Callable, Iterable
from dataclasses import dataclass, replace
from datetime import datetime
from typing import Any

from django.db.models import F, OrderBy, Q, QuerySet

# The most rows a list sorts by a column no index serves: sorting them costs what finding
# them does (the bounded count that checks it reads as many), and no more than a page's
# own query would for as rare a filter.
UNINDEXED_SORT_MAX = 1000


@dataclass(frozen=True)
class SortKey:
    """A column a list may be sorted by. ``name`` is its name in the URL; ``field`` the
    model field (or annotation) read, ``id`` for the id itself; ``kind`` the type of its
    values (how a cursor's value reads back: int, float, str or datetime). ``indexed``:
    sorting by it costs what the list's default order does, in every scope (an index gives
    the rows in this order, or the list is read whole anyway), so no bound applies;
    ``agent_indexed``: so for one agent's rows (an index leads with the agent). ``nullable``
    columns sort their empty values last and are only offered by lists shown whole (a
    cursor cannot continue after an empty value). ``descending_first``: its first click
    sorts the largest (newest) first."""

    name: str
    field: str = "id"
    kind: type = int
    indexed: bool = False
    agent_indexed: bool = False
    descending_first: bool = False
    nullable: bool = False
    # How a page names it, in a sentence ("last activity"); its name by default.
    label: str = ""
    # The column shows the field's order reversed: an age, of a creation time (ascending
    # ages are descending times).
    reversed_field: bool = False

    @property
    def by_id(self) -> bool:
        return self.field == "id"

    @property
    def named(self) -> str:
        return self.label or self.name


@dataclass(frozen=True)
class Sort:
    """The order a list is shown in: one of its keys and a direction. ``refused``: the
    order that was asked for and not applied (a column no index serves, over more than
    UNINDEXED_SORT_MAX rows); the page names it."""

    key: SortKey
    descending: bool
    refused: SortKey | None = None

    @property
    def refusal(self) -> str:
        """What the page says of the order refused ("" when none was)."""
        if self.refused is None:
            return ""
        narrow = "narrow the filters"
        if self.refused.agent_indexed:
            narrow = "pick one agent or narrow the filters"
        return (
            f"Not sorted by {self.refused.named}: a list is sorted by it only when it holds "
            f"{UNINDEXED_SORT_MAX:,} rows or fewer. To sort it, {narrow}."
        )

    @property
    def param(self) -> str:
        return f"-{self.key.name}" if self.descending else self.key.name

    @property
    def newest_first(self) -> bool:
        """Whether this is the order of the id, descending: a keyset page's plain cursor."""
        return self.key.by_id and self.descending

    @property
    def field_descending(self) -> bool:
        """Whether the field itself is read in descending order."""
        return self.descending != self.key.reversed_field

    def ordering(self, id_expression: Any = None) -> list[OrderBy]:
        """The ORDER BY: the column, then the id (``id_expression`` where the primary key
        must not serve it), both in the sort's direction."""
        by_id = id_expression if id_expression is not None else F("id")
        terms = [] if self.key.by_id else [F(self.key.field)]
        terms.append(by_id)
        nulls = {"nulls_last": True} if self.key.nullable else {}
        if self.field_descending:
            return [term.desc(**nulls) for term in terms]
        return [term.asc(**nulls) for term in terms]

    def after(self, value: Any, last_id: int) -> Q:
        """The rows that come after (``value``, ``last_id``) in this order. The column's
        own bound comes first (``<=``), so that an index on it serves the condition."""
        op = "lt" if self.field_descending else "gt"
        if self.key.by_id:
            return Q(**{f"id__{op}": last_id})
        column = self.key.field
        return Q(**{f"{column}__{op}e": value}) & (
            Q(**{f"{column}__{op}": value}) | Q(**{f"id__{op}": last_id})
        )

    def sorted[T](self, items: Iterable[T], value: Callable[[T], Any]) -> list[T]:
        """``items`` in this order, in Python: for a list read whole (a few hundred rows at
        most), by ``value`` of each; ``None`` values last, whatever the direction."""
        present = [item for item in items if value(item) is not None]
        empty = [item for item in items if value(item) is None]
        return [*sorted(present, key=value, reverse=self.field_descending), *empty]


@dataclass(frozen=True)
class Sorting:
    """The orders a list offers (``keys``) and the one it shows unless asked (``default``,
    a parameter such as ``"-recorded"``)."""

    keys: tuple[SortKey, ...]
    default: str

    def key(self, name: str) -> SortKey | None:
        return next((key for key in self.keys if key.name == name), None)

    @property
    def default_sort(self) -> Sort:
        sort = self._parsed(self.default)
        assert sort is not None, f"the default {self.default!r} is not one of the keys"
        return sort

    def _parsed(self, raw: str) -> Sort | None:
        descending = raw.startswith("-")
        key = self.key(raw.removeprefix("-"))
        return Sort(key=key, descending=descending) if key is not None else None

    def parse(self, raw: object) -> Sort:
        """The order ``raw`` (a query parameter) names; the default for anything else
        (nothing, an unknown key, a list of values)."""
        if not isinstance(raw, str) or not raw:
            return self.default_sort
        return self._parsed(raw.strip()) or self.default_sort

    def next_param(self, sort: Sort, name: str) -> str | None:
        """The parameter a click on the header of key ``name`` asks for: the other
        direction when the list is sorted by it, else the key's first direction; None
        when that is the default (the URL then goes without it)."""
        key = self.key(name)
        if key is None:
            raise ValueError(f"{name!r} is not a key of this list")
        descending = not sort.descending if sort.key == key else key.descending_first
        param = f"-{name}" if descending else name
        return None if param == self.default else param

    def within_bound(self, rows: QuerySet[Any], sort: Sort, *, one_agent: bool = False) -> Sort:
        """``sort`` when an index serves it (for one agent's rows, ``agent_indexed`` too),
        or when ``rows`` number at most UNINDEXED_SORT_MAX (one count that reads no more
        than that many); else the default order, naming the sort refused."""
        if sort.key.indexed or (one_agent and sort.key.agent_indexed):
            return sort
        if rows.order_by()[: UNINDEXED_SORT_MAX + 1].count() <= UNINDEXED_SORT_MAX:
            return sort
        return replace(self.default_sort, refused=sort.key)


def value_of(sort: Sort, row: Any) -> Any:
    """The value of ``row`` (a model instance, or an annotated one) that ``sort`` orders
    by: the first half of a keyset cursor."""
    value = getattr(row, sort.key.field if not sort.key.by_id else "pk")
    if sort.key.kind is datetime and not isinstance(value, datetime):
        raise TypeError(f"{sort.key.field} is not a time")
    return value
