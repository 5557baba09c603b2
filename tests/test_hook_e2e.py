"""The SessionEnd hook end to end: the plugin's hook command, run by /bin/sh with Claude
Code's hook JSON on stdin and the real `learn` on PATH, queues each ended session and a
detached worker mines it against the fake Messages server (the real anthropic SDK); the
/learn shell line then answers from the mining cache with no mining call."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer, RecordedRequest
from test_integration_plugin_e2e import ARGUMENTS, COMMAND, learn_on_path, shell_line

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.hook.queue import SessionQueue
from learn.hook.worker import lock_held

REPO = Path(__file__).resolve().parents[1]
HOOKS = REPO / "integrations" / "claude-code" / "hooks" / "hooks.json"


def hook_command() -> str:
    data = json.loads(HOOKS.read_text(encoding="utf-8"))
    [entry] = data["hooks"]["SessionEnd"]
    [hook] = entry["hooks"]
    assert hook["type"] == "command"
    return str(hook["command"])


def claude_sessions(home: Path) -> list[Path]:
    return sorted(p for p in (home / ".claude" / "projects").glob("*/*.jsonl"))


def hook_input(transcript: Path, cwd: Path) -> str:
    return json.dumps({
        "session_id": transcript.stem, "transcript_path": str(transcript), "cwd": str(cwd),
        "hook_event_name": "SessionEnd", "reason": "prompt_input_exit",
        "permission_mode": "default",
    })


def wait_drained(data: Path, timeout: float = 180.0) -> None:
    queue = SessionQueue(data)
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        working = list(queue.working.glob("*.json")) if queue.working.exists() else []
        if not queue.pending() and not working and not lock_held("hook-worker", data):
            return
        time.sleep(0.2)
    log = (queue.root / "hook.log").read_text() if (queue.root / "hook.log").exists() else ""
    raise AssertionError(f"the worker did not drain the queue in {timeout}s:\n{log}")


def environment(tmp: Path, home: Path, bindir: Path, name: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(
        HOME=str(home), LEARN_DATA_DIR=str(tmp / name / "data"),
        LEARN_CACHE_DIR=str(tmp / name / "cache"), LEARN_CONFIG_DIR=str(tmp / name / "config"),
        LEARN_HOOK_INTERVAL="0", PYTHONPATH=str(REPO),
        PATH=f"{bindir}{os.pathsep}{env.get('PATH', '/usr/bin:/bin')}",
        # As Claude Code sets it for a plugin's hook commands.
        CLAUDE_PLUGIN_ROOT=str(HOOKS.parents[1]),
    )
    return env


def run_line(line: str, cwd: Path, env: dict[str, str], stdin: str | None = None,
             timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["/bin/sh", "-c", line], cwd=cwd, env=env, input=stdin,
                          capture_output=True, text=True, timeout=timeout)


def test_ended_sessions_are_mined_in_the_background_and_learn_only_reduces(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    gold = demo.build(root)
    home = root / "home"
    # Codex has no SessionEnd hook: with its rollouts gone, every session is a hooked one.
    shutil.rmtree(home / ".codex")
    bindir = tmp_path / "bin"
    learn_on_path(bindir)
    cwd = home / "code" / "shop-api"
    sessions = claude_sessions(home)
    assert len(sessions) >= 5
    # The command's own line, with the options Claude adds when the person asks for them
    # (the words after /learn go to the prompt, not to this line).
    line = shell_line(COMMAND.read_text(encoding="utf-8")).replace(
        "--exit-zero;", f"--exit-zero {ARGUMENTS};", 1)  # where Claude puts options (step 1)

    oracle = GoldOracle(gold)
    # The hook returns without waiting on the mining: every mining answer is held
    # until all the hooks have returned (a hook that waited would never return).
    hooks_returned = threading.Event()

    def answer(request: RecordedRequest) -> object:
        if request.tool_name == "record_candidates":
            hooks_returned.wait(120)
        return oracle.answer(request.tool_name or "", request.user_text)

    fake = FakeAnthropicServer(responder=answer)
    env = environment(tmp_path, home, bindir, "hooked")
    with fake:
        env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=fake.base_url)
        # Every session ends twice at once (a resumed session ending again, two
        # Claude Code windows): the hooks race, and none of them waits on the mining.
        jobs = [s for s in sessions for _ in range(2)]
        try:
            with ThreadPoolExecutor(max_workers=4) as pool:
                fired = list(pool.map(lambda t: run_line(hook_command(), cwd, env,
                                                         stdin=hook_input(t, cwd), timeout=60),
                                      jobs))
        finally:
            hooks_returned.set()
        for proc in fired:
            assert proc.returncode == 0, proc.stderr
            assert proc.stdout == ""
        wait_drained(tmp_path / "hooked" / "data")
        mined = [r for r in fake.requests if r.tool_name == "record_candidates"]
        # Every session with something typed was mined, and none twice.
        assert mined
        assert len({r.user_text for r in mined}) == len(mined)
        before = len(fake.requests)

        proc = run_line(line, cwd, env)
        after = fake.requests[before:]

    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("[learn-digest]"), proc.stdout[:200]
    assert not [r for r in after if r.tool_name == "record_candidates"]
    log = (tmp_path / "hooked" / "data" / "hook" / "hook.log").read_text(encoding="utf-8")
    assert "mined:" in log and "Error" not in log, log
    assert oct((tmp_path / "hooked" / "data" / "hook" / "hook.log").stat().st_mode & 0o777) == "0o600"

    # The same answer as a /learn that mined everything itself.
    cold_env = environment(tmp_path, home, bindir, "cold")
    cold_fake = FakeAnthropicServer(responder=lambda r: oracle.answer(r.tool_name or "", r.user_text))
    with cold_fake:
        cold_env.update(ANTHROPIC_API_KEY="test-key", ANTHROPIC_BASE_URL=cold_fake.base_url)
        cold = run_line(line, cwd, cold_env)
        cold_mined = [r for r in cold_fake.requests if r.tool_name == "record_candidates"]
    assert cold.returncode == 0, cold.stderr
    assert len(cold_mined) == len(mined)
    labels = sorted(set(_labels(cold.stdout)))
    assert labels and sorted(set(_labels(proc.stdout))) == labels


def _labels(digest: str) -> list[str]:
    import re

    return re.findall(r"`([a-z0-9][a-z0-9-]*)`", digest)


def test_a_broken_hook_input_exits_zero_and_is_logged(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    learn_on_path(bindir)
    env = environment(tmp_path, tmp_path / "home", bindir, "x")
    for stdin in ("not json", '{"session_id": "../../etc/passwd", "transcript_path": "/x"}', ""):
        proc = run_line(hook_command(), tmp_path, env, stdin=stdin, timeout=30)
        assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    log = (tmp_path / "x" / "data" / "hook" / "hook.log").read_text(encoding="utf-8")
    assert log.count("BadHookInput") == 3, log
    assert not SessionQueue(tmp_path / "x" / "data").pending()


def test_a_hook_inside_the_worker_queues_nothing(tmp_path: Path) -> None:
    bindir = tmp_path / "bin"
    learn_on_path(bindir)
    env = environment(tmp_path, tmp_path / "home", bindir, "x")
    env["LEARN_HOOK_WORKER"] = "1"
    transcript = tmp_path / "s.jsonl"
    proc = run_line(hook_command(), tmp_path, env, stdin=hook_input(transcript, tmp_path))
    assert proc.returncode == 0
    assert not (tmp_path / "x" / "data" / "hook").exists()


def test_the_plugin_hook_without_learn_on_path_says_so_where_doctor_looks(tmp_path: Path) -> None:
    """Claude Code's PATH without learn's virtualenv: the hook still exits 0 at once, and
    the reason lands in learn's hook log, which `learn doctor` reports."""
    data = tmp_path / "data"
    env = {"HOME": str(tmp_path / "home"), "LEARN_DATA_DIR": str(data), "PATH": "/usr/bin:/bin",
           "CLAUDE_PLUGIN_ROOT": str(HOOKS.parents[1])}
    transcript = tmp_path / "s.jsonl"
    proc = run_line(hook_command(), tmp_path, env, stdin=hook_input(transcript, tmp_path),
                    timeout=30)
    assert proc.returncode == 0 and proc.stdout == "" and proc.stderr == ""
    log = (data / "hook" / "hook.log").read_text()
    assert "hook: LearnNotFound: no `learn` on the PATH Claude Code gives its hooks (/usr/bin:/bin)" in log
    assert oct((data / "hook" / "hook.log").stat().st_mode & 0o777) == "0o600"
    doctor = subprocess.run([sys.executable, "-m", "learn", "doctor", "--json"], cwd=tmp_path,
                            env={**os.environ, **env, "PYTHONPATH": str(REPO),
                                 "LEARN_CACHE_DIR": str(tmp_path / "c"),
                                 "LEARN_CONFIG_DIR": str(tmp_path / "cfg")},
                            capture_output=True, text=True, timeout=120)
    hook = next(c for c in json.loads(doctor.stdout)["checks"] if c["name"] == "hook")
    assert hook["status"] == "warn" and "LearnNotFound" in hook["detail"]
