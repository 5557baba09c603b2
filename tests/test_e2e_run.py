"""End to end: `learn run` as a user runs it, the real anthropic SDK talking to a
fake Messages server on 127.0.0.1, over a HOME full of Claude Code and Codex
sessions in several projects (the eval corpora, with their gold)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_server import FakeAnthropicServer

from evals.corpora import demo, hard
from evals.gold import Gold
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]


def _learn(args: list[str], env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "learn", *args], env=env, capture_output=True, text=True,
        timeout=300, cwd=REPO,
    )


def _env(root: Path, fake: FakeAnthropicServer) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(
        HOME=str(root / "home"),
        LEARN_DATA_DIR=str(root / "data"),
        LEARN_CACHE_DIR=str(root / "cache"),
        LEARN_CONFIG_DIR=str(root / "config"),
        ANTHROPIC_API_KEY="test-key",
        ANTHROPIC_BASE_URL=fake.base_url,
        PYTHONPATH=str(REPO),
    )
    return env


def _files_bytes(*roots: Path) -> bytes:
    out = b""
    for r in roots:
        if r.exists():
            for p in sorted(r.rglob("*")):
                if p.is_file():
                    out += p.read_bytes()
    return out


def _run_corpus(tmp_path: Path, build: Any) -> tuple[Gold, FakeAnthropicServer, Path, dict[str, str]]:
    root = tmp_path / "corpus"
    gold = build(root)
    oracle = GoldOracle(gold)
    fake = FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))
    return gold, fake, root, {}


@pytest.mark.parametrize("build", [demo.build, hard.build], ids=["demo", "hard"])
def test_run_proposes_what_the_gold_says(tmp_path: Path, build: Any) -> None:
    gold, fake, root, _ = _run_corpus(tmp_path, build)
    with fake:
        env = _env(root, fake)
        args = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes", "--quiet"]
        first = _learn(args, env)
        assert first.returncode in (0, 1), first.stderr
        result = json.loads(first.stdout)
        mined_calls = sum(1 for r in fake.requests if r.tool_name == "record_candidates")
        assert mined_calls >= 1

        expected = {name: g for name, g in gold.groups.items() if g.proposed}
        got = {p["label"]: p for p in result["proposals"]}
        assert set(got) == set(expected)
        for name, g in expected.items():
            assert got[name]["sessions"] == g.sessions, name
            assert got[name]["kind"] == g.kind
            assert got[name]["verdict"]["accepted"] is True
            for q in got[name]["quotes"]:
                assert q["session_id"] and q["text"]

        # Nothing that nobody typed becomes a proposal.
        blob = json.dumps(result["proposals"]).casefold()
        for trap in gold.traps:
            assert trap.casefold() not in blob, trap

        # A failed session (the malformed answer in "hard") is reported, not hidden.
        if gold.malformed_sessions:
            assert first.returncode == 1
            assert result["usage"]["sessions_failed"] == len(gold.malformed_sessions)
            assert any(s[:8] in first.stderr for s in gold.malformed_sessions)
        else:
            assert first.returncode == 0, first.stderr

        # Second run: unchanged transcripts cost no mining call and give the same proposals.
        second = _learn([*args, "--all"], env)
        again = json.loads(second.stdout)
        mined_again = sum(1 for r in fake.requests if r.tool_name == "record_candidates")
        # Only the session whose answer was malformed is mined again (it was not
        # cached): its answer and the two repairs asked for it.
        assert mined_again - mined_calls == 3 * len(gold.malformed_sessions)
        assert [(p["label"], p["sessions"]) for p in again["proposals"]] == [
            (p["label"], p["sessions"]) for p in result["proposals"]
        ]
        assert again["usage"]["sessions_cached"] == len(result["proposals"]) * 0 + (
            again["usage"]["sessions_seen"] - len(gold.malformed_sessions)
        )

        # Third run without --all: everything was shown and nothing said since.
        third = json.loads(_learn(args, env).stdout)
        assert third["proposals"] == []
        assert third["held_back"] == len(expected)

        # Planted secrets never reach the model endpoint or any file learn wrote.
        sent = "\n".join(json.dumps(r.body) for r in fake.requests)
        written = _files_bytes(root / "data", root / "cache", root / "config")
        assert written, "learn wrote nothing?"
        for secret in gold.secrets:
            assert secret not in sent, secret[:12]
            assert secret.encode() not in written, secret[:12]


def test_run_without_a_key_explains_what_to_do(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    demo.build(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), PYTHONPATH=str(REPO))
    proc = _learn(["run", "--all-projects", "--backend", "anthropic", "--yes"], env)
    assert proc.returncode == 2
    assert "ANTHROPIC_API_KEY" in proc.stderr
    assert "--backend claude-cli" in proc.stderr and "--offline" in proc.stderr
    assert proc.stdout == ""


def test_offline_run_proposes_repeated_rejections_without_a_model(tmp_path: Path) -> None:
    """No model at all: the detectors alone propose the rejection repeated in two
    sessions ("leave the generated files alone"), and every other point the person
    said in two sessions in words a detector rates at the threshold (offline, a
    signal over it is a candidate: "we're on bun now, not npm")."""
    root = tmp_path / "corpus"
    demo.build(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), PYTHONPATH=str(REPO))
    proc = _learn(["run", "--all-projects", "--since", "2026-01-01", "--offline", "--json"], env)
    assert proc.returncode == 0, proc.stderr
    result = json.loads(proc.stdout)
    assert result["offline"] is True
    assert result["usage"]["model_calls"] == 0
    by_quote = {q["text"]: p for p in result["proposals"] for q in p["quotes"]}
    p = by_quote["leave the generated files alone, regenerate them with bun run codegen"]
    assert p["kind"] == "directive" and p["sessions"] == 2
    bun = by_quote["no npm please, this repo uses bun"]
    assert bun["sessions"] == 2 and bun is by_quote[
        "we're on bun now, not npm. use bun install and bun run for everything"]
    assert all(p["sessions"] >= 2 for p in result["proposals"])


def test_a_second_concurrent_run_refuses_with_a_message(tmp_path: Path) -> None:
    from learn.lock import run_lock

    root = tmp_path / "corpus"
    demo.build(root)
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(root / "home"), LEARN_DATA_DIR=str(root / "data"),
               LEARN_CACHE_DIR=str(root / "cache"), PYTHONPATH=str(REPO), LEARN_LOCK_TIMEOUT="0.5")
    with run_lock(directory=root / "data", timeout=1):
        proc = _learn(["run", "--all-projects", "--offline", "--json"], env)
    assert proc.returncode == 75  # EXIT_BUSY, not a usage error (2)
    assert "another learn run is in progress" in proc.stderr
    assert proc.stdout == ""
    # Once the first run is over, the next one goes ahead.
    after = _learn(["run", "--all-projects", "--since", "2026-01-01", "--offline", "--json"], env)
    assert after.returncode == 0, after.stderr


def test_a_run_says_how_many_lines_it_could_not_read(tmp_path: Path) -> None:
    # A malformed line is skipped and counted, the rest of its session read; `learn
    # sessions` and `learn show` counted it, the run said nothing (crash audit 61 F3).
    gold, fake, root, _ = _run_corpus(tmp_path, demo.build)
    sessions = sorted((root / "home" / ".claude" / "projects").rglob("*.jsonl"))
    for damaged in sessions[:2]:
        with damaged.open("ab") as f:
            f.write(b'{"type": "user", "uuid": "x", "message": \n[1, 2]\n')
    with fake:
        env = _env(root, fake)
        args = ["run", "--all-projects", "--since", "2026-01-01", "--yes", "--quiet"]
        done = _learn(args, env)
        assert done.returncode == 0, done.stderr
        assert "Skipped: 4 unreadable lines in 2 sessions, the rest of each read" in done.stdout
        listed = json.loads(_learn([*args, "--json", "--all"], env).stdout)
    assert listed["skipped_lines"] == 4 and listed["sessions_with_skipped_lines"] == 2
    # The damaged sessions' other lines were read: every point the gold proposes stands.
    assert {p["label"] for p in listed["proposals"]} == {
        name for name, g in gold.groups.items() if g.proposed}
