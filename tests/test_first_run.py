"""Issue 18 item 8: a first run that leads somewhere, as a user meets it (`python -m learn`
on the demo corpus in a temp HOME)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from evals.corpora import demo
from learn.report.digest import OFFLINE_LIMITS

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def home(tmp_path: Path) -> Path:
    demo.build(tmp_path / "corpus")
    return tmp_path / "corpus" / "home"


def learn(home: Path, *args: str, **extra: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO), **extra)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=home)


def test_an_offline_run_says_once_what_it_cannot_see_and_lists_no_failure(home: Path) -> None:
    done = learn(home, "run", "--offline", "--all-projects", "--since", "2026-01-01", "--all")
    assert done.returncode == 0, done.stderr
    assert done.stderr == ""  # nothing failed: there was no model to fail
    assert "What failed" not in done.stdout and "judge: offline" not in done.stdout
    assert done.stdout.count(OFFLINE_LIMITS) == 1
    assert "## Directives" in done.stdout  # the detectors' evidence is still shown


def test_signals_rank_acknowledgements_last_and_name_denials_as_denials(home: Path) -> None:
    import json

    done = learn(home, "signals", "--all-projects", "--since", "2026-01-01", "--json")
    assert done.returncode == 0, done.stderr
    rows = [json.loads(line) for line in done.stdout.splitlines()]
    acks = [i for i, r in enumerate(rows) if r["acknowledgement"]]
    assert [rows[i]["text"] for i in acks] == ["ok continue with the refund tests"]
    assert acks == [len(rows) - 1]  # below every correction, whatever its confidence
    corrections = [r["signal"]["confidence"] for r in rows if not r["acknowledgement"]]
    assert corrections == sorted(corrections, reverse=True)
    denial = next(r for r in rows if r["detector"] == "denial")
    assert denial["what"] == "tool call denied" and denial["kind"] == "interrupt_rejection"
    assert {r["what"] for r in rows if r["detector"] == "interrupt"} == {"interrupted"}

    table = learn(home, "signals", "--all-projects", "--since", "2026-01-01", COLUMNS="200")
    denied = next(x for x in table.stdout.splitlines() if "src/generated" in x)
    assert "tool call denied" in denied and "interrupt" not in denied


def test_signals_never_print_a_pasted_secret(home: Path) -> None:
    # The demo corpus has a session where an API key was pasted into a message.
    table = learn(home, "signals", "--all-projects", "--since", "2026-01-01", "--min-confidence",
                  "0", COLUMNS="200")
    as_json = learn(home, "signals", "--all-projects", "--since", "2026-01-01", "--min-confidence",
                    "0", "--json")
    for out in (table.stdout, as_json.stdout):
        assert "staging key" in out  # the message is listed...
        assert "sk-ant-api03" not in out  # ...without the key


def test_offline_proposes_what_signals_rate_at_the_threshold_worded_as_a_rule(tmp_path: Path) -> None:
    """`learn signals` rated "we use pnpm here, not yarn" 0.75 (the candidate threshold)
    while `run --offline` proposed only tool-denial reasons, with the raw quote as the
    rule, and its HTML report did not say it was offline."""
    import json
    from datetime import UTC, datetime

    from evals.builder import ClaudeSession, session_id

    home = tmp_path / "home"
    project = home / "code" / "web"
    project.mkdir(parents=True)
    for k, said in enumerate(("no, we use pnpm here, not yarn", "we use pnpm here, not yarn")):
        s = ClaudeSession(session_id(f"pnpm-{k}"), str(project), datetime(2026, 11, 3 + k, 9, tzinfo=UTC))
        s.user("add the date picker to the form")
        s.tool("Bash", {"command": "yarn add react-datepicker"}, "added 1 package")
        s.user(said)
        s.assistant("ok")
        s.write(home / ".claude")
    extra = {"LEARN_DATA_DIR": str(tmp_path / "data"), "LEARN_CACHE_DIR": str(tmp_path / "cache")}
    signals = learn(home, "signals", "--all-projects", "--since", "2026-01-01", "--json", **extra)
    rated = [json.loads(x) for x in signals.stdout.splitlines()]
    assert any(s["text"] == "we use pnpm here, not yarn" and s["signal"]["confidence"] >= 0.75
               for s in rated), rated

    done = learn(home, "run", "--offline", "--all-projects", "--since", "2026-01-01", "--json", **extra)
    assert done.returncode == 0, done.stderr
    [p] = json.loads(done.stdout)["proposals"]
    assert p["sessions"] == 2 and p["verdict"] is None
    assert p["rule"] == "We use pnpm here, not yarn."  # worded as a rule, not the raw quote
    digest = learn(home, "digest", "--all-projects", **extra)
    assert "We use pnpm here, not yarn." in digest.stdout
    report = tmp_path / "report.html"
    learn(home, "report", "--all-projects", "--out", str(report), **extra)
    assert "Offline run: no model read your sessions." in report.read_text()
