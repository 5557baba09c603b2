"""What an app may rename in the store (StoreSchema), and the identifier check.

A leaf of learn.store: the dialects, the vector tables, the migration steps and
the migration engine all read it, and it imports none of them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

DEFAULT_IDENTITY = "learn-feedback"
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_COLTYPE = re.compile(r"^(TEXT|INTEGER|REAL|BLOB|ANY)?$", re.IGNORECASE)


def check_identifier(name: str) -> str:
    # Table and column names are interpolated into SQL; only plain identifiers get in.
    if not _IDENT.match(name):
        raise ValueError(f"not a plain SQL identifier: {name!r}")
    return name


@dataclass(frozen=True, slots=True)
class StoreSchema:
    """How an app composes the feedback store.

    event_columns are extra columns on feedback_events, written from the `extras`
    of insert_candidates; each entry is "name" or "name TYPE" (TEXT, INTEGER, REAL,
    BLOB). New event columns are added to an existing database; renames are not.
    event_filter is a SQL predicate over alias `e`, ANDed into unjudged() and judged(),
    e.g. "e.quarantined_reason IS NULL".
    """

    identity: str = DEFAULT_IDENTITY
    event_columns: tuple[str, ...] = ()
    verdict_table: str = "verdicts"
    accepted_column: str = "accepted"
    summary_column: str = "summary"
    event_filter: str | None = None
    _columns: tuple[tuple[str, str], ...] = field(default=(), init=False, repr=False)

    def __post_init__(self) -> None:
        for name in (self.verdict_table, self.accepted_column, self.summary_column):
            check_identifier(name)
        if self.accepted_column == self.summary_column:
            raise ValueError("accepted_column and summary_column must differ")
        cols: list[tuple[str, str]] = []
        for spec in self.event_columns:
            name, _, ctype = spec.strip().partition(" ")
            check_identifier(name)
            ctype = ctype.strip()
            if not _COLTYPE.match(ctype):
                raise ValueError(f"unsupported column type in {spec!r}")
            cols.append((name, ctype.upper()))
        object.__setattr__(self, "_columns", tuple(cols))

    @property
    def extra_columns(self) -> tuple[tuple[str, str], ...]:
        """(name, type) of each app event column."""
        return self._columns

    @property
    def extra_column_names(self) -> tuple[str, ...]:
        return tuple(name for name, _ in self._columns)

    def layout(self) -> dict[str, Any]:
        """What must match between the code and an existing database (event columns may grow)."""
        return {
            "verdict_table": self.verdict_table,
            "accepted_column": self.accepted_column,
            "summary_column": self.summary_column,
        }
