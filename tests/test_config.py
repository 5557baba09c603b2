"""The config file read and checked: every setting's type and bounds, a clear error
naming the place, and no pydantic on the way (every `learn show` reads it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.config import Config, ConfigError, config_json, load_config

ROOT = Path(__file__).resolve().parent.parent


def _load(tmp_path: Path, toml: str, **env: str) -> Config:
    path = tmp_path / "config.toml"
    path.write_text(toml)
    return load_config(path, env=env)


def test_a_file_sets_what_it_names_and_leaves_the_rest_default(tmp_path: Path) -> None:
    config = _load(tmp_path, '[backend]\nname = "openai"\ncache_dir = "/answers"\nretry_seconds = 2\n'
                             '[team]\nprojects = ["/code/shop", "/code/web"]\n'
                             '[mining]\nconcurrency = "6"\n')
    assert config.backend.name == "openai"
    assert config.backend.cache_dir == Path("/answers")
    # A TOML integer for a float setting, and a number written as a string, are read
    # as pydantic read them (its lax mode).
    assert config.backend.retry_seconds == 2.0 and isinstance(config.backend.retry_seconds, float)
    assert config.mining.concurrency == 6
    assert config.team.projects == [Path("/code/shop"), Path("/code/web")]
    assert config.thresholds == Config().thresholds
    assert config != Config()


@pytest.mark.parametrize(("toml", "said"), [
    ("[thresholds]\ndirective = 0\n", "thresholds.directive: Expected `int` >= 1"),
    ("[mining]\nconcurrency = 33\n", "mining.concurrency: Expected `int` <= 32"),
    ("[backend]\nretry_seconds = 0\n", "backend.retry_seconds: Expected `float` > 0"),
    ('[backend]\nname = "anthopic"\n', "backend.name: Invalid enum value 'anthopic' (one of: "
                                       "'anthropic', 'claude-cli', 'openai', 'replay')"),
    ('[mining]\nbatch = "sometimes"\n', "(one of: 'auto', 'never')"),
    ('[mining]\nconcurrency = "many"\n', "mining.concurrency: Expected `int`, got `str`"),
    ("[team]\nprojects = [3]\n", "team.projects.0: Expected a path, got 3"),
    ("[models]\nmine = 4\n", "models.mine: Expected `str`, got `int`"),
    ("[model]\nmine = 'x'\n", "unknown section [model] (did you mean [models]?)"),
    ("[thresholds]\ndirectve = 3\n", "unknown key 'directve' in [thresholds] (did you mean directive?)"),
    ("[backend.extra]\nx = 1\n", "unknown key 'extra' in [backend] (keys: name, base_url,"),
    ("apply = 3\n", "apply: Expected `object`, got `int`"),
])
def test_a_bad_setting_is_an_error_that_names_it(tmp_path: Path, toml: str, said: str) -> None:
    with pytest.raises(ConfigError) as raised:
        _load(tmp_path, toml)
    assert str(raised.value).startswith(f"{tmp_path / 'config.toml'}: ")
    assert said in str(raised.value)


@pytest.mark.parametrize(("value", "read"), [
    ('"yes"', True), ('"YES"', True), ('"on"', True), ('"y"', True), ('"t"', True),
    ('"no"', False), ('"Off"', False), ('"n"', False), ('"f"', False), ("1.0", True),
    ("0.0", False), ('"true"', True), ("1", True), ("false", False),
])
def test_a_bool_is_read_in_every_spelling_the_config_took_before(
        tmp_path: Path, value: str, read: bool) -> None:
    # Until 2026-12-03 pydantic read the config, and its lax bool took "yes", "on", ...:
    # such a config must not stop `learn run` after an upgrade.
    assert _load(tmp_path, f"[team]\nshow_name = {value}\n").team.show_name is read


@pytest.mark.parametrize("value", ['"maybe"', '" yes"', '""', "2", "0.5"])
def test_a_bool_in_no_spelling_it_ever_took_is_still_an_error(tmp_path: Path, value: str) -> None:
    with pytest.raises(ConfigError, match=r"team\.show_name: Expected `bool`"):
        _load(tmp_path, f"[team]\nshow_name = {value}\n")


def test_an_override_is_checked_as_the_file_is(tmp_path: Path) -> None:
    config = _load(tmp_path, "", LEARN_BACKEND="claude-cli", LEARN_CONCURRENCY="8",
                   LEARN_MODEL="m-1", LEARN_MODEL_JUDGE="m-2", LEARN_DATABASE_URL="postgresql://a@b/c")
    assert (config.backend.name, config.mining.concurrency) == ("claude-cli", 8)
    assert (config.models.mine, config.models.judge) == ("m-1", "m-2")
    assert config.store.database_url == "postgresql://a@b/c"
    for env, said in ((dict(LEARN_BACKEND="nope"), "backend.name: Invalid enum value 'nope' (one of:"),
                      (dict(LEARN_CONCURRENCY="99"), "mining.concurrency: Expected `int` <= 32"),
                      (dict(LEARN_CONCURRENCY="many"), "invalid literal for int()")):
        with pytest.raises(ConfigError, match=r"^environment override: ") as raised:
            _load(tmp_path, "", **env)
        assert said in str(raised.value)


def test_the_settings_as_text_change_with_each_setting(tmp_path: Path) -> None:
    # `learn run` tells a run with nothing new by this text (learn.pipeline.warm).
    base = config_json(Config())
    assert config_json(_load(tmp_path, "")) == base
    for toml in ('[backend]\ncache_dir = "/a"\n', "[team]\nprojects = ['/a']\n",
                 "[thresholds]\nfix = 3\n", "[models]\nname_batch = 2\n"):
        assert config_json(_load(tmp_path, toml)) != base


def test_reading_a_config_file_imports_no_pydantic(tmp_path: Path) -> None:
    # Every `learn show` and listing of a person with a config file reads it:
    # pydantic's import and models were ~0.1 s of each (issue 32).
    (tmp_path / "config.toml").write_text('[backend]\nname = "openai"\n[mining]\nsince = "60d"\n')
    code = ("import sys\nfrom learn.store.target import default_store_target\n"
            "from learn.index.indexed import min_signal_confidence\n"
            "from learn.pipeline.warm import config_key\n"
            "default_store_target(); min_signal_confidence(); config_key(None)\n"
            "from learn.config import load_config\nprint(load_config().backend.name)\n"
            "print('pydantic' in sys.modules)")
    env = {**os.environ, "LEARN_CONFIG_DIR": str(tmp_path), "LEARN_DATA_DIR": str(tmp_path / "data")}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT,
                         env=env, check=True).stdout.split()
    assert out == ["openai", "False"]
