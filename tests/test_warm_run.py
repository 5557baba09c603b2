"""A warm `learn run`: unchanged sessions, everything mined, named and judged
before, so the second run makes no request of any kind to the model endpoint
(issue 13). Real `learn run` processes, the real anthropic SDK, the fake
Messages server on 127.0.0.1."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fakes.anthropic_server import FakeAnthropicServer
from test_e2e_run import REPO, _env, _learn

from evals.corpora import demo
from evals.oracle import GoldOracle

ARGS = ["run", "--all-projects", "--since", "2026-01-01", "--json", "--yes", "--quiet"]


def _fake(root: Path) -> FakeAnthropicServer:
    oracle = GoldOracle(demo.build(root))
    return FakeAnthropicServer(responder=lambda req: oracle.answer(req.tool_name, req.user_text))


def test_a_second_run_over_the_same_corpus_makes_no_request(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    fake = _fake(root)
    with fake:
        env = _env(root, fake)
        first = _learn(ARGS, env)
        assert first.returncode == 0, first.stderr
        asked = {r.tool_name for r in fake.requests}
        assert {"record_candidates", "assign_labels"} <= asked
        before = len(fake.requests)

        second = _learn(ARGS, env)
        assert second.returncode == 0, second.stderr
        assert [r.tool_name for r in fake.requests[before:]] == []


def test_a_warm_run_showing_everything_again_names_nothing_again(tmp_path: Path) -> None:
    root = tmp_path / "corpus"
    fake = _fake(root)
    with fake:
        env = _env(root, fake)
        first = json.loads(_learn(ARGS, env).stdout)
        before = len(fake.requests)
        again = json.loads(_learn([*ARGS, "--all"], env).stdout)
        assert "assign_labels" not in {r.tool_name for r in fake.requests[before:]}
        assert [(p["label"], p["sessions"]) for p in again["proposals"]] == [
            (p["label"], p["sessions"]) for p in first["proposals"]
        ]


def test_a_warm_run_imports_no_model_sdk_clusterer_or_onnx_runtime(tmp_path: Path) -> None:
    # Importing them was ~3.4 s (anthropic), ~3 s (scikit-learn) and ~1 s
    # (an ONNX session) of a warm run that needs none of them (issue 13).
    root = tmp_path / "corpus"
    fake = _fake(root)
    with fake:
        env = _env(root, fake)
        assert _learn(ARGS, env).returncode == 0
        warm = subprocess.run([sys.executable, "-X", "importtime", "-m", "learn", *ARGS], env=env,
                              capture_output=True, text=True, timeout=300, cwd=REPO)
    assert warm.returncode == 0, warm.stderr[-2000:]
    imported = {line.rsplit("|", 1)[-1].strip() for line in warm.stderr.splitlines()
                if line.startswith("import time:")}
    assert "learn.pipeline" in imported
    assert not {"anthropic", "sklearn", "onnxruntime"} & imported


def test_runs_showing_everything_again_reach_the_warm_path(tmp_path: Path) -> None:
    # `--all` shows every proposal again, which bumped each one's shown count and time:
    # the store never matched what the run found, and every run over nothing new asked
    # the model to check coverage again (crash audit 61 F4). Neither is read by a run.
    root = tmp_path / "corpus"
    fake = _fake(root)
    every = [*ARGS, "--all"]
    with fake:
        env = _env(root, fake)
        # The first run judges, the second reuses the verdicts (and says so), the third
        # finds the store as the second left it and leaves it so: the fourth is warm.
        runs = [json.loads(_learn(every, env).stdout) for _ in range(3)]
        before = len(fake.requests)
        fourth = _learn(every, env)
        assert fourth.returncode == 0, fourth.stderr
        assert [r.tool_name for r in fake.requests[before:]] == []
    runs.append(json.loads(fourth.stdout))
    shown = [[(p["label"], p["sessions"]) for p in r["proposals"]] for r in runs]
    assert shown[0] and all(s == shown[0] for s in shown)
