"""Issue 18 item 4: no dependency writes (or queues to send) anything about this machine.

Full runs, as a user runs them, on a fresh HOME whose XDG directories and TMPDIR
all point into the test's temp dir: afterwards every new file is inside learn's
own data, cache and config directories. onnxruntime >= 1.29 wrote
~/.cache/Microsoft/DeveloperTools/.onnxruntime/{deviceid,onnxruntime.db} on import.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer

from evals.corpora import demo
from evals.oracle import GoldOracle

REPO = Path(__file__).resolve().parents[1]
ARGS = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes", "--quiet"]


def _env(root: Path, home: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "ORT_", "HF_", "CLAUDE_", "CODEX_"))}
    xdg = root / "xdg"
    env.update(HOME=str(home), PYTHONPATH=str(REPO), TMPDIR=str(root / "tmp"),
               XDG_DATA_HOME=str(xdg / "data"), XDG_CACHE_HOME=str(xdg / "cache"),
               XDG_CONFIG_HOME=str(xdg / "config"), XDG_STATE_HOME=str(xdg / "state"),
               XDG_RUNTIME_DIR=str(xdg / "runtime"), **extra)
    return env


def _learn(args: list[str], env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, capture_output=True,
                          text=True, timeout=300, cwd=cwd)


def _files(root: Path) -> set[Path]:
    return {p for p in root.rglob("*") if not p.is_dir()}


def test_full_runs_leave_no_file_outside_learns_own_directories(tmp_path: Path) -> None:
    gold = demo.build(tmp_path / "corpus")
    home = tmp_path / "corpus" / "home"
    (tmp_path / "tmp").mkdir()
    ours = [tmp_path / "xdg" / kind / "learn" for kind in ("data", "cache", "config")]
    before = _files(tmp_path)

    oracle = GoldOracle(gold)
    with FakeAnthropicServer(lambda r: oracle.answer(r.tool_name or "", r.user_text)) as fake:
        online = _learn(ARGS, _env(tmp_path, home, ANTHROPIC_API_KEY="test-key",
                                   ANTHROPIC_BASE_URL=fake.base_url), home)
    assert online.returncode == 0, online.stderr
    offline = _learn([*ARGS, "--offline"], _env(tmp_path, home), home)
    assert offline.returncode == 0, offline.stderr
    # doctor loads the MiniLM embedder and embeds a sentence: onnxruntime and
    # tokenizers really ran in this HOME.
    doctor = _learn(["doctor"], _env(tmp_path, home), home)
    embedder = next(x for x in doctor.stdout.splitlines() if "embedder" in x)
    assert embedder.startswith("✓") and "minilm" in embedder.lower(), doctor.stdout

    new = _files(tmp_path) - before
    assert any(ours[0] in p.parents for p in new)  # the runs did write their store
    stray = sorted(str(p.relative_to(tmp_path)) for p in new
                   if not any(d in p.parents for d in ours))
    assert stray == []


def test_the_switch_is_on_before_any_dependency_can_load() -> None:
    code = ("import os, sys, learn; "
            "print(os.environ.get('ORT_DISABLE_TELEMETRY'), 'onnxruntime' in sys.modules)")
    env = {**os.environ, "PYTHONPATH": str(REPO), "ORT_DISABLE_TELEMETRY": "0"}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         check=True, env=env, timeout=60).stdout
    assert out.split() == ["1", "False"]
