"""`learn stats`: totals from a real store in a temp data dir, read without writing."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from click.testing import CliRunner

from learn.cli import cli
from learn.paths import data_dir
from learn.report.stats import summarize
from learn.store import open_store
from learn.store.runs import default_store_path

REPO = Path(__file__).resolve().parents[1]


def run(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(cli, ["stats", *args], catch_exceptions=False)
    return result.exit_code, result.output


def stats_json(*args: str) -> dict[str, Any]:
    code, out = run("--json", *args)
    assert code == 0, out
    data = json.loads(out)
    assert isinstance(data, dict)
    return data


def usage(calls: int, tin: int, tout: int, cost: float) -> dict[str, Any]:
    return {"sessions_seen": 3, "model_calls": calls, "input_tokens": tin,
            "output_tokens": tout, "cost_usd": cost}


@pytest.fixture
def filled_store() -> Path:
    with open_store() as ls:
        t = ls
        r1 = t.runs.start_run({}, started_at="2026-11-01T10:00:00+00:00")
        t.runs.finish_run(r1, usage=usage(10, 1000, 200, 0.01), result={"proposals": []},
                     finished_at="2026-11-01T10:05:00+00:00")
        r2 = t.runs.start_run({}, started_at="2026-11-20T09:00:00+00:00")
        t.runs.finish_run(r2, usage=usage(4, 500, 50, 0.0025), result={"proposals": []},
                     finished_at="2026-11-20T09:01:00+00:00")
        t.shown.mark_shown("directive:use-bun", last_occurrence=None)
        t.shown.mark_shown("directive:use-bun", last_occurrence=None)  # shown again next run
        t.shown.mark_shown("directive:no-mocks", last_occurrence=None)
        t.shown.mark_shown("fix:pip-install-e", last_occurrence=None)
        t.shown.mark_shown("request:release-pr", last_occurrence=None)
        t.shown.record_decision("directive:use-bun", "accepted", at="2026-11-02T00:00:00+00:00")
        # Dismissed, then accepted after all: counts once, as the latest decision.
        t.shown.record_decision("directive:no-mocks", "dismissed", at="2026-11-02T00:00:00+00:00")
        t.shown.record_decision("directive:no-mocks", "accepted", at="2026-11-03T00:00:00+00:00")
        t.shown.record_decision("fix:pip-install-e", "edited", at="2026-11-03T00:00:00+00:00")
        t.shown.record_decision("request:release-pr", "dismissed", at="2026-11-03T00:00:00+00:00")
    return default_store_path()


def test_no_store_says_no_runs_yet_and_creates_nothing(tmp_path: Path) -> None:
    code, out = run()
    assert code == 0
    assert out.startswith("no runs yet")
    assert not default_store_path().exists()
    assert not data_dir().exists()  # not even the directory
    data = stats_json()
    assert data["has_runs"] is False and data["runs"] == 0 and data["last_run_at"] is None
    assert data["decisions"] == {"accepted": 0, "edited": 0, "dismissed": 0}
    assert not data_dir().exists()


def test_totals_from_a_store(filled_store: Path) -> None:
    data = stats_json()
    assert data["runs"] == 2 and data["finished_runs"] == 2
    assert data["model_calls"] == 14
    assert data["input_tokens"] == 1500 and data["output_tokens"] == 250
    assert data["cost_usd"] == pytest.approx(0.0125)
    assert data["last_run_at"] == "2026-11-20T09:01:00+00:00"
    assert data["proposals_by_kind"] == {"directive": 2, "fix": 1, "request": 1}
    assert data["times_shown"] == 5
    assert data["decisions"] == {"accepted": 2, "edited": 1, "dismissed": 1}
    assert data["decisions_by_kind"]["directive"] == {"accepted": 2, "edited": 0, "dismissed": 0}
    assert data["decisions_by_kind"]["request"]["dismissed"] == 1

    code, out = run()
    assert code == 0
    assert "runs: 2 (last 2026-11-20 09:01 UTC)" in out
    assert "model calls: 14; tokens: 1,500 in, 250 out; cost: $0.0125" in out
    assert "proposals shown: 4 (directive 2, fix 1, request 1), 5 showings" in out
    assert "decisions: 2 applied, 1 edited, 1 declined" in out


def test_stats_does_not_write_to_the_store(filled_store: Path) -> None:
    # Checkpoint the WAL so the main file holds everything, then compare bytes.
    with open_store() as ls:
        ls.ledger.sql("PRAGMA wal_checkpoint(TRUNCATE)")
    before = filled_store.read_bytes()
    assert stats_json()["runs"] == 2
    assert filled_store.read_bytes() == before


def test_an_unfinished_run_counts_and_is_named(filled_store: Path) -> None:
    with open_store() as ls:
        ls.runs.start_run({}, started_at="2026-11-29T08:00:00+00:00")
    data = stats_json()
    assert data["runs"] == 3 and data["finished_runs"] == 2
    assert data["last_run_at"] == "2026-11-29T08:00:00+00:00"
    assert "1 unfinished" in run()[1]


def test_rule_file_sizes_for_user_and_project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    home = Path.home()
    (home / ".claude").mkdir()
    (home / ".claude" / "CLAUDE.md").write_text("- use bun\n- no mocks\n")  # 2 lines, 21 bytes
    (home / ".codex").mkdir()
    (home / ".codex" / "AGENTS.md").write_text("x" * 400)  # no trailing newline: still a line
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "CLAUDE.md").write_text("# Rules\n\n" + "- rule\n" * 10)
    monkeypatch.chdir(project)
    files = {Path(f["path"]).relative_to(tmp_path).as_posix(): f for f in stats_json()["rule_files"]}
    assert files["home/.claude/CLAUDE.md"] == {
        "path": str(home / ".claude" / "CLAUDE.md"), "scope": "user", "lines": 2, "bytes": 21,
        "tokens": 5}
    assert files["home/.codex/AGENTS.md"]["lines"] == 1
    assert files["home/.codex/AGENTS.md"]["tokens"] == 100
    assert files["proj/CLAUDE.md"]["scope"] == "project"
    assert files["proj/CLAUDE.md"]["lines"] == 12
    assert len(files) == 3

    out = run()[1]
    assert "~/.claude/CLAUDE.md" in out and "2 lines" in out
    assert "~100 tokens" in out
    # --project measures another project than the current directory.
    other = tmp_path / "other"
    other.mkdir()
    (other / "AGENTS.md").write_text("- one\n")
    names = {Path(f["path"]).name for f in stats_json("--project", str(other))["rule_files"]}
    assert names == {"CLAUDE.md", "AGENTS.md"}
    paths = {f["path"] for f in stats_json("--project", str(other))["rule_files"]}
    assert str(other / "AGENTS.md") in paths and str(project / "CLAUDE.md") not in paths


def test_a_corrupt_store_is_an_error_not_a_crash() -> None:
    path = default_store_path()
    path.parent.mkdir(parents=True)
    path.write_bytes(b"this is not a database" * 100)
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 1
    assert result.output.startswith(f"learn stats: {path}: file is not a database; fix: move ")
    assert result.output.count("\n") == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)


def test_summarize_tolerates_bad_usage_rows() -> None:
    runs: list[dict[str, Any]] = [
        {"id": 1, "started_at": "a", "finished_at": "b", "usage_json": "not json"},
        {"id": 2, "started_at": "c", "finished_at": None, "usage_json": None},
        {"id": 3, "started_at": "d", "finished_at": "e",
         "usage_json": json.dumps({"model_calls": "7", "cost_usd": None})},
    ]
    s = summarize(runs, [{"key": "oddkey", "shown_count": 1}], [])
    assert s.runs == 3 and s.finished_runs == 2
    assert s.model_calls == 7 and s.cost_usd == 0.0
    assert s.last_run_at == "e"
    assert s.proposals_by_kind == {"other": 1}


def test_the_command_module_imports_nothing_heavy() -> None:
    code = ("import sys, learn.commands.stats, learn.commands.doctor; "
            "print(sorted(m for m in ('apsw', 'numpy', 'onnxruntime', 'sklearn', 'anthropic') "
            "if m in sys.modules))")
    env = {**os.environ, "PYTHONPATH": str(REPO)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, timeout=60).stdout
    assert out.strip() == "[]"


def test_a_file_with_no_learn_schema_is_not_upgraded_by_stats() -> None:
    # No schema marker: not a store stats may migrate (one an older learn wrote is:
    # test_a_store_an_older_learn_wrote_is_migrated_and_read_by_stats).
    import apsw

    path = default_store_path()
    path.parent.mkdir(parents=True)
    conn = apsw.Connection(str(path))
    conn.execute("CREATE TABLE t (x)")
    conn.close()
    before = path.read_bytes()
    result = CliRunner().invoke(cli, ["stats"])
    assert result.exit_code == 1
    assert result.output.startswith("learn stats: ") and result.output.count("\n") == 1
    assert "learn run` migrates it" in result.output
    assert path.read_bytes() == before


def test_a_store_an_older_learn_wrote_is_migrated_and_read_by_stats() -> None:
    # The first command after an upgrade: read-only, stats exited 1 and said "the next
    # `learn run` migrates it" (a run that may re-mine every session); digest, report and
    # apply migrate it, and so does stats now.
    from learn.store.core import open_connection
    from learn.store.schema import STEP_NAMES, StoreSchema, applied_migrations, migrate

    path = default_store_path()
    path.parent.mkdir(parents=True)
    conn, _, _ = open_connection(path)
    migrate(conn, StoreSchema(), upto=len(STEP_NAMES) - 2)
    conn.execute("INSERT INTO runs (started_at, finished_at, args_json) "
                 "VALUES ('2026-11-30T09:00:00+00:00', '2026-11-30T09:05:00+00:00', '{}')")
    conn.close()
    data = stats_json()
    assert (data["runs"], data["finished_runs"]) == (1, 1)
    conn, _, _ = open_connection(path)
    assert applied_migrations(conn) == sorted(STEP_NAMES)
    conn.close()


@pytest.mark.parametrize("what", ["folder", "fifo"])
def test_a_store_that_is_not_a_file_is_reported_not_no_runs_yet(what: str) -> None:
    # Only nothing at the path is "no runs yet": a learn.db that is a folder (or a FIFO)
    # is a store learn cannot read, and the person must hear it.
    store = default_store_path()
    store.parent.mkdir(parents=True)
    if what == "folder":
        store.mkdir()
    else:
        os.mkfifo(store)
    code, out = run()
    assert code != 0
    assert not out.startswith("no runs yet")
    assert str(store) in out
    assert "Traceback" not in out
