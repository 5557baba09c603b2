"""Settings read without loading the config when nothing is configured: the same values."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.config import Config, ConfigError, config_path
from learn.config_defaults import CONFIG_FILENAME, DEFAULT_BACKEND, DEFAULT_MIN_SIGNAL_CONFIDENCE
from learn.index.indexed import min_signal_confidence
from learn.store.target import default_store_target

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    for name in ("LEARN_DATABASE_URL", "LEARN_BACKEND", "LEARN_CONCURRENCY"):
        monkeypatch.delenv(name, raising=False)
    (tmp_path / "config").mkdir()
    return tmp_path


def test_the_file_looked_for_and_the_default_are_the_configs(dirs: Path) -> None:
    assert config_path() == dirs / "config" / CONFIG_FILENAME
    assert Config().mining.min_signal_confidence == DEFAULT_MIN_SIGNAL_CONFIDENCE
    assert Config().backend.name == DEFAULT_BACKEND


def test_the_key_of_the_defaults_changes_with_every_override_taken_as_given(
        dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A run with nothing new is told by this key without loading the config:
    # every override load_config takes as given must change it.
    from learn.config import _apply_env
    from learn.config_defaults import defaults_key

    seen = {defaults_key()}
    for name in ("LEARN_OPENAI_BASE_URL", "LEARN_MODEL", "LEARN_MODEL_MINE", "LEARN_MODEL_NAME",
                 "LEARN_MODEL_COVERAGE", "LEARN_MODEL_JUDGE", "LEARN_DATABASE_URL"):
        monkeypatch.setenv(name, "http://x/v1" if "URL" in name else "claude-x")
        assert _apply_env(Config(), dict(os.environ)) != Config()
        assert defaults_key() not in seen
        seen.add(defaults_key())
        monkeypatch.delenv(name)


def test_the_detector_threshold_is_the_default_or_the_files(dirs: Path) -> None:
    assert min_signal_confidence() == DEFAULT_MIN_SIGNAL_CONFIDENCE
    (dirs / "config" / "config.toml").write_text("[mining]\nmin_signal_confidence = 0.5\n")
    assert min_signal_confidence() == 0.5


def test_no_config_file_is_the_local_store_or_the_environments_url(
        dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_store_target() == dirs / "data" / "learn.db"
    monkeypatch.setenv("LEARN_DATABASE_URL", "postgresql://u@h/db")
    assert default_store_target() == "postgresql://u@h/db"
    monkeypatch.setenv("LEARN_DATABASE_URL", "")
    assert default_store_target() == dirs / "data" / "learn.db"


def test_a_config_file_is_read_and_checked(dirs: Path) -> None:
    (dirs / "config" / "config.toml").write_text('[store]\ndatabase_url = "postgresql://a@b/c"\n')
    assert default_store_target() == "postgresql://a@b/c"
    (dirs / "config" / "config.toml").write_text("[store]\ndatabase_ur = 1\n")
    with pytest.raises(ConfigError, match="database_ur"):
        default_store_target()


def test_an_override_the_config_checks_is_still_checked(
        dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_BACKEND", "no-such-backend")
    with pytest.raises(ConfigError):
        default_store_target()
    monkeypatch.setenv("LEARN_BACKEND", "anthropic")
    monkeypatch.setenv("LEARN_CONCURRENCY", "many")
    with pytest.raises(ConfigError):
        default_store_target()


def test_without_a_config_file_pydantic_is_not_imported(dirs: Path) -> None:
    code = ("import sys\nfrom learn.store.target import default_store_target\n"
            "from learn.index.indexed import min_signal_confidence\n"
            "print(default_store_target())\nprint(min_signal_confidence())\n"
            "print('pydantic' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=dict(os.environ), check=True).stdout.split()
    assert out == [str(dirs / "data" / "learn.db"), "0.75", "False"]
