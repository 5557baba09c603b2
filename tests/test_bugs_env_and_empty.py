"""A bad LEARN_* override names its variable and value; `learn outcomes` in a folder
with no session says so and exits 0, as `learn digest` does."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.config import ConfigError, load_config

REPO = Path(__file__).resolve().parents[1]


def _env(tmp_path: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_"))}
    env.update(HOME=str(tmp_path / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(tmp_path / "config"),
               PYTHONPATH=str(REPO))
    return env


@pytest.mark.parametrize(("var", "value", "setting"), [
    ("LEARN_IN_FLIGHT", "0", "backend.in_flight"),
    ("LEARN_REQUESTS_PER_MINUTE", "fast", "backend.requests_per_minute"),
    ("LEARN_BACKEND", "nope", "backend.name"),
    ("LEARN_CONCURRENCY", "99", "mining.concurrency"),
    ("LEARN_CONCURRENCY", "many", ""),
])
def test_a_bad_override_names_the_variable_and_its_value(
        tmp_path: Path, var: str, value: str, setting: str) -> None:
    with pytest.raises(ConfigError) as raised:
        load_config(tmp_path / "none.toml", {var: value})
    said = str(raised.value)
    assert said.startswith(f"environment override: {var}={value!r}: {setting}"), said


def test_learn_plan_with_a_bad_in_flight_names_learn_in_flight(tmp_path: Path) -> None:
    (tmp_path / "home").mkdir(exist_ok=True)
    done = subprocess.run([sys.executable, "-m", "learn", "plan"], cwd=tmp_path / "home",
                          env={**_env(tmp_path), "LEARN_IN_FLIGHT": "0"},
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "LEARN_IN_FLIGHT='0'" in done.stderr and "backend.in_flight" in done.stderr


def test_outcomes_in_a_folder_without_sessions_exits_0_as_digest_does(tmp_path: Path) -> None:
    folder = tmp_path / "home" / "code" / "empty"
    folder.mkdir(parents=True)

    def learn(*args: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "learn", *args], cwd=folder,
                              env=_env(tmp_path), capture_output=True, text=True, timeout=120)

    digest, outcomes = learn("digest"), learn("outcomes")
    assert digest.returncode == 0 and "learn reads no session of" in digest.stderr
    assert outcomes.returncode == 0, outcomes.stderr
    assert outcomes.stderr == digest.stderr.replace("learn digest:", "learn outcomes:")
