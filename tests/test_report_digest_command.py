"""`learn digest`: re-renders the stored run unattended; the run/decision boundary."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from click.testing import CliRunner
from test_report_digest import sample_result

from learn.commands.digest import command
from learn.records.proposal import RunResult
from learn.report import runs


def test_digest_to_stdout_and_files(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    seen: list[datetime | None] = []

    def loader(since: datetime | None, project: str | None, every_state: bool) -> RunResult:
        seen.append(since)
        return sample_result()

    monkeypatch.setattr(runs, "_proposals", loader)
    res = CliRunner().invoke(command, [])
    assert res.exit_code == 0 and res.output.startswith("[learn-digest]")
    assert seen == [None]

    out = tmp_path / "d" / "digest.json"
    res = CliRunner().invoke(command, ["--since", "7d", "--format", "json", "--out", str(out)])
    assert res.exit_code == 0
    assert json.loads(out.read_text()) == sample_result().to_json()
    assert out.stat().st_mode & 0o777 == 0o600
    # One log line, nothing on stdout.
    assert res.output.strip().splitlines() == [f"learn digest: wrote {out} (json, 4 proposals)"]
    cutoff = seen[-1]
    assert cutoff is not None
    assert abs((datetime.now(UTC) - cutoff) - timedelta(days=7)) < timedelta(minutes=1)

    html = tmp_path / "r.html"
    assert CliRunner().invoke(command, ["--format", "html", "--out", str(html)]).exit_code == 0
    assert html.read_text().startswith("<!doctype html>")


def test_digest_fails_cleanly_unattended(tmp_path: Path) -> None:
    out = tmp_path / "digest.md"
    res = CliRunner().invoke(command, ["--since", "1d", "--out", str(out)])
    assert res.exit_code == 1
    assert len(res.output.strip().splitlines()) == 1 and "no stored run since 1d" in res.output
    assert not out.exists()
    # An unreadable --since is a usage error (exit 2), read and said as by `learn run`.
    res = CliRunner().invoke(command, ["--since", "yesterday-ish"])
    assert res.exit_code == 2 and "Invalid value for --since: cannot read" in res.output


def test_parse_since() -> None:
    now = datetime(2026, 11, 30, 12, tzinfo=UTC)
    assert runs.parse_since("7d", now=now) == now - timedelta(days=7)
    assert runs.parse_since("12h", now=now) == now - timedelta(hours=12)
    assert runs.parse_since("2w", now=now) == now - timedelta(weeks=2)
    assert runs.parse_since("2026-11-01", now=now) == datetime(2026, 11, 1, tzinfo=UTC)
    with pytest.raises(ValueError):
        runs.parse_since("soon", now=now)


def test_default_recorder_appends_private_jsonl(monkeypatch: pytest.MonkeyPatch) -> None:
    # The fallback for when the store provides no recorder.
    monkeypatch.setattr(runs, "STORE_MODULE", "learn.report.no_such_store_module")
    runs.record_decision("directive:a", "accepted", "Rule A.", "/p/CLAUDE.md")
    runs.record_decision("directive:b", "dismissed", "Rule B.", None)
    path = runs.decisions_path()
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    assert [(r["key"], r["decision"], r["target"]) for r in rows] == [
        ("directive:a", "accepted", "/p/CLAUDE.md"), ("directive:b", "dismissed", None)]
    assert path.stat().st_mode & 0o777 == 0o600


def test_store_hooks_are_found_by_name(monkeypatch: pytest.MonkeyPatch) -> None:
    import sys
    import types

    fake = types.ModuleType("fake_store_runs")
    got: list[tuple[str, str]] = []
    fake.load_latest_run = lambda since: sample_result()  # type: ignore[attr-defined]
    fake.record_decision = lambda k, d, t, f, **kw: got.append((k, d))  # type: ignore[attr-defined]
    monkeypatch.setitem(sys.modules, "fake_store_runs", fake)
    monkeypatch.setattr(runs, "STORE_MODULE", "fake_store_runs")
    assert runs.load_latest_run() == sample_result()
    runs.record_decision("directive:a", "edited", "x", None)
    assert got == [("directive:a", "edited")]
    monkeypatch.setattr(runs, "STORE_MODULE", "learn.report.no_such_store_module")
    assert runs.load_latest_run() is None



def test_digest_all_with_nothing_stored_does_not_send_you_to_itself() -> None:
    # `learn digest --all` with no proposal stored said "`learn digest --all` shows every
    # state" (the real-transcript check, 2026-12).
    from dataclasses import replace

    from learn.report.digest import empty_reason

    empty = replace(sample_result(), proposals=())
    every = empty_reason(replace(empty, extra={**empty.extra, "view": "all"}))
    assert "learn digest --all" not in every and "learn run" in every
    pending = empty_reason(replace(empty, extra={**empty.extra, "view": "pending"}))
    assert "learn digest --all" in pending  # the pending view still points there
