"""Migration 0018 on a store made by learn before it: the project keys become the
project's identity, and no pending proposal, decline or outcome is lost.

`fixtures/stores/main-4a342da.db` was written by learn at main 4a342da running
over the home of `fixtures/stores/main_world.py` (`make_main_store.py` says how):
it keeps a repository's sibling and desktop worktrees as three projects, a
Windows vault glued under the run's cwd, a proposal declined in the sibling
worktree and pending in the repository, and one applied from the repository.
The home is rebuilt at the same path before a copy of that store is opened, so
the migration reads the disk as a user's would.

The same rows are then written into PostgreSQL, migrated there only up to 0016,
and migrated on: the step is one definition for both engines.
"""

from __future__ import annotations

import fcntl
import json
import shutil
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from _learn_cli import learn_env, learn_json

from learn.projects import path_key
from learn.store.migrations import MIGRATIONS

sys.path.insert(0, str(Path(__file__).resolve().parent / "fixtures" / "stores"))
import main_world as world

REPO = Path(__file__).resolve().parents[1]
FIXTURE = REPO / "tests" / "fixtures" / "stores" / "main-4a342da.db"
VAULT = path_key(world.VAULT_UPPER)
KEYS = {
    "cents": "directive:keep-order-totals-integer-cents",  # CENTS and PULL, one group then
    "ticket": "directive:label-every-migration-file-ticket",
    "staging": "directive:use-staging-database-every-test",
    "inbox": "directive:write-each-daily-note-into",
}
pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


@pytest.fixture()
def made_by_main(tmp_path: Path) -> Iterator[Path]:
    """The home rebuilt at its fixed path (one test at a time), and a copy of the store."""
    world.ROOT.parent.mkdir(parents=True, exist_ok=True)
    with open(str(world.ROOT) + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        try:
            world.build()
            data = tmp_path / "data"
            data.mkdir()
            shutil.copy(FIXTURE, data / "learn.db")
            yield data / "learn.db"
        finally:
            shutil.rmtree(world.ROOT, ignore_errors=True)


def _rows(db: Path | str) -> tuple[list[dict[str, Any]], list[dict[str, Any]], set[str]]:
    from learn.store import open_store

    with open_store(db) as store:
        states = store.ledger.sql("SELECT * FROM proposal_states ORDER BY key, project")
        applied = store.ledger.sql("SELECT * FROM applied_rules")
        scanned = {str(r["project"]) for r in store.ledger.sql(
            "SELECT DISTINCT project FROM candidates")}
    return states, applied, scanned


def _check(states: list[dict[str, Any]], applied: list[dict[str, Any]], scanned: set[str]) -> None:
    shop = str(world.SHOP)
    by_key = {r["key"]: r for r in states}
    # One row per (repository, proposal): the worktrees' and spellings' rows merged.
    assert sorted((r["project"], r["key"]) for r in states) == sorted(
        [(shop, KEYS["cents"]), (shop, KEYS["ticket"]), (shop, KEYS["staging"]),
         (VAULT, KEYS["inbox"])])
    assert by_key[KEYS["cents"]]["state"] == "pending" and by_key[KEYS["cents"]]["sessions"] == 5
    assert by_key[KEYS["inbox"]]["state"] == "pending" and by_key[KEYS["inbox"]]["sessions"] == 2
    # Declined in the worktree, pending in the repository: the person's decision stands.
    staging = by_key[KEYS["staging"]]
    assert (staging["state"], staging["decided_sessions"]) == ("declined", 2)
    assert by_key[KEYS["ticket"]]["state"] == "applied"
    # The write stays on record (the outcome's baseline), under the repository.
    assert [(a["project"], a["key"], a["target_file"]) for a in applied] == [
        (shop, KEYS["ticket"], str(world.SHOP / "CLAUDE.md"))]
    assert scanned == {shop, VAULT}
    # The quotes inside each proposal name the project too.
    quoted = {q["project"] for r in states for q in json.loads(r["proposal_json"])["quotes"]}
    assert quoted == {shop, VAULT}


def test_a_store_made_by_main_migrates_to_one_project_per_repository(made_by_main: Path) -> None:
    _check(*_rows(made_by_main))


def test_after_the_migration_nothing_decided_comes_back(made_by_main: Path, tmp_path: Path) -> None:
    data = made_by_main.parent
    env = learn_env(HOME=str(world.HOME), LEARN_DATA_DIR=str(data),
                    LEARN_CACHE_DIR=str(tmp_path / "cache"),
                    LEARN_CONFIG_DIR=str(tmp_path / "config"))

    def learn(*args: str, cwd: Path) -> dict[str, Any]:
        return learn_json(*args, cwd=cwd, env=env)

    def pending(data: dict[str, Any]) -> set[str]:
        return {f"{p['kind']}:{p['label']}" for p in data["proposals"]}

    # From the sibling worktree, the desktop one and an unrelated folder: the pending one.
    assert pending(learn("digest", "--json", cwd=world.FIX)) == {KEYS["cents"]}
    assert pending(learn("digest", "--json", cwd=world.DESKTOP)) == {KEYS["cents"]}
    assert pending(learn("digest", "--json", "--project", world.VAULT_UPPER,
                         cwd=tmp_path / "elsewhere")) == {KEYS["inbox"]}
    # A run over the same sessions: the decline holds (2 sessions, back at 4), the
    # applied rule is measured, nothing is proposed twice.
    run = learn("run", "--offline", "--all-projects", "--since", "2026-01-01",
                "--embedder", "tfidf", "--json", "--quiet", cwd=world.HOME)
    shown = pending(run)
    assert KEYS["staging"] not in shown
    assert KEYS["ticket"] in {o["key"] for o in run["outcomes"]}
    everything = learn("digest", "--json", "--all", "--project", str(world.SHOP),
                       cwd=tmp_path / "elsewhere")
    assert pending(everything) == {KEYS["cents"], KEYS["ticket"], KEYS["staging"]}


def test_the_same_rows_migrate_on_postgresql(made_by_main: Path, pg_url: str) -> None:
    """Main's rows (read from its SQLite store) in a PostgreSQL store migrated to 0016."""
    import apsw

    from learn.store.postgres import connect
    from learn.store.schema import StoreSchema, migrate

    upto = [n for n, _ in MIGRATIONS].index("0016_session_index_derived") + 1
    pg = connect(pg_url)
    try:
        migrate(pg, StoreSchema(), upto=upto)
        source = apsw.Connection(str(made_by_main), flags=apsw.SQLITE_OPEN_READONLY)
        for table, cols in (
                ("proposal_states", ("project", "key", "canonical_key", "kind", "accepted", "state",
                                     "sessions", "proposal_json", "first_run_id", "last_run_id",
                                     "first_proposed_at", "last_proposed_at", "decided_at",
                                     "decided_sessions", "superseded_by")),
                ("applied_rules", ("project", "key", "canonical_key", "decision", "form",
                                   "rule_text", "target_file", "backup_file", "sessions",
                                   "last_seen", "applied_at")),
                ("candidates", ("session_id", "kind", "source", "text", "text_hash", "project",
                                "occurred_at", "payload_json", "label"))):
            rows = list(source.execute(f"SELECT {', '.join(cols)} FROM {table}"))
            marks = ", ".join(f"${i}" for i in range(1, len(cols) + 1))
            pg.executemany(f"INSERT INTO {table} ({', '.join(cols)}) VALUES ({marks})",
                           [tuple(bool(v) if c == "accepted" else v for c, v in zip(cols, r,
                                                                                   strict=True))
                            for r in rows])
        source.close()
        migrate(pg, StoreSchema())
    finally:
        pg.close()
    _check(*_rows(pg_url))
