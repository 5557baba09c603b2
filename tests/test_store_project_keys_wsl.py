"""Migration 0024 on a WSL store: rows kept under `/mnt/c/…` and under `C:\\…` for one
folder become one project (learn.projects.flavour), no decision lost, and what was
shown follows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import learn.projects.flavour as flavour
from learn.store.core import open_connection
from learn.store.migrations import MIGRATIONS, STEP_NAMES
from learn.store.schema import StoreSchema, migrate

MOUNTED = "/mnt/c/Users/bob/proj"
WINDOWS = r"C:\Users\bob\proj"
KEY = r"c:\users\bob\proj"
POINT = "directive:use-npm"


def _state(conn: object, project: str, state: str, at: str) -> None:
    proposal = {"key": POINT, "quotes": [{"session_id": f"s-{state}", "text": "use npm",
                                          "project": project}], "sessions": 2}
    conn.execute(  # type: ignore[attr-defined]
        "INSERT INTO proposal_states (project, key, kind, accepted, state, sessions, "
        "proposal_json, first_proposed_at, last_proposed_at) "
        "VALUES ($1, $2, 'directive', 1, $3, 2, $4, $5, $5)",
        (project, POINT, state, json.dumps(proposal), at))


def test_a_drive_folders_two_spellings_become_one_project(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flavour, "_WSL", True)
    conn, _, _ = open_connection(tmp_path / "learn.db")
    before = STEP_NAMES.index("0024_project_identity_wsl")
    assert migrate(conn, StoreSchema(), upto=before) == [n for n, _ in MIGRATIONS[:before]]
    conn.execute("BEGIN")
    _state(conn, MOUNTED, "declined", "2026-11-02")  # declined inside WSL
    _state(conn, WINDOWS, "pending", "2026-11-03")  # still pending from the Windows side
    for project, last in ((MOUNTED, "t2"), (WINDOWS, "t1")):
        conn.execute("INSERT INTO shown_proposals (project, key, first_shown_at, last_shown_at) "
                     "VALUES ($1, $2, 't0', $3)", (project, POINT, last))
    conn.execute("INSERT INTO shown_proposals (project, key, first_shown_at, last_shown_at) "
                 "VALUES ($1, 'directive:other', 't0', 't5')", (MOUNTED,))
    conn.execute("COMMIT")

    assert "0024_project_identity_wsl" in migrate(conn, StoreSchema())
    states = conn.query_dicts("SELECT project, key, state, proposal_json FROM proposal_states")
    assert [(r["project"], r["key"], r["state"]) for r in states] == [(KEY, POINT, "declined")]
    quotes = json.loads(states[0]["proposal_json"])["quotes"]
    assert sorted(q["session_id"] for q in quotes) == ["s-declined", "s-pending"]
    shown = conn.query_dicts("SELECT project, key, last_shown_at FROM shown_proposals "
                             "ORDER BY key")
    assert [(r["project"], r["key"], r["last_shown_at"]) for r in shown] == [
        (KEY, "directive:other", "t5"), (KEY, POINT, "t2")]
    conn.close()


def test_off_wsl_a_folder_under_mnt_keeps_its_key(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(flavour, "_WSL", False)
    conn, _, _ = open_connection(tmp_path / "learn.db")
    before = STEP_NAMES.index("0024_project_identity_wsl")
    migrate(conn, StoreSchema(), upto=before)
    conn.execute("BEGIN")
    _state(conn, MOUNTED, "pending", "2026-11-02")
    conn.execute("COMMIT")
    migrate(conn, StoreSchema())
    assert [r["project"] for r in conn.query_dicts("SELECT project FROM proposal_states")] == [
        MOUNTED]
    conn.close()
