"""SQLite's DDL for each numbered step of learn.store.schema.STEP_NAMES.

Types are SQLite's (INTEGER PRIMARY KEY AUTOINCREMENT, REAL, BLOB); vectors live
in sqlite-vec vec0 tables created on first use (learn.store.vectors), so no step
creates one.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from learn.store.schema import StoreSchema


def _m001_feedback(conn: Any, s: StoreSchema) -> None:
    # The ledger of mined feedback. dedup_key is content-derived (session, kind,
    # text), so re-scanning a file inserts nothing new.
    conn.execute(
        f"""
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            mtime REAL NOT NULL
        );
        CREATE TABLE feedback_events (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            dedup_key TEXT NOT NULL UNIQUE,
            source_kind TEXT NOT NULL,
            session_id TEXT,
            event_uuid TEXT,
            occurred_at TEXT NOT NULL,
            text TEXT NOT NULL,
            payload_json TEXT,
            context_json TEXT,
            cc_version TEXT,
            ingested_at TEXT NOT NULL
        );
        CREATE INDEX feedback_events_by_kind ON feedback_events(source_kind, occurred_at);
        CREATE INDEX feedback_events_by_session ON feedback_events(session_id);
        CREATE TABLE {s.verdict_table} (
            dedup_key TEXT NOT NULL REFERENCES feedback_events(dedup_key) ON DELETE CASCADE,
            role TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            model TEXT NOT NULL,
            category TEXT NOT NULL,
            {s.accepted_column} INTEGER NOT NULL CHECK ({s.accepted_column} IN (0, 1)),
            {s.summary_column} TEXT NOT NULL,
            confidence REAL NOT NULL,
            rationale TEXT NOT NULL DEFAULT '',
            canonical_key TEXT,
            fidelity TEXT NOT NULL CHECK (fidelity IN ('full', 'summary')),
            judged_at TEXT NOT NULL,
            PRIMARY KEY (dedup_key, role, prompt_version)
        );
        -- One row per judged event that carries vector evidence; its id is the rowid
        -- of the vector in the vec0 table of its embedding space.
        CREATE TABLE verdict_evidence (
            id INTEGER PRIMARY KEY,
            dedup_key TEXT NOT NULL REFERENCES feedback_events(dedup_key) ON DELETE CASCADE,
            role TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            space TEXT NOT NULL,
            canonical_key TEXT NOT NULL,
            evidence_text TEXT NOT NULL,
            UNIQUE (dedup_key, role, prompt_version)
        );
        CREATE INDEX verdict_evidence_by_canonical ON verdict_evidence(canonical_key);
        -- vec0 tables have a fixed dimension, and embedders differ (384 vs 1024), so
        -- there is one vec0 table per (purpose, embedding space), created on first use.
        CREATE TABLE vector_tables (
            purpose TEXT NOT NULL,
            space TEXT NOT NULL,
            dim INTEGER NOT NULL CHECK (dim > 0),
            table_name TEXT NOT NULL UNIQUE,
            PRIMARY KEY (purpose, space)
        );
        """
    )


def _m002_learn_tables(conn: Any, s: StoreSchema) -> None:
    conn.execute(
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            started_at TEXT NOT NULL,
            finished_at TEXT,
            args_json TEXT NOT NULL DEFAULT '{}',
            usage_json TEXT,
            result_json TEXT
        );
        CREATE TABLE sessions_scanned (
            session_id TEXT PRIMARY KEY,
            provider TEXT NOT NULL,
            project TEXT,
            path TEXT NOT NULL,
            content_hash TEXT NOT NULL,
            last_activity TEXT,
            candidate_count INTEGER NOT NULL DEFAULT 0,
            scanned_at TEXT NOT NULL
        );
        -- Every verified candidate, below the threshold too: a label given once stays
        -- with the same text (session, kind, source, text_hash), so names are stable
        -- across runs even while a group is still too small to show.
        CREATE TABLE candidates (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            session_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            project TEXT,
            occurred_at TEXT,
            payload_json TEXT,
            label TEXT,
            label_run INTEGER REFERENCES runs(id) ON DELETE SET NULL,
            UNIQUE (session_id, kind, source, text_hash)
        );
        CREATE INDEX candidates_by_label ON candidates(kind, label);
        CREATE INDEX candidates_by_hash ON candidates(kind, text_hash);
        CREATE TABLE labels (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            label TEXT NOT NULL,
            kind TEXT NOT NULL,
            text TEXT NOT NULL DEFAULT '',
            created_at TEXT NOT NULL,
            UNIQUE (label, kind)
        );
        CREATE TABLE proposals (
            key TEXT PRIMARY KEY,
            first_shown_at TEXT NOT NULL,
            last_shown_at TEXT NOT NULL,
            last_occurrence TEXT,
            covered_when_shown INTEGER NOT NULL DEFAULT 0,
            shown_count INTEGER NOT NULL DEFAULT 1,
            text TEXT NOT NULL DEFAULT '',
            verdict_json TEXT
        );
        CREATE TABLE decisions (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            key TEXT NOT NULL,
            decision TEXT NOT NULL CHECK (decision IN ('accepted', 'edited', 'dismissed')),
            text TEXT NOT NULL DEFAULT '',
            target_file TEXT,
            at TEXT NOT NULL
        );
        CREATE INDEX decisions_by_key ON decisions(key, at);
        CREATE TABLE embedding_cache (
            space TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            vector BLOB NOT NULL,
            PRIMARY KEY (space, text_hash)
        ) WITHOUT ROWID;
        """
    )


def _m003_event_ingest_index(conn: Any, s: StoreSchema) -> None:
    # recent() and the digest window read newest-first by ingestion; without this
    # they sort the whole ledger.
    conn.execute("CREATE INDEX feedback_events_by_ingested ON feedback_events(ingested_at)")


def _m004_scope_examples_full_result(conn: Any, s: StoreSchema) -> None:
    # learn's Verdict carries a scope (user | project) the seed's verdict row lacks;
    # a run keeps its full RunResult (quotes' projects, rationales) next to the
    # surface JSON so `learn digest` rebuilds it exactly; and a label is found by
    # any of the examples it was given, not one vector per label.
    conn.execute(
        f"""
        ALTER TABLE {s.verdict_table} ADD COLUMN scope TEXT;
        ALTER TABLE runs ADD COLUMN result_full_json TEXT;
        CREATE TABLE label_examples (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            label_id INTEGER NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
            space TEXT NOT NULL,
            vector_hash TEXT NOT NULL,
            UNIQUE (label_id, space, vector_hash)
        );
        """
    )


def _m005_team_shared_candidates(conn: Any, s: StoreSchema) -> None:
    # What `learn share` sends to a team store, and nothing more (see learn.store.team):
    # the quote (verified, redacted), its kind and label, a hash of the session id,
    # when, the project's remote URL and the author id the person chose. text_hash
    # is the quote's own hash (it adds nothing the quote does not say).
    conn.execute(
        """
        CREATE TABLE team_candidates (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            author TEXT NOT NULL,
            session_hash TEXT NOT NULL,
            kind TEXT NOT NULL,
            label TEXT,
            quote TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            occurred_at TEXT,
            project_remote TEXT NOT NULL,
            shared_at TEXT NOT NULL,
            UNIQUE (author, session_hash, kind, text_hash)
        );
        CREATE INDEX team_candidates_by_label ON team_candidates(project_remote, kind, label);
        """
    )


def _m006_team_show_name(conn: Any, s: StoreSchema) -> None:
    # Whether the author chose to have their id shown next to team proposals
    # ([team] show_name); hidden unless they said so.
    conn.execute("ALTER TABLE team_candidates ADD COLUMN show_name INTEGER NOT NULL DEFAULT 0")


def _m007_session_index(conn: Any, s: StoreSchema) -> None:
    # Per transcript file, what reading it gave (learn.store.session_index), so a
    # warm run opens no unchanged file.
    from learn.store.session_index import create_table

    create_table(conn)


def _m008_name_cache(conn: Any, s: StoreSchema) -> None:
    # The label the model gave an exact candidate text under a naming prompt
    # version (learn.store.learn_tables.LearnTables.named_labels): a warm run
    # asks nothing about text it has named before. Only model answers are kept,
    # never fallback names, so a failed call is asked again next run.
    conn.execute(
        """
        CREATE TABLE name_cache (
            kind TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            label TEXT NOT NULL,
            PRIMARY KEY (kind, text_hash, prompt_version)
        )
        """
    )


def _m009_mine_batches(conn: Any, s: StoreSchema) -> None:
    # Each submitted Message Batch item (learn.mining.batch): which session and
    # chunk it mines, so another process can collect a batch this one submitted.
    from learn.store.mine_batches import create_table

    create_table(conn)


def _m011_proposal_states(conn: Any, s: StoreSchema) -> None:
    # Proposals until the person decides, per project, and what apply wrote
    # (learn.store.proposals): a second run must not lose what the first proposed.
    from learn.store.proposals import create_tables

    create_tables(conn)


def _m014_team_protection(conn: Any, s: StoreSchema) -> None:
    # A fix is shared as the commands that ran (evidence), never the model's words;
    # team runs read shared rows through team_shared, which names a person only
    # where they chose to be named. A SQLite team store has no roles: `person` is
    # the author id itself (PostgreSQL hashes it, learn.store.pg_ddl).
    conn.execute(
        """
        ALTER TABLE team_candidates ADD COLUMN evidence TEXT;
        CREATE VIEW team_shared AS
            SELECT id, author AS person, CASE WHEN show_name THEN author END AS name,
                   session_hash, kind, label, quote, evidence, text_hash, occurred_at,
                   project_remote, show_name
            FROM team_candidates;
        """
    )


def _m015_label_source(conn: Any, s: StoreSchema) -> None:
    # Where a known label came from. Only a model's labels teach the vocabulary
    # (they are offered to the naming model as KNOWN LABELS, which it is told to
    # reuse exactly); a fallback slug stored by a run whose naming failed was
    # reused by every later run and became the digest's keys (issue 21). Naming
    # no longer stores fallback labels; the ones stored before are marked here:
    # a label no model answer in the name cache (0008) carries is a fallback's.
    # Never offered again, it is replaced as soon as the model names the point.
    # A store whose name cache is empty (a team store: team runs keep none) has
    # nothing to tell them apart by, and is left as it is.
    conn.execute(
        """
        ALTER TABLE labels ADD COLUMN source TEXT NOT NULL DEFAULT 'model';
        UPDATE labels SET source = 'fallback' WHERE EXISTS (SELECT 1 FROM name_cache)
        AND NOT EXISTS (
            SELECT 1 FROM name_cache n WHERE n.kind = labels.kind AND n.label = labels.label
        );
        """
    )


def _m016_session_index_derived(conn: Any, s: StoreSchema) -> None:
    # The session index keeps derived, redacted data only: the raw-record
    # pickles of 0007's `prefix` column go, their pages zeroed.
    from learn.store.session_index import derived_only

    derived_only(conn)


SQLITE_STEPS = {
    "0001_feedback": _m001_feedback,
    "0002_learn_tables": _m002_learn_tables,
    "0003_event_ingest_index": _m003_event_ingest_index,
    "0004_scope_examples_full_result": _m004_scope_examples_full_result,
    "0005_team_shared_candidates": _m005_team_shared_candidates,
    "0006_team_show_name": _m006_team_show_name,
    "0007_session_index": _m007_session_index,
    "0008_name_cache": _m008_name_cache,
    "0009_mine_batches": _m009_mine_batches,
    "0011_proposal_states": _m011_proposal_states,
    "0014_team_protection": _m014_team_protection,
    "0015_label_source": _m015_label_source,
    "0016_session_index_derived": _m016_session_index_derived,
}
