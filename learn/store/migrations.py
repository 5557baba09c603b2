"""The numbered migration steps: one definition per step, for both engines.

Each step is one function writing its DDL once; where SQLite and PostgreSQL
differ it names the difference through the Dialect (learn.store.dialects: key,
float, blob, flag and integer types, WITHOUT ROWID), and the three places they
truly differ are plain `if d.postgres` branches: pgvector's extension (0001),
the per-machine tables PostgreSQL never holds (0007, 0009, 0016, 0017, 0022), and the team
view's person key and members (0014, 0020). tests/test_store_schema_snapshot.py holds the schema
both engines had before the steps were merged from two files into this one.

Step NAMES and their order are fixed: a database records the names it applied in
`_migrations`. Append only; a name says what the step does.

Why hand-written and not SQLAlchemy Core + Alembic (weighed for issue 23):
- Lines: the steps are ~300 lines of DDL text either way; Alembic adds an env.py,
  a versions folder and a script per step, and its `op.create_table(...)` calls
  are longer than the DDL they stand for. The connection layer would not shrink:
  apsw + sqlite-vec is not a SQLAlchemy driver, so a custom dialect or a second
  driver (pysqlite, which cannot load extensions on every Python build) would be
  needed.
- Nothing written twice: eight Dialect fields (key, float, blob, flag, integer
  types, WITHOUT ROWID) do that here.
- `learn --help` fast: measured with python -X importtime on the 2-core box,
  `import sqlalchemy` (2.1.9) costs ~148 ms and `alembic.op` ~280-330 ms, against
  ~17 ms for all of learn.cli and ~37 ms for learn.store.core with apsw. The store
  is opened by nearly every command, so SQLAlchemy could not stay lazy where it
  matters: every `learn sessions` / `learn show` would pay ~4x its store import.
- Behaviour: existing databases record step names in `_migrations`, not an
  Alembic revision table; a move would need a bridge migration on both engines.
So the result decides for the small hand-written layer.
"""

from __future__ import annotations

from collections.abc import Callable

from learn.store.apply_journal_ddl import create_table as apply_writes_table
from learn.store.apply_journal_ddl import made_folders as apply_writes_made_folders
from learn.store.apply_journal_ddl import pending_state as apply_writes_pending_state
from learn.store.connection import Connection
from learn.store.dialects import Dialect
from learn.store.layout import StoreSchema
from learn.store.project_keys import rekey as project_rekey
from learn.store.proposals_ddl import carry_runs as proposals_from_runs
from learn.store.proposals_ddl import create_tables as proposal_tables
from learn.store.session_index_ddl import create_table as session_index_table
from learn.store.session_index_ddl import derived_only as session_index_derived_only
from learn.store.session_index_ddl import head_reader as session_index_head_reader
from learn.store.session_index_ddl import project_facts as session_index_project_facts
from learn.store.session_index_ddl import turn_keys as session_index_turn_keys

Migration = Callable[[Connection, StoreSchema, Dialect], None]


def _m001_feedback(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # The ledger of mined feedback. dedup_key is content-derived (session, kind,
    # text), so re-scanning a file inserts nothing new. On PostgreSQL pgvector
    # must be available; creating it needs the right to (a superuser, or a
    # database owner on PostgreSQL 13+ for trusted extensions). A team's admin
    # can create it once; IF NOT EXISTS then asks for nothing.
    extension = "CREATE EXTENSION IF NOT EXISTS vector;" if d.postgres else ""
    conn.execute(
        f"""{extension}
        CREATE TABLE files (
            path TEXT PRIMARY KEY,
            mtime {d.real} NOT NULL
        );
        CREATE TABLE feedback_events (
            id {d.serial},
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
            confidence {d.real} NOT NULL,
            rationale TEXT NOT NULL DEFAULT '',
            canonical_key TEXT,
            fidelity TEXT NOT NULL CHECK (fidelity IN ('full', 'summary')),
            judged_at TEXT NOT NULL,
            PRIMARY KEY (dedup_key, role, prompt_version)
        );
        -- One row per judged event that carries vector evidence; its id is the rowid
        -- of the vector in the vector table of its embedding space.
        CREATE TABLE verdict_evidence (
            id {d.rowid},
            dedup_key TEXT NOT NULL REFERENCES feedback_events(dedup_key) ON DELETE CASCADE,
            role TEXT NOT NULL,
            prompt_version INTEGER NOT NULL,
            space TEXT NOT NULL,
            canonical_key TEXT NOT NULL,
            evidence_text TEXT NOT NULL,
            UNIQUE (dedup_key, role, prompt_version)
        );
        CREATE INDEX verdict_evidence_by_canonical ON verdict_evidence(canonical_key);
        -- Vector tables have a fixed dimension, and embedders differ (384 vs 1024), so
        -- there is one per (purpose, embedding space), created on first use
        -- (learn.store.vectors, learn.store.pg_vectors).
        CREATE TABLE vector_tables (
            purpose TEXT NOT NULL,
            space TEXT NOT NULL,
            dim INTEGER NOT NULL CHECK (dim > 0),
            table_name TEXT NOT NULL UNIQUE,
            PRIMARY KEY (purpose, space)
        );
        """
    )


def _m002_learn_tables(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    conn.execute(
        f"""
        CREATE TABLE runs (
            id {d.serial},
            started_at TEXT NOT NULL,
            finished_at TEXT,
            args_json TEXT NOT NULL DEFAULT '{{}}',
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
            id {d.serial},
            session_id TEXT NOT NULL,
            kind TEXT NOT NULL,
            source TEXT NOT NULL,
            text TEXT NOT NULL,
            text_hash TEXT NOT NULL,
            project TEXT,
            occurred_at TEXT,
            payload_json TEXT,
            label TEXT,
            label_run {d.bigint} REFERENCES runs(id) ON DELETE SET NULL,
            UNIQUE (session_id, kind, source, text_hash)
        );
        CREATE INDEX candidates_by_label ON candidates(kind, label);
        CREATE INDEX candidates_by_hash ON candidates(kind, text_hash);
        CREATE TABLE labels (
            id {d.serial},
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
            id {d.serial},
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
            vector {d.blob} NOT NULL,
            PRIMARY KEY (space, text_hash)
        ){d.without_rowid};
        """
    )


def _m003_event_ingest_index(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # recent() and the digest window read newest-first by ingestion; without this
    # they sort the whole ledger.
    conn.execute("CREATE INDEX feedback_events_by_ingested ON feedback_events(ingested_at)")


def _m004_scope_examples_full_result(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # learn's Verdict carries a scope (user | project) the seed's verdict row lacks;
    # a run keeps its full RunResult (quotes' projects, rationales) next to the
    # surface JSON so `learn digest` rebuilds it exactly; and a label is found by
    # any of the examples it was given, not one vector per label.
    conn.execute(
        f"""
        ALTER TABLE {s.verdict_table} ADD COLUMN scope TEXT;
        ALTER TABLE runs ADD COLUMN result_full_json TEXT;
        CREATE TABLE label_examples (
            id {d.serial},
            label_id {d.bigint} NOT NULL REFERENCES labels(id) ON DELETE CASCADE,
            space TEXT NOT NULL,
            vector_hash TEXT NOT NULL,
            UNIQUE (label_id, space, vector_hash)
        );
        """
    )


def _m005_team_shared_candidates(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # What `learn share` sends to a team store, and nothing more (see learn.store.team):
    # the quote (verified, redacted), its kind and label, a hash of the session id,
    # when, the project's remote URL and the author id the person chose. text_hash
    # is the quote's own hash (it adds nothing the quote does not say).
    conn.execute(
        f"""
        CREATE TABLE team_candidates (
            id {d.serial},
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


def _m006_team_show_name(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Whether the author chose to have their id shown next to team proposals
    # ([team] show_name); hidden unless they said so.
    conn.execute(
        f"ALTER TABLE team_candidates ADD COLUMN show_name {d.boolean} NOT NULL DEFAULT {d.false}"
    )


def _m007_session_index(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Per transcript file, what reading it gave (learn.store.session_index), so a
    # warm run opens no unchanged file. Per machine (paths, inodes): in the local
    # SQLite store only, never in a shared PostgreSQL database.
    if not d.postgres:
        session_index_table(conn)


def _m008_name_cache(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # The label the model gave an exact candidate text under a naming prompt
    # version (learn.store.label_tables.LabelTables.named_labels): a warm run
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


def _m009_mine_batches(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Each submitted Message Batch item (learn.store.mine_batches): which session
    # and chunk it mines, so another process can collect a batch this one
    # submitted. This machine's (it names transcript files by cache key): local
    # SQLite only, beside the session index.
    if d.postgres:
        return
    conn.execute(
        """
        CREATE TABLE mine_batches (
            batch_id TEXT NOT NULL,
            custom_id TEXT NOT NULL,
            session_id TEXT NOT NULL,
            cache_key TEXT NOT NULL,
            chunk INTEGER NOT NULL,
            submitted_at TEXT NOT NULL,
            collected INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (batch_id, custom_id)
        );
        CREATE INDEX mine_batches_pending ON mine_batches(collected, batch_id);
        """
    )


def _m011_proposal_states(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Proposals until the person decides, per project, and what apply wrote
    # (learn.store.proposals): a second run must not lose what the first proposed.
    proposal_tables(conn, d)


def _m014_team_protection(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # A fix is shared as the commands that ran (evidence), never the model's words;
    # team runs read shared rows through team_shared, which names a person only
    # where they chose to be named.
    conn.execute("ALTER TABLE team_candidates ADD COLUMN evidence TEXT")
    if not d.postgres:
        # A SQLite team store has no roles: `person` is the author id itself.
        conn.execute(
            """
        CREATE VIEW team_shared AS
            SELECT id, author AS person, CASE WHEN show_name THEN author END AS name,
                   session_hash, kind, label, quote, evidence, text_hash, occurred_at,
                   project_remote, show_name
            FROM team_candidates
            """
        )
        return
    # On PostgreSQL a person's identity is their role: a shared row's author is
    # current_user, and row-level security (learn.store.pg_team, set up by `learn
    # team init`) lets each role write only rows whose author it is. The view gives
    # each person an opaque key (the role hashed with a salt only the schema owner
    # can read, so people are counted without being named).
    conn.execute(
        """
        ALTER TABLE team_candidates ALTER COLUMN author SET DEFAULT current_user;
        CREATE TABLE team_settings (
            id INTEGER PRIMARY KEY CHECK (id = 1),
            salt TEXT NOT NULL
        );
        INSERT INTO team_settings (id, salt) VALUES (1, gen_random_uuid()::text);
        CREATE VIEW team_shared AS
            SELECT c.id, md5(s.salt || c.author) AS person,
                   CASE WHEN c.show_name THEN c.author END AS name,
                   c.session_hash, c.kind, c.label, c.quote, c.evidence, c.text_hash,
                   c.occurred_at, c.project_remote, c.show_name
            FROM team_candidates c CROSS JOIN team_settings s;
        """
    )


def _m015_label_source(conn: Connection, s: StoreSchema, d: Dialect) -> None:
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


def _m016_session_index_derived(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # The session index keeps derived, redacted data only: the raw-record
    # pickles of 0007's `prefix` column go, their pages zeroed (local SQLite only).
    if not d.postgres:
        session_index_derived_only(conn)


def _m017_apply_writes(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Every file `learn apply` wrote, with its backup and hashes, so `learn apply
    # --undo` puts back exactly what one apply changed (learn.store.apply_journal).
    # This machine's files: local SQLite only.
    apply_writes_table(conn, d)


def _m018_project_identity(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # A project is its repository (learn.projects): every stored project key is
    # decided again, and rows of one repository's worktrees, sub-folders and
    # spellings become one without losing a decision (learn.store.project_keys).
    # This machine's index learns what transcripts record of their repository,
    # and remembers which repository each folder belonged to.
    project_rekey(conn)
    if not d.postgres:
        session_index_project_facts(conn)


def _m019_shown_per_project(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # What was shown is shown in a project: keyed by the proposal key alone, a
    # point shown (and applied) in `billing` held two new denials back in
    # `dashboard`, where it was never shown. Rows from before carry the projects
    # the proposal book has the key pending or decided in; a row the book does
    # not know keeps the project '' (shown somewhere: held back everywhere, as
    # before), until the key is shown again in a project.
    conn.execute(
        f"""
        CREATE TABLE shown_proposals (
            project TEXT NOT NULL,
            key TEXT NOT NULL,
            first_shown_at TEXT NOT NULL,
            last_shown_at TEXT NOT NULL,
            last_occurrence TEXT,
            covered_when_shown INTEGER NOT NULL DEFAULT 0,
            shown_count INTEGER NOT NULL DEFAULT 1,
            text TEXT NOT NULL DEFAULT '',
            verdict_json TEXT,
            PRIMARY KEY (project, key)
        ){d.without_rowid};
        INSERT INTO shown_proposals (project, key, first_shown_at, last_shown_at,
                                     last_occurrence, covered_when_shown, shown_count, text,
                                     verdict_json)
            SELECT COALESCE(b.project, ''), p.key, p.first_shown_at, p.last_shown_at,
                   p.last_occurrence, p.covered_when_shown, p.shown_count, p.text, p.verdict_json
            FROM proposals p
            LEFT JOIN (SELECT DISTINCT project, key FROM proposal_states) b ON b.key = p.key;
        DROP TABLE proposals;
        """
    )


def _m020_team_members(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Who is on a PostgreSQL team (learn.store.pg_team): each member's login role,
    # an opaque name that says nothing of the person, beside the name the admin
    # gave them. Only the schema owner reads it; a member reads their own row
    # through team_me. A shared row's author is the session's login role
    # (session_user: SET ROLE does not change it), and team_shared counts only
    # rows of members: a row under the admin's role, a superuser's or a removed
    # member's counts as no one. A name is shown only where its person chose to
    # be named. A SQLite team store has no roles and no members.
    if not d.postgres:
        return
    conn.execute(
        """
        CREATE TABLE team_members (
            role TEXT PRIMARY KEY,
            name TEXT NOT NULL UNIQUE,
            added_at TEXT NOT NULL
        );
        ALTER TABLE team_candidates ALTER COLUMN author SET DEFAULT session_user;
        CREATE OR REPLACE VIEW team_shared AS
            SELECT c.id, md5(s.salt || c.author) AS person,
                   CASE WHEN c.show_name THEN m.name END AS name,
                   c.session_hash, c.kind, c.label, c.quote, c.evidence, c.text_hash,
                   c.occurred_at, c.project_remote, c.show_name
            FROM team_candidates c JOIN team_members m ON m.role = c.author
                 CROSS JOIN team_settings s;
        CREATE VIEW team_me AS
            SELECT role, name FROM team_members WHERE role = session_user;
        """
    )
    # A team set up by an earlier learn grants SELECT on every new table to its
    # team role (default privileges): not on this one, before `learn team init`
    # has even run again.
    conn.execute(
        """
        DO $do$
        DECLARE grantee text;
        BEGIN
            FOR grantee IN SELECT DISTINCT a.grantee::regrole::text
                FROM pg_class c, aclexplode(c.relacl) a
                WHERE c.oid = 'team_members'::regclass AND a.grantee <> c.relowner
                AND a.grantee <> 0 LOOP
                EXECUTE format('REVOKE ALL ON team_members FROM %s', grantee);
            END LOOP;
            REVOKE ALL ON team_members FROM PUBLIC;
        END
        $do$;
        """
    )


def _m022_session_index_keys(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # The session index keeps each turn's keys for judging sessions together (local SQLite only).
    if not d.postgres:
        session_index_turn_keys(conn)


def _m023_apply_writes_made_folders(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # The folders each write made (`.claude/`, `.cursor/rules/`): an undo that removed the
    # file left them behind, empty (learn.store.apply_journal). Local SQLite only.
    apply_writes_made_folders(conn, d)


def _m024_project_identity_wsl(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # On WSL and Windows a drive's folder is one project however it is spelled
    # (`/mnt/c/…` and `C:\\…`, learn.projects.flavour): the keys are decided again, as in
    # 0018, and rows of the two spellings become one (learn.store.project_keys).
    project_rekey(conn)


def _m025_apply_writes_state(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Each write journaled "pending" before its rename and "done" after: a `learn apply`
    # killed in between left a write `--undo` did not know (learn.store.apply_journal).
    # Local SQLite only.
    apply_writes_pending_state(conn, d)


def _m026_proposal_states_every_run(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # 0011 once filled the proposal book from the newest stored run alone. A daily `learn
    # run` mostly proposes nothing new (its points were shown before), so the upgrade
    # lost every pending proposal, and the next run held them back as shown before: they
    # never came back. Each run keeps its full result (runs.result_full_json, 0004), so
    # the runs that finished before 0011 was applied give them back now, pending unless
    # decided (learn.store.proposals_ddl.carry_runs: what the book has stays as it is);
    # their project keys are then decided as 0018 and 0024 do. A store 0011 filled from
    # every run finds nothing to add.
    row = conn.execute("SELECT applied_at FROM _migrations "
                       "WHERE name = '0011_proposal_states'").fetchone()
    if row is not None and proposals_from_runs(conn, before=str(row[0])):
        project_rekey(conn)


def _m027_answer_cache(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # A model answer by the exact request it answered (learn.store.answer_table): a
    # coverage answer received before a kill is not paid for again. This machine's:
    # local SQLite only, beside the session index.
    if d.postgres:
        return
    conn.execute(
        """
        CREATE TABLE answer_cache (
            request_key TEXT PRIMARY KEY,
            step TEXT NOT NULL,
            rows_json TEXT NOT NULL,
            created_at TEXT NOT NULL
        )
        """
    )


def _m028_session_heads_reader(conn: Connection, s: StoreSchema, d: Dialect) -> None:
    # Each stored head says which reader stored it: a head an older reader read wrong is
    # read again once (learn.index.indexed.CachedHeads). Local SQLite only.
    if not d.postgres:
        session_index_head_reader(conn)


MIGRATIONS: tuple[tuple[str, Migration], ...] = (
    ("0001_feedback", _m001_feedback),
    ("0002_learn_tables", _m002_learn_tables),
    ("0003_event_ingest_index", _m003_event_ingest_index),
    ("0004_scope_examples_full_result", _m004_scope_examples_full_result),
    ("0005_team_shared_candidates", _m005_team_shared_candidates),
    ("0006_team_show_name", _m006_team_show_name),
    ("0007_session_index", _m007_session_index),
    ("0008_name_cache", _m008_name_cache),
    ("0009_mine_batches", _m009_mine_batches),
    ("0011_proposal_states", _m011_proposal_states),
    ("0014_team_protection", _m014_team_protection),
    ("0015_label_source", _m015_label_source),
    ("0016_session_index_derived", _m016_session_index_derived),
    ("0017_apply_writes", _m017_apply_writes),
    ("0018_project_identity", _m018_project_identity),
    ("0019_shown_per_project", _m019_shown_per_project),
    ("0020_team_members", _m020_team_members),
    ("0022_session_index_keys", _m022_session_index_keys),
    ("0023_apply_writes_made_folders", _m023_apply_writes_made_folders),
    ("0024_project_identity_wsl", _m024_project_identity_wsl),
    ("0025_apply_writes_state", _m025_apply_writes_state),
    ("0026_proposal_states_every_run", _m026_proposal_states_every_run),
    ("0027_answer_cache", _m027_answer_cache),
    ("0028_session_heads_reader", _m028_session_heads_reader),
)
STEP_NAMES: tuple[str, ...] = tuple(name for name, _ in MIGRATIONS)
SCHEMA_VERSION = len(STEP_NAMES)
