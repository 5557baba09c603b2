"""`learn signals` over fixture transcripts."""

from __future__ import annotations

import json
from pathlib import Path

from click.testing import CliRunner

from learn.cli import cli

FIXTURES = Path(__file__).parent / "fixtures" / "detect"


def test_signals_json_with_threshold() -> None:
    result = CliRunner().invoke(
        cli, ["signals", str(FIXTURES / "denials.jsonl"), "--json", "--min-confidence", "high"]
    )
    assert result.exit_code == 0, result.output
    rows = [json.loads(line) for line in result.output.splitlines()]
    assert [(r["detector"], r["text"]) for r in rows] == [
        ("denial", "use the storage adapter instead")
    ]
    assert rows[0]["signal"]["reasons"] == ["embedded_text", "substantive"]
    assert rows[0]["path"].endswith("denials.jsonl")


def test_signals_table() -> None:
    result = CliRunner().invoke(
        cli, ["signals", str(FIXTURES / "plan.jsonl"), "--min-confidence", "0.75"]
    )
    assert result.exit_code == 0, result.output
    assert "plan rejected" in result.output
    assert "plan re-entered" in result.output
    assert "4 signals in 1 session" in result.output


def test_the_signals_table_fits_80_columns(tmp_path: Path) -> None:
    """At 80 columns the six-column table was cut; four columns fit, the reasons under
    the text."""
    import os
    import subprocess
    import sys

    done = subprocess.run([sys.executable, "-m", "learn", "signals", str(FIXTURES / "plan.jsonl"),
                           "--min-confidence", "0.75"], capture_output=True, text=True,
                          env={**os.environ, "COLUMNS": "80", "HOME": str(tmp_path)},
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert max(len(x) for x in lines) <= 80
    assert any("what" in x and "conf" in x and "time" in x and "text" in x for x in lines)
    assert "don't add redis, use the in-process LRU cache" in " ".join(
        x.strip("│ ") for x in lines).replace("  ", " ")


def test_signals_bad_threshold_and_missing_session() -> None:
    runner = CliRunner()
    bad = runner.invoke(cli, ["signals", str(FIXTURES / "plan.jsonl"), "--min-confidence", "2"])
    assert bad.exit_code != 0
    assert "outside [0, 1]" in bad.output
    missing = runner.invoke(cli, ["signals", "does-not-exist.jsonl"])
    assert missing.exit_code == 1
    assert "no session 'does-not-exist.jsonl'" in missing.output


def test_signals_discovers_the_current_project(tmp_path: Path, _isolated_home: Path) -> None:
    project = tmp_path / "proj"
    project.mkdir()
    sessions = _isolated_home / ".claude" / "projects" / str(project).replace("/", "-")
    sessions.mkdir(parents=True)
    data = (FIXTURES / "questions.jsonl").read_text()
    (sessions / "q0000000-0000-4000-8000-000000000004.jsonl").write_text(
        data.replace("/home/dev/proj", str(project))
    )
    result = CliRunner().invoke(
        cli, ["signals", "--project", str(project), "--since", "3650d", "--json"]
    )
    assert result.exit_code == 0, result.output
    detectors = {json.loads(line)["detector"] for line in result.output.splitlines()}
    assert "ask_user_question" in detectors
    # And by session-id prefix.
    by_id = CliRunner().invoke(cli, ["signals", "q0000000", "--json", "--min-confidence", "high"])
    assert by_id.exit_code == 0, by_id.output
    assert len(by_id.output.splitlines()) == 3
