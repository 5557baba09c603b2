"""Privacy audit: what learn persists or sends, checked against docs/privacy.md.

Each test reproduces a leak found by an adversarial read of the team run, the
share rows and the files learn leaves behind, on real files in temp dirs.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from learn.config import Config
from learn.models.base import ModelError, ModelRequest, ModelResponse
from learn.reduce.team import run_team
from learn.store import open_store
from learn.store.team import SharedCandidate, session_hash

REPO = "github.com/acme/webshop"
# A proxy's key: no shape rule knows it, only its value does (learn.held_secrets).
PROXY_KEY = "proxy-7f3a9c2e1b-held-by-learn"


class EchoingEndpoint:
    """An endpoint that refuses every call and echoes the key it was sent."""

    name = "anthropic"

    def call(self, request: ModelRequest) -> ModelResponse:
        raise ModelError(f"401 from proxy: invalid x-api-key {PROXY_KEY}")


def _shared(author: str, session: str, quote: str) -> SharedCandidate:
    return SharedCandidate(author=author, session_hash=session_hash(session, author),
                           kind="directive", label=None, quote=quote,
                           occurred_at="2026-11-02T09:00:00+00:00", project_remote=REPO)


def _every_text(db: Path) -> str:
    """Every value of every table of a SQLite file, and its -wal, as one text."""
    conn = sqlite3.connect(db)
    try:
        tables = [r[0] for r in conn.execute(
            "SELECT name FROM sqlite_master WHERE type = 'table'")]
        parts = [repr(row) for t in tables for row in conn.execute(f'SELECT * FROM "{t}"')]
    finally:
        conn.close()
    raw = b"".join(p.read_bytes() for p in db.parent.glob(db.name + "*"))
    return "\n".join(parts) + raw.decode("utf-8", "replace")


def test_a_team_run_stores_no_held_key_an_endpoint_echoed_in_its_failures(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("ANTHROPIC_API_KEY", PROXY_KEY)
    team_db = tmp_path / "team.db"
    for author in ("ana", "bo"):
        with open_store(team_db) as store:
            store.team.share([_shared(author, f"{author}-{i}",
                                      "run the migrations against staging, never prod")
                              for i in range(2)])
    config = Config()
    config.team.database_url = str(team_db)
    result = run_team(tmp_path, REPO, config, backend=EchoingEndpoint(), embedder="tfidf")
    assert result.failures, "the endpoint's refusal is a failure of the run"
    assert not any(PROXY_KEY in f for f in result.failures)
    assert PROXY_KEY not in _every_text(team_db)


def test_the_checks_hits_log_keeps_a_flags_name_not_the_value_typed_after_it(
    tmp_path: Path,
) -> None:
    from learn.guard.hook import decide, note
    from learn.guard.rules import CheckRule, RuleSet, hits_path

    rule = CheckRule(id="no-password-flag", program="mysql",
                     reason="Never put the password on the command line.",
                     flags=("--password",), mode="record")
    rules = tmp_path / "r.json"
    rules.write_text(RuleSet("/w/shop", (rule,)).dumps())
    event = {"session_id": "s1", "cwd": "/w/shop", "hook_event_name": "PreToolUse",
             "tool_name": "Bash",
             "tool_input": {"command": "mysql --password=Tr0ub4dor-horse-77 shop"}}
    hits, _ = decide(event, str(rules))
    note(str(rules), event, hits, "claude")
    logged = Path(hits_path(rules)).read_text()
    assert '"words": "mysql --password"' in logged
    assert "Tr0ub4dor" not in logged
