"""FeedbackStore behaviour on real databases: a SQLite file and a PostgreSQL database
(every test runs on both backends, see tests/_store_backends.py)."""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from learn.embed.tfidf import TfidfEmbedder
from learn.records.proposal import Verdict
from learn.store import (
    FeedbackStore,
    ReadOnlyStoreError,
    StoreSchema,
    TransactionConflictError,
)
from learn.store.db import StoreClosedError


@dataclass(frozen=True)
class Sig:
    confidence: float = 0.8
    reasons: tuple[str, ...] = ("denial",)
    durable: bool = True


@dataclass(frozen=True)
class Window:
    before: tuple[str, ...] = ("assistant ran npm install",)

    def to_json(self) -> dict[str, Any]:
        return {"before": list(self.before)}


@dataclass(frozen=True)
class Cand:
    dedup_key: str
    text: str
    source_kind: str = "denial"
    occurred_at: datetime | str = datetime(2026, 1, 2, 3, 4, 5, tzinfo=UTC)
    window: Any = field(default_factory=Window)
    ref: Any = "uuid-1"
    signal: Any = field(default_factory=Sig)
    session_id: str | None = "s1"
    cc_version: str | None = "2.0.1"
    payload: dict[str, Any] | None = None


def verdict(summary: str = "Use bun", key: str | None = "bun", accepted: bool = True) -> Verdict:
    return Verdict(accepted=accepted, summary=summary, category="tooling", scope="user",
                   confidence=0.9, rationale="said twice", canonical_key=key)


@pytest.fixture
def store(store_target: Path | str) -> Any:
    s = FeedbackStore.open(store_target, embedder=TfidfEmbedder())
    yield s
    s.close()


def test_record_file_scan_is_idempotent(store: FeedbackStore) -> None:
    cands = [Cand("k1", "use bun not npm"), Cand("k2", "no mocks", source_kind="interrupt")]
    assert store.record_file_scan("/t/a.jsonl", 10.5, cands) == 2
    assert store.record_file_scan("/t/a.jsonl", 10.5, cands) == 0
    assert store.record_file_scan("/t/a.jsonl", 11.0, [*cands, Cand("k3", "ask first")]) == 1
    st = store.stats()
    assert (st.total, st.files) == (3, 1)
    assert dict(st.by_source) == {"denial": 2, "interrupt": 1}
    assert store.file_mtimes() == {"/t/a.jsonl": 11.0}
    assert store.dedup_keys() == {"k1", "k2", "k3"}


def test_event_columns_round_trip(store: FeedbackStore) -> None:
    store.record_file_scan("/t/a.jsonl", 1.0, [Cand("k1", "use bun", payload={"tool": "Bash"})])
    (ev,) = store.events()
    assert ev["event_uuid"] == "uuid-1"
    assert ev["occurred_at"] == "2026-01-02T03:04:05+00:00"
    assert '"before": ["assistant ran npm install"]' in ev["context_json"]
    assert '"tool": "Bash"' in ev["payload_json"] and '"confidence": 0.8' in ev["payload_json"]
    assert store.recent(limit=5) == [
        {"source_kind": "denial", "occurred_at": "2026-01-02T03:04:05+00:00", "text": "use bun"}
    ]


def test_events_newest_first_and_filtered(store: FeedbackStore) -> None:
    store.insert_candidates([
        Cand("a", "old", occurred_at="2026-01-01T00:00:00+00:00"),
        Cand("b", "new", occurred_at="2026-03-01T00:00:00+00:00", source_kind="interrupt"),
    ])
    assert [e["text"] for e in store.events()] == ["new", "old"]
    assert [e["text"] for e in store.events(source_kind="denial")] == ["old"]
    assert [e["text"] for e in store.recent(source_kind="interrupt")] == ["new"]


def test_insert_candidates_returns_only_new_keys(store: FeedbackStore) -> None:
    assert store.insert_candidates([Cand("a", "x"), Cand("b", "y")]) == ["a", "b"]
    assert store.insert_candidates([Cand("b", "y"), Cand("c", "z")]) == ["c"]


def test_full_verdict_replaces_summary_and_nothing_else_does(store: FeedbackStore) -> None:
    store.insert_candidates([Cand("k1", "use bun not npm")])
    rv = store.record_verdict
    assert rv("k1", verdict("first"), role="judge", prompt_version=1, model="m1", fidelity="summary")
    # model is provenance, not identity: a new model re-recording is a no-op
    assert not rv("k1", verdict("other"), role="judge", prompt_version=1, model="m2",
                  fidelity="summary")
    assert store.judged(role="judge", prompt_version=1)[0]["summary"] == "first"
    assert rv("k1", verdict("full one", key="bun-full"), role="judge", prompt_version=1,
              model="m3", fidelity="full")
    (row,) = store.judged(role="judge", prompt_version=1)
    assert (row["summary"], row["model"], row["fidelity"], row["canonical_key"]) == (
        "full one", "m3", "full", "bun-full")
    assert row["accepted"] is True
    # full never gets replaced, not even by another full
    assert not rv("k1", verdict("again"), role="judge", prompt_version=1, model="m4",
                  fidelity="full")
    assert store.judged(role="judge", prompt_version=1)[0]["summary"] == "full one"
    # another prompt version is another identity
    assert rv("k1", verdict("v2"), role="judge", prompt_version=2, model="m1", fidelity="full")


def test_verdict_for_unknown_event_is_refused(store: FeedbackStore) -> None:
    with pytest.raises(KeyError):
        store.record_verdict("nope", verdict(), role="judge", prompt_version=1, model="m",
                             fidelity="full")


def test_verdict_evidence_upserted_and_cleared(store: FeedbackStore) -> None:
    store.insert_candidates([Cand("k1", "use bun not npm"), Cand("k2", "never mock the db")])
    store.record_verdict("k1", verdict("Use bun"), role="judge", prompt_version=1, model="m",
                         fidelity="summary")
    store.record_verdict("k2", verdict("Use a real database in tests", key="real-db"),
                         role="judge", prompt_version=1, model="m", fidelity="full")
    emb = TfidfEmbedder()
    q = emb.embed(["use bun not npm\nUse bun"])[0]
    hits = store.similar_evidence(q, space=emb.name, k=2)
    assert hits[0]["dedup_key"] == "k1" and hits[0]["distance"] == pytest.approx(0.0, abs=1e-5)
    assert hits[1]["dedup_key"] == "k2"
    # the full re-judge drops the canonical key: its evidence must go
    store.record_verdict("k1", verdict("Use bun", key=None), role="judge", prompt_version=1,
                         model="m", fidelity="full")
    assert [h["dedup_key"] for h in store.similar_evidence(q, space=emb.name, k=5)] == ["k2"]
    assert store.sql("SELECT COUNT(*) AS n FROM verdict_evidence")[0]["n"] == 1


def test_unjudged_orders_truly_unjudged_before_summary_refresh(store: FeedbackStore) -> None:
    store.insert_candidates([Cand("a", "1"), Cand("b", "2"), Cand("c", "3")])
    store.record_verdict("a", verdict(key=None), role="judge", prompt_version=1, model="m",
                         fidelity="summary")
    store.record_verdict("b", verdict(key=None), role="judge", prompt_version=1, model="m",
                         fidelity="full")
    assert [r["dedup_key"] for r in store.unjudged(role="judge", prompt_version=1)] == ["c"]
    rows = store.unjudged(role="judge", prompt_version=1, refresh_summary=True)
    assert [r["dedup_key"] for r in rows] == ["c", "a"]
    assert store.unjudged(role="judge", prompt_version=1, refresh_summary=True, limit=1)[0][
        "dedup_key"] == "c"
    assert store.unjudged(role="judge", prompt_version=1, limit=0) == []
    assert len(store.unjudged(role="auditor", prompt_version=1)) == 3


def test_renamed_schema_extra_columns_and_filter(store_target: Path | str) -> None:
    schema = StoreSchema(identity="steer", event_columns=("origin_path TEXT",
                         "quarantined_reason TEXT"), verdict_table="triage",
                         accepted_column="is_steering", summary_column="what_claude_did",
                         event_filter="e.quarantined_reason IS NULL")
    with FeedbackStore.open(store_target, schema, embedder=TfidfEmbedder()) as s:
        new = s.insert_candidates(
            [Cand("a", "1"), Cand("b", "2")],
            extras=[("/x.jsonl", None), {"origin_path": "/y.jsonl", "quarantined_reason": "junk"}],
        )
        assert new == ["a", "b"]
        assert [r["dedup_key"] for r in s.unjudged(role="j", prompt_version=1)] == ["a"]
        s.record_verdict("a", verdict(key=None), role="j", prompt_version=1, model="m",
                         fidelity="full")
        s.record_verdict("b", verdict(key=None), role="j", prompt_version=1, model="m",
                         fidelity="full")
        (row,) = s.judged(role="j", prompt_version=1)
        assert (row["dedup_key"], row["accepted"], row["summary"], row["origin_path"]) == (
            "a", True, "Use bun", "/x.jsonl")
        assert s.sql("SELECT what_claude_did FROM triage WHERE dedup_key = 'b'") == [
            {"what_claude_did": "Use bun"}]
    # the same file under another identity is refused, not altered
    from learn.store import SchemaMismatchError

    with pytest.raises(SchemaMismatchError):
        FeedbackStore.open(store_target)


def test_transaction_commits_and_rolls_back(store: FeedbackStore) -> None:
    with store.transaction():
        store.insert_candidates([Cand("a", "1")])
        store.record_file("/f", 1.0)
    with pytest.raises(RuntimeError), store.transaction():
        store.insert_candidates([Cand("b", "2")])
        store.record_file("/g", 2.0)
        raise RuntimeError("boom")
    assert store.dedup_keys() == {"a"}
    assert store.file_mtimes() == {"/f": 1.0}


def test_transaction_is_exclusive(store: FeedbackStore) -> None:
    with store.transaction():
        with pytest.raises(TransactionConflictError), store.transaction():
            pass
        with pytest.raises(TransactionConflictError):
            store.executescript("CREATE TABLE t (x)")
        errors: list[BaseException] = []

        def other() -> None:
            for call in (lambda: store.record_file("/other", 1.0),
                         lambda: store.insert_candidates([Cand("z", "z")])):
                try:
                    call()
                except BaseException as exc:
                    errors.append(exc)
            try:
                with store.transaction():
                    pass
            except BaseException as exc:
                errors.append(exc)

        t = threading.Thread(target=other)
        t.start()
        t.join(5)
        assert not t.is_alive()
        assert [type(e) for e in errors] == [TransactionConflictError] * 3
        store.record_file("/mine", 2.0)  # the owner's standalone write joins
    assert store.file_mtimes() == {"/mine": 2.0}
    # once the transaction is over, another thread writes normally
    t = threading.Thread(target=lambda: store.record_file("/later", 3.0))
    t.start()
    t.join(5)
    assert store.file_mtimes() == {"/mine": 2.0, "/later": 3.0}


def test_generic_sql_helpers(store: FeedbackStore) -> None:
    # The one line that differs: an auto-assigned key is spelled differently.
    key = "SERIAL PRIMARY KEY" if store.backend == "postgresql" else "INTEGER PRIMARY KEY"
    store.executescript(f"CREATE TABLE notes (id {key}, body TEXT);")
    assert store.execute("INSERT INTO notes (body) VALUES ($1)", ("a",)) == 1
    assert store.last_insert_rowid() == 1
    assert store.executemany("INSERT INTO notes (body) VALUES ($1)", [("b",), ("c",)]) == 2
    assert store.sql("SELECT body FROM notes WHERE id > $1 ORDER BY id", (1,)) == [
        {"body": "b"}, {"body": "c"}]
    assert store.sql("UPDATE notes SET body = 'x' RETURNING id") != []


def test_close_is_idempotent_and_later_use_raises(store_target: Path | str) -> None:
    s = FeedbackStore.open(store_target)
    s.close()
    s.close()
    with pytest.raises(StoreClosedError):
        s.stats()
    import sqlite3

    with pytest.raises(sqlite3.ProgrammingError):
        s.record_file("/x", 1.0)


def test_readonly_open_checks_schema_and_refuses_writes(store_target: Path | str) -> None:
    with FeedbackStore.open(store_target) as s:
        s.insert_candidates([Cand("a", "1")])
    before = store_target.read_bytes() if isinstance(store_target, Path) else None
    with FeedbackStore.open(store_target, readonly=True) as ro:
        assert ro.dedup_keys() == {"a"}
        with pytest.raises(ReadOnlyStoreError):
            ro.insert_candidates([Cand("b", "2")])
        with pytest.raises(ReadOnlyStoreError):
            ro.execute("DELETE FROM feedback_events")
        with pytest.raises(ReadOnlyStoreError), ro.transaction():
            pass
        # even raw SQL through the connection is stopped by the database itself
        # (SQLite's query_only; PostgreSQL's read-only session)
        if ro.backend == "postgresql":
            import psycopg

            with pytest.raises(psycopg.errors.ReadOnlySqlTransaction):
                ro._conn.execute("DELETE FROM feedback_events")
        else:
            import apsw

            with pytest.raises(apsw.ReadOnlyError):
                ro._conn.execute("DELETE FROM feedback_events")
        assert ro.sql("SELECT COUNT(*) AS n FROM feedback_events") == [{"n": 1}]
    if isinstance(store_target, Path):
        assert store_target.read_bytes() == before
    from learn.store import SchemaMismatchError

    with pytest.raises(SchemaMismatchError):
        FeedbackStore.open(store_target, StoreSchema(identity="someone-else"), readonly=True)


def test_readonly_open_of_a_missing_file_creates_nothing(tmp_path: Path) -> None:
    from learn.store import SchemaMismatchError

    with pytest.raises(SchemaMismatchError):
        FeedbackStore.open(tmp_path / "absent.db", readonly=True)
    assert not (tmp_path / "absent.db").exists()


def test_readonly_open_of_an_empty_database_is_refused(pg_url: str) -> None:
    from learn.store import SchemaMismatchError

    with pytest.raises(SchemaMismatchError, match="not a learn store"):
        FeedbackStore.open(pg_url, readonly=True)
