"""The reduce protocols over learn's sqlite tables (`learn.store.learn_tables.LearnTables`).

Typed structurally against the few methods used, so this module imports
nothing from the store at import time and a store change shows up as a type
error here rather than at run time.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Protocol

from learn.reduce.protocols import ShownRecord

if TYPE_CHECKING:
    from learn.reduce.protocols import Vector


class _LabelTables(Protocol):
    def put_label(self, label: str, kind: str, vector: Any, *, space: str, text: str = "") -> int: ...

    def nearest_labels(
        self, vector: Any, kind: str, k: int = 5, *, space: str
    ) -> list[tuple[str, float]]: ...


class _ShownRow(Protocol):
    @property
    def last_shown_at(self) -> str: ...

    @property
    def last_occurrence(self) -> str | None: ...

    @property
    def covered_when_shown(self) -> bool: ...


class _ShownTables(Protocol):
    def shown(self, key: str) -> _ShownRow | None: ...


@dataclass
class StoreLabelIndex:
    """LabelIndex over the labels table, in one embedder's vector space."""

    tables: _LabelTables
    space: str  # the embedder's name: vectors of different spaces never meet

    def nearest(self, vector: Vector, kind: str, k: int) -> list[tuple[str, float]]:
        return self.tables.nearest_labels(vector, kind, k, space=self.space)

    def add(self, label: str, kind: str, vector: Vector) -> None:
        self.tables.put_label(label, kind, vector, space=self.space)


@dataclass
class StoreShownState:
    """ShownState over the proposals table: shown_at is the last time it was shown."""

    tables: _ShownTables

    def get(self, key: str) -> ShownRecord | None:
        row = self.tables.shown(key)
        if row is None:
            return None
        return ShownRecord(
            shown_at=row.last_shown_at, last_seen=row.last_occurrence, covered=row.covered_when_shown
        )
