"""Schema migrations keep every row, and a database is never silently reinterpreted,
on both backends (a SQLite file and a PostgreSQL database)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from learn.store import SCHEMA_VERSION, FeedbackStore, SchemaMismatchError, StoreSchema
from learn.store.core import open_connection
from learn.store.schema import MIGRATIONS, STEP_NAMES, applied_migrations, migrate


def _dump(conn: Any) -> dict[str, list[dict[str, Any]]]:
    if getattr(conn, "dialect", None) == "postgresql":
        listing = (
            "SELECT table_name FROM information_schema.tables WHERE table_schema = "
            "current_schema() AND table_name NOT LIKE 'vec_%' AND table_name <> '_migrations' "
            "ORDER BY table_name"
        )
    else:
        listing = (
            "SELECT name FROM sqlite_schema WHERE type = 'table' AND name NOT LIKE 'sqlite_%' "
            "AND name NOT LIKE 'vec_%' AND name NOT IN ('_migrations') ORDER BY name"
        )
    tables = [str(r[0]) for r in conn.execute(listing).fetchall()]
    out: dict[str, list[dict[str, Any]]] = {}
    for t in tables:
        if getattr(conn, "dialect", None) == "postgresql":
            cur = conn.execute(f"SELECT * FROM {t}")
            cols = [d.name for d in cur.description]
        else:
            cols = [str(r[1]) for r in conn.execute(f"PRAGMA table_info({t})")]
            cur = conn.execute(f"SELECT * FROM {t}")
        rows = [dict(zip(cols, r, strict=True)) for r in cur.fetchall()]
        out[t] = sorted(rows, key=repr)
    return out


def _fill(conn: Any, version: int) -> None:
    """Rows in every table that exists at `version` (>= 1)."""
    conn.execute("INSERT INTO files (path, mtime) VALUES ('/a.jsonl', 1.5), ('/b.jsonl', 2.5)")
    for i in range(3):
        conn.execute(
            "INSERT INTO feedback_events (dedup_key, source_kind, session_id, event_uuid, "
            "occurred_at, text, payload_json, context_json, cc_version, ingested_at) "
            "VALUES ($1, 'denial', 's1', $2, '2026-01-01', $3, '{}', '{}', '2.0', '2026-01-02')",
            (f"k{i}", f"u{i}", f"text {i}"),
        )
    conn.execute(
        "INSERT INTO verdicts (dedup_key, role, prompt_version, model, category, accepted, "
        "summary, confidence, rationale, canonical_key, fidelity, judged_at) VALUES "
        "('k0', 'judge', 1, 'm', 'tooling', 1, 'Use bun', 0.9, 'r', 'bun', 'summary', 'now')"
    )
    if version >= 2:
        conn.execute("INSERT INTO runs (started_at, args_json) VALUES ('t0', '{\"days\": 7}')")
        conn.execute(
            "INSERT INTO sessions_scanned VALUES ('s1', 'claude', '/p', '/x.jsonl', 'h', "
            "'2026-01-01', 2, 'now')"
        )
        conn.execute(
            "INSERT INTO candidates (session_id, kind, source, text, text_hash, label) "
            "VALUES ('s1', 'directive', 'miner', 'use bun', 'h1', 'use-bun')"
        )
        conn.execute("INSERT INTO labels (label, kind, created_at) VALUES ('use-bun', 'directive', 'now')")
        if version > STEP_NAMES.index("0019_shown_per_project"):
            conn.execute("INSERT INTO shown_proposals (project, key, first_shown_at, "
                         "last_shown_at) VALUES ('/p', 'directive:use-bun', 't1', 't2')")
        else:
            conn.execute("INSERT INTO proposals (key, first_shown_at, last_shown_at) VALUES "
                         "('directive:use-bun', 't1', 't2')")
        conn.execute("INSERT INTO decisions (key, decision, at) VALUES "
                     "('directive:use-bun', 'accepted', 't3')")
        conn.execute("INSERT INTO embedding_cache VALUES ('sp', 'h1', $1)", (b"\x00\x00\x80?",))
    if version > STEP_NAMES.index("0017_apply_writes") and \
            getattr(conn, "dialect", None) != "postgresql":  # this machine's table only
        conn.execute("INSERT INTO apply_writes (batch, action, project, path, before_hash, "
                     "after_hash, backup_file, keys, written_at) VALUES ('b1', 'apply', '/p', "
                     "'/p/CLAUDE.md', 'h0', 'h1', '/bak', '[\"directive:use-bun\"]', 't4')")


# 0019: the shown proposals, keyed by (project, key) from then on.
RENAMED = {"proposals": "shown_proposals"}


@pytest.mark.parametrize("previous", range(1, SCHEMA_VERSION))
def test_migrating_from_each_previous_version_keeps_every_row(
    store_target: Path | str, previous: int
) -> None:
    db = store_target
    conn, _, _ = open_connection(db)
    assert migrate(conn, StoreSchema(), upto=previous) == [n for n, _ in MIGRATIONS[:previous]]
    conn.execute("BEGIN")
    _fill(conn, previous)
    conn.execute("COMMIT")
    before = _dump(conn)
    conn.close()

    with pytest.raises(SchemaMismatchError, match="needs migrations"):
        FeedbackStore.open(db, readonly=True)

    with FeedbackStore.open(db) as s:
        assert applied_migrations(s._conn) == [n for n, _ in MIGRATIONS]
        after = _dump(s._conn)
    assert sum(len(v) for v in before.values()) > 5
    for table, rows in before.items():
        # later migrations may add columns (NULL for old rows) or move a table's rows
        # into a new one (RENAMED); every old value stays
        now = after[RENAMED.get(table, table)]
        kept = [{c: r[c] for c in rows[0]} for r in now] if rows else now
        assert kept == rows, table
    # and the migrated database is a full one: the read-only attestation passes
    with FeedbackStore.open(db, readonly=True) as ro:
        assert ro.stats().total == 3


def test_writes_journaled_before_the_state_column_are_done(tmp_path: Path) -> None:
    """0025: a row from before was recorded after its write, so it is no pending one."""
    db = tmp_path / "learn.db"
    conn, _, _ = open_connection(db)
    migrate(conn, StoreSchema(), upto=STEP_NAMES.index("0025_apply_writes_state"))
    conn.execute("BEGIN")
    _fill(conn, STEP_NAMES.index("0025_apply_writes_state"))
    conn.execute("COMMIT")
    conn.close()
    with FeedbackStore.open(db) as s:
        from learn.store.apply_journal import ApplyJournal

        journal = ApplyJournal(s._conn)
        assert journal.pending() == []
        [row] = journal.batch("b1")
        assert not row.pending and row.after_hash == "h1" and row.backup_file == "/bak"


def test_opening_twice_applies_nothing(store_target: Path | str) -> None:
    db = store_target
    FeedbackStore.open(db).close()
    conn, _, _ = open_connection(db)
    assert migrate(conn, StoreSchema()) == []
    conn.close()


def test_database_from_a_newer_learn_is_refused(store_target: Path | str) -> None:
    db = store_target
    with FeedbackStore.open(db) as s:
        s.execute("INSERT INTO _migrations (name, applied_at) VALUES ('9999_future', 'now')")
    with pytest.raises(SchemaMismatchError, match="newer"):
        FeedbackStore.open(db)
    with pytest.raises(SchemaMismatchError, match="newer"):
        FeedbackStore.open(db, readonly=True)


def test_layout_change_is_refused(store_target: Path | str) -> None:
    db = store_target
    FeedbackStore.open(db).close()
    with pytest.raises(SchemaMismatchError, match="layout"):
        FeedbackStore.open(db, StoreSchema(verdict_table="triage"))


def test_new_event_columns_are_added_and_keep_rows(store_target: Path | str) -> None:
    db = store_target
    with FeedbackStore.open(db) as s:
        s.execute(
            "INSERT INTO feedback_events (dedup_key, source_kind, occurred_at, text, ingested_at) "
            "VALUES ('k', 'denial', 't', 'x', 't')"
        )
    schema = StoreSchema(event_columns=("origin_path TEXT",))
    with pytest.raises(SchemaMismatchError, match="lacks event columns"):
        FeedbackStore.open(db, schema, readonly=True)
    with FeedbackStore.open(db, schema) as s:
        assert s.events()[0]["origin_path"] is None
        assert s.dedup_keys() == {"k"}


def test_identifiers_are_checked() -> None:
    with pytest.raises(ValueError):
        StoreSchema(verdict_table="v; DROP TABLE files")
    with pytest.raises(ValueError):
        StoreSchema(event_columns=("x TEXT); --",))


# Existing databases record these names in _migrations: they never change or move.
_SHIPPED = ("0001_feedback", "0002_learn_tables", "0003_event_ingest_index",
            "0004_scope_examples_full_result", "0005_team_shared_candidates",
            "0006_team_show_name", "0007_session_index", "0008_name_cache", "0009_mine_batches",
            "0011_proposal_states", "0014_team_protection", "0015_label_source",
            "0016_session_index_derived")


def test_shipped_step_names_keep_their_order_and_new_ones_come_after() -> None:
    assert [n for n, _ in MIGRATIONS] == list(STEP_NAMES)
    assert len(STEP_NAMES) == SCHEMA_VERSION
    assert [n for n in STEP_NAMES if n in _SHIPPED] == list(_SHIPPED)
    assert STEP_NAMES[: len(_SHIPPED)] == _SHIPPED or all(
        n[:4] > _SHIPPED[-1][:4] for n in STEP_NAMES if n not in _SHIPPED)
    assert len(set(STEP_NAMES)) == len(STEP_NAMES)


def test_postgres_keeps_vectors_in_a_vector_column_with_an_hnsw_index(pg_url: str) -> None:
    from learn.embed.tfidf import TfidfEmbedder
    from learn.store.label_tables import LabelTables

    emb = TfidfEmbedder()
    with FeedbackStore.open(pg_url) as s:
        LabelTables(s).put_label("use-bun", "directive", emb.embed(["use bun"])[0], space=emb.name)
        (reg,) = s.sql("SELECT table_name, dim FROM vector_tables")
        (col,) = s.sql(
            "SELECT format_type(a.atttypid, a.atttypmod) AS type FROM pg_attribute a "
            "WHERE a.attrelid = $1::regclass AND a.attname = 'embedding'", (reg["table_name"],)
        )
        assert col["type"] == f"vector({reg['dim']})"
        defs = [r["indexdef"] for r in s.sql("SELECT indexdef FROM pg_indexes WHERE tablename = $1",
                                             (reg["table_name"],))]
        assert any("USING hnsw (embedding vector_cosine_ops)" in d for d in defs), defs


def test_shown_rows_move_to_the_projects_the_proposal_book_knows(store_target: Path | str) -> None:
    """0019: a shown row takes the projects its key is pending or decided in; a row the
    book does not know is kept as shown somewhere ('')."""
    conn, _, _ = open_connection(store_target)
    upto = [n for n, _ in MIGRATIONS].index("0019_shown_per_project")
    migrate(conn, StoreSchema(), upto=upto)
    conn.execute("BEGIN")
    for key in ("directive:use-bun", "fix:pytest-q"):
        conn.execute("INSERT INTO proposals (key, first_shown_at, last_shown_at, shown_count) "
                     "VALUES ($1, 't1', 't2', 3)", (key,))
    for project in ("/code/billing", "/code/dashboard"):
        conn.execute(
            "INSERT INTO proposal_states (project, key, kind, accepted, state, sessions, "
            "proposal_json, first_proposed_at, last_proposed_at) VALUES ($1, "
            "'directive:use-bun', 'directive', TRUE, 'pending', 2, '{}', 't1', 't1')", (project,))
    conn.execute("COMMIT")
    migrate(conn, StoreSchema())
    rows = conn.execute("SELECT project, key, shown_count FROM shown_proposals "
                        "ORDER BY key, project").fetchall()
    conn.close()
    assert [tuple(r) for r in rows] == [("/code/billing", "directive:use-bun", 3),
                                        ("/code/dashboard", "directive:use-bun", 3),
                                        ("", "fix:pytest-q", 3)]
