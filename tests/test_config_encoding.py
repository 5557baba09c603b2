"""A config file learn cannot decode is a config error naming the file, never a traceback.

TOML is UTF-8 by definition. An editor that saves as Latin-1 writes "café" with a
bare \\xe9 byte, and every command (`learn doctor` included, the one meant to say
what is wrong) exited with a UnicodeDecodeError traceback. The same for a value
nested past tomllib's recursion limit (a few hundred levels).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.config import ConfigError, load_config

REPO = Path(__file__).resolve().parents[1]
LATIN1 = b'[models]\nmine = "caf\xe9"\n'


def test_a_config_that_is_not_utf8_names_the_file_and_says_it_must_be(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(LATIN1)
    with pytest.raises(ConfigError) as raised:
        load_config(path, env={})
    said = str(raised.value)
    assert said.startswith(f"{path}: not valid UTF-8")
    assert "0xe9" in said and "must be saved as UTF-8" in said


def test_a_config_nested_too_deep_is_a_config_error(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text("x = " + "[" * 3000 + "]" * 3000 + "\n")
    with pytest.raises(ConfigError, match="nested too deep"):
        load_config(path, env={})


def test_the_same_file_saved_as_utf8_is_read(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_bytes(LATIN1.decode("latin-1").encode("utf-8"))
    assert load_config(path, env={}).models.mine == "café"


def _learn(home: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("ANTHROPIC_", "LEARN_", "XDG_", "CLAUDE_", "CODEX_"))}
    env.update(HOME=str(home), PYTHONPATH=str(REPO))
    project = home / "project"
    project.mkdir(parents=True, exist_ok=True)
    return subprocess.run([sys.executable, "-m", "learn", *args], env=env, cwd=project,
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)


def test_every_command_says_so_in_one_line_and_doctor_fails_the_check(tmp_path: Path) -> None:
    config = tmp_path / ".config" / "learn" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_bytes(LATIN1)
    done = _learn(tmp_path, "sessions")
    assert done.returncode == 2 and "Traceback" not in done.stderr, done.stderr
    [line] = done.stderr.splitlines()
    assert line.startswith(f"learn sessions: invalid config: {config}: not valid UTF-8")
    doctor = _learn(tmp_path, "doctor")
    assert "Traceback" not in doctor.stderr, doctor.stderr
    assert f"config       {config}: not valid UTF-8" in doctor.stdout
