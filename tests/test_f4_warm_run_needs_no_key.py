"""A run that calls no model needs no key; one that will call it still stops before mining.

Through the real CLI: the first run talks to the fake Messages server on 127.0.0.1 with a
key; the runs after it have neither key nor server (the scheduled digest's shell, the
/learn command's), as learn.pipeline.deferred says.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from fakes.anthropic_server import FakeAnthropicServer, default_tool_input

from evals.builder import CodexSession, session_id
from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]
UV = "we use uv here, run uv run pytest, never plain pip"


def _learn(args: list[str], env: dict[str, str], cwd: Path = REPO) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def _env(root: Path, fake: FakeAnthropicServer | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), LEARN_CONFIG_DIR=str(root / "config"),
               PYTHONPATH=str(REPO))
    if fake is not None:
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url)
    return env


def _proposals(digest: str) -> str:
    """The digest's proposals: from its first section to what failed or its closing guide
    (the first run's naming fell back for one quote: said, and not again)."""
    start = digest.index("\n## ")
    ends = [i for i in (digest.find("\n## What failed"), digest.find("\n## What to do")) if i > 0]
    return digest[start:min(ends)]


def _mined(root: Path) -> list[Path]:
    """The mining cache's files."""
    return sorted(p for p in (root / "cache").rglob("*") if p.is_file() and "mined" in p.parts)


def codex_home(root: Path) -> Path:
    """Eight Codex sessions in one project: 4 with the person's words, 3 whose only typed
    prompt is one long prompt repeated in each (set aside as a repeated prompt), 1 with
    no typed turn at all (the agent's own work)."""
    home = root / "home"
    project = home / "code" / "app"
    project.mkdir(parents=True)
    codex = home / ".codex"

    def at(day: int) -> datetime:
        return datetime(2026, 11, day, 9, tzinfo=UTC)

    for i in range(4):
        s = CodexSession(session_id(f"typed-{i}"), str(project), at(3 + i))
        s.user(f"fix the flaky test number {i}")
        s.shell("pytest", "1 failed", exit_code=1)
        s.user(UV)
        s.shell("uv run pytest", "ok")
        s.write(codex)
    review = ("Review the open diff for this repository carefully. " * 8
              + "Report each finding with file and line.")
    for i in range(3):
        s = CodexSession(session_id(f"review-{i}"), str(project), at(10 + i))
        s.user(review)
        s.shell("git diff", "diff --git a/x b/x")
        s.assistant("No findings.")
        s.write(codex)
    s = CodexSession(session_id("no-words"), str(project), at(14))
    s.shell("ls", "README.md")
    s.assistant("Listed.")
    s.write(codex)
    return project


def _uv_miner(request: Any) -> Any:
    if request.tool_name == "record_candidates" and "uv run" in request.user_text:
        return {"candidates": [{"kind": "directive", "text": UV}]}
    return default_tool_input(request.tool_name)


def test_a_warm_run_without_a_key_gives_the_same_digest(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    oracle = GoldOracle(demo.build(root))
    args = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet", "--all"]
    with FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text)) as fake:
        first = _learn(args, _env(root, fake))
    assert first.returncode == 0, first.stderr
    assert "Read by the model this run: 8; reused from cache: 0" in first.stdout

    # No key, no endpoint: every answer is cached, so nothing is asked of a model.
    second = _learn(args, _env(root))
    assert second.returncode == 0, second.stderr
    assert "ANTHROPIC_API_KEY" not in second.stderr + second.stdout
    # The whole run, not the stored result of one that found the same store (warm.py).
    assert "nothing new since" not in second.stderr
    assert "Read by the model this run: 0; reused from cache: 8; failed: 0." in second.stdout
    assert _proposals(second.stdout) == _proposals(first.stdout)
    assert "use-bun-not-npm" in _proposals(second.stdout)

    # As /learn runs it: `--backend auto`, and here neither a key nor `claude` on PATH.
    slash = _learn([*args, "--backend", "auto", "--exit-zero"],
                   {**_env(root), "PATH": os.path.dirname(sys.executable)})
    assert slash.returncode == 0, slash.stderr
    assert "What failed" not in slash.stdout and "no model backend" not in slash.stdout
    assert _proposals(slash.stdout) == _proposals(first.stdout)


def test_a_run_with_a_session_to_mine_and_no_key_stops_before_mining(tmp_path: Path) -> None:
    project = codex_home(tmp_path)
    args = ["run", "--since", "2026-01-01", "--yes", "--quiet"]
    with FakeAnthropicServer(responder=_uv_miner) as fake:
        assert _learn(args, _env(tmp_path, fake), project).returncode in (0, 1)
    mined = _mined(tmp_path)
    assert mined

    new = CodexSession(session_id("new"), str(project), datetime(2026, 11, 20, 9, tzinfo=UTC))
    new.user("and keep the changelog up to date in every PR")
    new.write(tmp_path / "home" / ".codex")
    stopped = _learn(args, _env(tmp_path), project)
    assert stopped.returncode == 2, stopped.stderr
    assert stopped.stdout == ""
    assert "ANTHROPIC_API_KEY is not set" in stopped.stderr
    assert len(stopped.stderr.strip().splitlines()) == 1
    assert _mined(tmp_path) == mined  # nothing read by a model, nothing cached


def test_a_later_stage_that_needs_the_model_says_the_key_is_missing(tmp_path: Path) -> None:
    """Mining all cached, but the judge gave no verdict last time: the judge asks again,
    and without a key its failure says so; the digest is still printed."""
    project = codex_home(tmp_path)
    args = ["run", "--since", "2026-01-01", "--yes", "--quiet", "--all"]
    with FakeAnthropicServer(responder=_uv_miner) as fake:
        first = _learn(args, _env(tmp_path, fake), project)
    assert "judge: 1 of 1 proposal(s) got no usable verdict" in first.stderr

    second = _learn(args, _env(tmp_path), project)
    assert second.returncode == 1
    assert "use-uv" in second.stdout
    failed = second.stdout[second.stdout.index("## What failed"):]
    assert re.search(r"judge: .*ANTHROPIC_API_KEY is not set", failed), failed


def test_the_digest_accounts_for_every_session_read(tmp_path: Path) -> None:
    project = codex_home(tmp_path)
    args = ["run", "--since", "2026-01-01", "--yes", "--quiet", "--all"]
    with FakeAnthropicServer(responder=_uv_miner) as fake:
        first = _learn(args, _env(tmp_path, fake), project)
        report = _learn(["report", "--out", str(tmp_path / "report.html")],
                        _env(tmp_path, fake), project)
        plan = _learn(["plan", "--since", "2026-01-01"], _env(tmp_path, fake), project)
        second = _learn(args, _env(tmp_path, fake), project)
    tail = "; nothing typed to count: 4 (3 only a repeated prompt, 1 none typed)."
    assert "Read 8 sessions" in first.stdout
    assert f"Read by the model this run: 4; reused from cache: 0; failed: 0{tail}" in first.stdout
    assert f"Read by the model this run: 0; reused from cache: 4; failed: 0{tail}" in second.stdout
    assert "said in 4 of your last 4 sessions" in second.stdout
    assert report.returncode == 0, report.stderr
    assert "8 sessions read (4 counted)" in (tmp_path / "report.html").read_text()
    assert "8 sessions: 0 to mine, 4 cached, 4 with nothing to mine, 0 unreadable" in plan.stdout


def test_show_says_why_a_repeated_prompt_is_not_counted(tmp_path: Path) -> None:
    project = codex_home(tmp_path)
    env = _env(tmp_path)
    shown = _learn(["show", session_id("review-1")], env, project)
    assert shown.returncode == 0, shown.stderr
    flat = " ".join(shown.stdout.split())
    assert "human 0" in flat
    assert ("1 turn you sent is not counted: a prompt repeated word for word across this "
            "project's sessions") in flat
    # Nothing said where nothing was cut.
    typed = _learn(["show", session_id("typed-1")], env, project)
    assert "not counted" not in typed.stdout
    none = _learn(["show", session_id("no-words")], env, project)
    assert "not counted" not in none.stdout
