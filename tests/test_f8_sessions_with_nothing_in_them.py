"""A session with nothing in it (no typed turn, no tool call: the person only ran `/login`,
or the file holds only summary lines) is read and counted, the same in `learn plan`, the
digest, the HTML report and `learn run --json`, and is not a session a rule "held" in.

On 12 real Claude Code files `learn plan` said "12 sessions: 0 to mine, 8 cached, 4 with
nothing to mine" and the digest "Read 8 sessions": learn.pipeline.read dropped the four
before anything counted them (tests/test_h6_digest_counts_command_only_sessions.py). They
are counted now with nothing typed ("none typed"), kept apart from the sessions the run
works on (learn.pipeline.read.Read.empty): kept with them, each would count as a clean
session since a rule (learn.reduce.outcomes) though nothing was said or done in it.

The fixtures are written for this test (not copied from any transcript).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

import pytest
from fakes.anthropic_server import FakeAnthropicServer
from test_h6_digest_counts_command_only_sessions import _env, _home, _learn

from evals.builder import session_id
from learn.config import load_config
from learn.pipeline.read import read_sessions
from learn.pipeline.types import Clock, RunOptions, Trace


def _summary_only(root: Path, project: Path) -> str:
    """A Claude Code file with only a summary line (a session compacted, then left)."""
    sid = session_id("summary-only")
    folder = root / "home" / ".claude" / "projects" / str(project).replace("/", "-")
    folder.mkdir(parents=True, exist_ok=True)
    line = {"type": "summary", "summary": "Cart helper renamed", "leafUuid": session_id("leaf")}
    (folder / f"{sid}.jsonl").write_text(json.dumps(line) + "\n", encoding="utf-8")
    return sid


def test_plan_digest_report_and_json_count_the_same_sessions(tmp_path: Path) -> None:
    project = _home(tmp_path)  # two typed, one only `/login`
    with FakeAnthropicServer() as fake:
        env = _env(tmp_path, fake)
        run = _learn(["run", "--since", "2026-01-01", "--yes", "--quiet", "--json"], env, project)
        plan = _learn(["plan", "--since", "2026-01-01"], env, project)
        digest = _learn(["digest"], env, project)
        page = tmp_path / "report.html"
        report = _learn(["report", "--out", str(page)], env, project)
    assert run.returncode == 0, run.stderr
    data = json.loads(run.stdout)
    u = data["usage"]
    assert u["sessions_seen"] == 3
    assert data["nothing_typed"] == {"repeated": 0, "none": 1}
    assert (u["sessions_mined"] + u["sessions_cached"] + u["sessions_failed"]
            + sum(data["nothing_typed"].values()) + data["in_batch"]) == u["sessions_seen"]
    assert "3 sessions: 0 to mine, 2 cached, 1 with nothing to mine" in plan.stdout, plan.stdout
    assert "Read 3 sessions" in digest.stdout, digest.stdout
    assert ("Read by the model this run: 2; reused from cache: 0; failed: 0; nothing typed "
            "to count: 1 (none typed).") in digest.stdout, digest.stdout
    assert report.returncode == 0, report.stderr
    assert "3 sessions read (2 counted)" in page.read_text(encoding="utf-8")


def test_a_file_of_only_summary_lines_is_counted_as_plan_counts_it(tmp_path: Path) -> None:
    project = _home(tmp_path)
    _summary_only(tmp_path, project)
    with FakeAnthropicServer() as fake:
        env = _env(tmp_path, fake)
        run = _learn(["run", "--since", "2026-01-01", "--yes", "--quiet", "--json"], env, project)
        plan = _learn(["plan", "--since", "2026-01-01", "--json"], env, project)
    assert run.returncode == 0, run.stderr
    data, planned = json.loads(run.stdout), json.loads(plan.stdout)
    # Whether discovery lists such a file at all (it has no time of its own), the run
    # reads what the plan plans, and says what each of them was.
    u = data["usage"]
    assert u["sessions_seen"] == planned["sessions"]
    assert sum(data["nothing_typed"].values()) == planned["nothing_to_mine"]
    assert (u["sessions_mined"] + u["sessions_cached"] + u["sessions_failed"]
            + sum(data["nothing_typed"].values())) == u["sessions_seen"]


def test_a_session_with_nothing_in_it_is_read_apart_from_those_worked_on(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Counted, not mined, detected or measured: the rules' outcomes read `Read.sessions`."""
    project = _home(tmp_path)
    for name, value in (("HOME", tmp_path / "home"), ("LEARN_DATA_DIR", tmp_path / "data"),
                        ("LEARN_CACHE_DIR", tmp_path / "cache"),
                        ("LEARN_CONFIG_DIR", tmp_path / "config")):
        monkeypatch.setenv(name, str(value))
    trace = Trace()
    read = read_sessions(RunOptions(project=project, since=datetime(2026, 1, 1, tzinfo=UTC)),
                         load_config(), clock=Clock(trace), trace=trace, progress=None)
    assert [s.id for s in read.empty] == [session_id("login-only")]
    assert session_id("login-only") not in {s.id for s in read.sessions}
    assert len(read.sessions) == 2 and session_id("login-only") not in read.detected
