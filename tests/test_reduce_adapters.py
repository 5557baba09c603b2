"""The reduce protocols over the real sqlite store."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from _reduce_helpers import TopicEmbedder, directive, session

from learn.reduce.adapters import StoreLabelIndex, StoreShownState
from learn.reduce.counting import occurrences
from learn.reduce.naming import name_candidates
from learn.reduce.suppress import reduce_occurrences
from learn.store.feedback import FeedbackStore
from learn.store.learn_tables import LearnTables


@pytest.fixture
def tables(tmp_path: Path) -> Iterator[LearnTables]:
    with FeedbackStore.open(tmp_path / "learn.db") as store:
        yield LearnTables(store)


def test_labels_round_trip_through_the_store(tables: LearnTables) -> None:
    emb = TopicEmbedder()
    index = StoreLabelIndex(tables, space=emb.name)
    first = name_candidates([directive("use bun please"), directive("bun not npm")], embedder=emb,
                            backend=None, model="m", threshold=0.5, index=index)
    first.remember(index)
    assert index.nearest(emb.embed(["bun"])[0], "request", 3) == []
    second = name_candidates([directive("bun, as I said")], embedder=emb, backend=None, model="m",
                             threshold=0.5, index=index)
    assert second.labels[0] == first.labels[0]


def test_shown_state_from_the_store_suppresses(tables: LearnTables) -> None:
    sessions = [session(sid, "2026-01-02T00:00:00Z", directive("use bun")) for sid in "ab"]
    occs = occurrences(sessions, ["use-bun-not-npm", "use-bun-not-npm"])
    tables.mark_shown("directive:use-bun-not-npm", last_occurrence="2026-01-02T00:00:00Z",
                      at="2026-01-03T00:00:00Z")
    state = StoreShownState(tables)
    assert reduce_occurrences(occs, state=state).funnel.held_back == 1
    later = [session("c", "2026-01-04T00:00:00Z", directive("use bun")), *sessions]
    occs = occurrences(later, ["use-bun-not-npm"] * 3)
    assert reduce_occurrences(occs, state=state).funnel.shown == 1
