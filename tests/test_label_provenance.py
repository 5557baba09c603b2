"""Only model-made labels teach the vocabulary (issue 21).

A run whose naming failed names its quotes by fallback for that run only: nothing
of it is remembered as a known label or in the name cache, so the next run's
labels and keys are those of a run that never failed. Fallback labels stored
before (migration 0015 marks them) are never offered again, and become the
model's when it names the point.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from _batch_helpers import _backend, _server, _use
from fakes.anthropic_batches import FakeBatchServer

from learn.pipeline import RunOptions, run_pipeline
from learn.records.proposal import RunResult
from learn.store import FeedbackStore, StoreSchema
from learn.store.core import open_connection
from learn.store.label_tables import LabelTables
from learn.store.schema import STEP_NAMES, migrate


def _vec(*xs: float) -> np.ndarray:
    v = np.asarray(xs, dtype=np.float32)
    return v / np.linalg.norm(v)


def test_migration_marks_labels_no_model_answer_carries_as_fallback(tmp_path: Path) -> None:
    db = tmp_path / "store.db"
    conn, _, _ = open_connection(db)
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0015_label_source"))
    conn.execute("BEGIN")
    for label in ("use-bun-not-npm", "but-will-stay-as-10"):
        conn.execute("INSERT INTO labels (label, kind, created_at) VALUES ($1, 'directive', 'now')",
                     (label,))
    conn.execute("INSERT INTO name_cache (kind, text_hash, prompt_version, label) VALUES "
                 "('directive', 'h1', 1, 'use-bun-not-npm')")
    conn.execute("COMMIT")
    conn.close()
    with FeedbackStore.open(db) as store:
        rows = store.sql("SELECT label, source FROM labels ORDER BY label")
        assert {r["label"]: r["source"] for r in rows} == {
            "but-will-stay-as-10": "fallback", "use-bun-not-npm": "model"}
        assert LabelTables(store).labels("directive") == [("use-bun-not-npm", "directive")]


def test_a_fallback_label_is_never_offered_and_becomes_the_models_when_it_names_it(
    tmp_path: Path,
) -> None:
    with FeedbackStore.open(tmp_path / "store.db") as store:
        tables = LabelTables(store)
        tables.put_label("but-will-stay-as-10", "directive", _vec(1, 0, 0), space="s")
        store.execute("UPDATE labels SET source = 'fallback'")  # as 0015 marks an old one
        tables.put_label("use-bun-not-npm", "directive", _vec(0, 1, 0), space="s")
        near_junk = _vec(1, 0.05, 0)
        assert [n for n, _ in tables.nearest_labels(near_junk, "directive", 3, space="s")] == [
            "use-bun-not-npm"]
        assert tables.labels() == [("use-bun-not-npm", "directive")]
        # The model names the point with the same words: now it is a known label.
        tables.put_label("but-will-stay-as-10", "directive", _vec(1, 0.01, 0), space="s")
        assert [n for n, _ in tables.nearest_labels(near_junk, "directive", 1, space="s")] == [
            "but-will-stay-as-10"]


def _labelled(root: Path, fake: FakeBatchServer, monkeypatch: pytest.MonkeyPatch,
              *, budget: float = 600.0) -> tuple[RunResult, list[tuple[str, str, str, str]]]:
    from learn.config import load_config

    _use(root, fake, monkeypatch)
    result, trace = run_pipeline(
        RunOptions(all_projects=True, embedder="tfidf", show_all=True), load_config(),
        backend=_backend(budget=budget))
    return result, sorted((o.session, o.kind, o.text, o.label) for o in trace.labelled)


def _known(root: Path) -> list[tuple[str, str]]:
    from learn.store import open_store

    with open_store(root / "data" / "learn.db") as store:
        return sorted(store.labels.labels())


def test_after_a_run_whose_naming_failed_the_next_run_labels_as_if_it_never_had(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
) -> None:
    clean_root = tmp_path / "clean"
    fake = _server(clean_root)
    with fake:
        clean, clean_labels = _labelled(clean_root, fake, monkeypatch)

    root = tmp_path / "failed"
    fake = _server(root)
    with fake:
        fake.failing_tools = {"assign_labels"}
        failed, _ = _labelled(root, fake, monkeypatch, budget=5.0)
        assert "name" in failed.failed_stages
        assert failed.extra["naming"]["unnamed_failed"] > 0
        # Nothing of the failed naming was kept: no known label, no name cache row.
        assert _known(root) == []
        fake.failing_tools = set()
        again, again_labels = _labelled(root, fake, monkeypatch)
    assert again_labels == clean_labels
    assert sorted(p.key for p in again.proposals) == sorted(p.key for p in clean.proposals)
    assert _known(root) == _known(clean_root)
    # The failed run grouped only what it was sure of, and its digest says so.
    from learn.report.digest import render_digest_markdown

    assert "Naming failed for" in render_digest_markdown(failed)
    assert "Naming failed for" not in render_digest_markdown(again)
    assert len(failed.proposals) < len(clean.proposals)


def test_a_store_with_no_name_cache_keeps_its_labels(tmp_path: Path) -> None:
    db = tmp_path / "team.db"
    conn, _, _ = open_connection(db)
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0015_label_source"))
    conn.execute("BEGIN")
    conn.execute("INSERT INTO labels (label, kind, created_at) VALUES ('use-bun', 'directive', 'now')")
    conn.execute("COMMIT")
    conn.close()
    with FeedbackStore.open(db) as store:
        assert LabelTables(store).labels() == [("use-bun", "directive")]
