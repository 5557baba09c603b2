"""Found on real Claude Code sessions (an end-to-end check with a careful model answering):
a Claude Code session in which the person only ran client commands (`/login`, `/plugin`,
`/exit`: a caveat, the command tags, the command's output; no prompt, no tool call) is
counted by `learn plan` ("N sessions: ... 1 with nothing to mine") but left out of the
digest's "Read N sessions" and said nowhere in it, so the two commands disagree on the
same scope. On 12 real files, `learn plan` said "12 sessions: 0 to mine, 8 cached, 4 with
nothing to mine" and the digest and the HTML report said "Read 8 sessions" / "8 sessions
read (8 counted)", with no "nothing typed to count" clause.

learn.pipeline.read.read_sessions drops a session with neither human turns nor tool calls
before it is counted (`if not session.human_turns and not session.tool_calls: continue`),
so learn.report.digest.uncounted_clause never sees it; a Codex session with no typed turn
but a shell call is counted ("1 none typed": tests/test_f4_warm_run_needs_no_key.py).
Fixed: such a session is read apart (learn.pipeline.read.Read.empty) and counted with
nothing typed (tests/test_f8_sessions_with_nothing_in_them.py).
"""

from __future__ import annotations

import os
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer

from evals.builder import ClaudeSession, session_id

REPO = Path(__file__).resolve().parents[1]


def _learn(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def _env(root: Path, fake: FakeAnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
               PYTHONPATH=str(REPO), ANTHROPIC_API_KEY="test-key",
               ANTHROPIC_BASE_URL=fake.base_url)
    return env


def _home(root: Path) -> Path:
    """Two sessions with a prompt the person typed, one where they only logged in."""
    project = root / "home" / "code" / "shop"
    project.mkdir(parents=True)
    claude = root / "home" / ".claude"
    for i in range(2):
        s = ClaudeSession(session_id(f"worked-{i}"), str(project),
                          datetime(2026, 11, 3 + i, 9, tzinfo=UTC))
        s.user(f"rename the cart helper number {i} to basket")
        s.assistant("Renamed.")
        s.write(claude)
    s = ClaudeSession(session_id("login-only"), str(project), datetime(2026, 11, 7, 9, tzinfo=UTC))
    s.local_command("login", "Login successful")
    s.write(claude)
    return project


def test_the_digest_counts_what_plan_counts(tmp_path: Path) -> None:
    project = _home(tmp_path)
    with FakeAnthropicServer() as fake:
        env = _env(tmp_path, fake)
        run = _learn(["run", "--since", "2026-01-01", "--yes", "--quiet"], env, project)
        plan = _learn(["plan", "--since", "2026-01-01"], env, project)
    assert run.returncode == 0, run.stderr
    # learn plan sees three sessions, one with nothing to mine ...
    assert "3 sessions: 0 to mine, 2 cached, 1 with nothing to mine" in plan.stdout, plan.stdout
    # ... and the digest reads the same three, saying why one is not counted.
    assert "Read 3 sessions" in run.stdout, run.stdout
    assert "nothing typed to count: 1 (none typed)" in run.stdout, run.stdout
