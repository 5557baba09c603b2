"""`[mining] since` and `[mining] limit` decide which sessions `learn run` reads when the
command line does not; a flag given wins; a value that cannot be read is the config's
usage error (exit 2).

Both keys were accepted and never read: a person who set `since = "90d"` still had
every run read 30 days. Over the demo corpus (eight sessions, last active from
2026-11-03 to 2026-11-27), offline runs (no model) count the sessions they read.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from _learn_cli import learn, learn_env

from evals.corpora import demo
from learn.commands._scope import configured_scope
from learn.config import ConfigError

RUN = ["run", "--all-projects", "--offline", "--embedder", "tfidf", "--json"]


@pytest.fixture
def home(tmp_path: Path) -> tuple[Path, dict[str, str], Path]:
    demo.build(tmp_path / "corpus")
    config = tmp_path / "config"
    config.mkdir()
    env = learn_env(HOME=str(tmp_path / "corpus" / "home"), LEARN_DATA_DIR=str(tmp_path / "data"),
                    LEARN_CACHE_DIR=str(tmp_path / "cache"), LEARN_CONFIG_DIR=str(config))
    return tmp_path / "corpus" / "home", env, config / "config.toml"


def sessions_read(home: Path, env: dict[str, str], *flags: str) -> int:
    done = learn(*RUN, *flags, cwd=home, env=env)
    assert done.returncode == 0, done.stderr
    return int(json.loads(done.stdout)["usage"]["sessions_seen"])


def test_config_since_and_limit_decide_what_a_run_reads_and_flags_win(
        home: tuple[Path, dict[str, str], Path]) -> None:
    where, env, config = home
    config.write_text('[mining]\nsince = "2026-11-01"\n', encoding="utf-8")
    assert sessions_read(where, env) == 8
    config.write_text('[mining]\nsince = "2026-11-20"\n', encoding="utf-8")
    assert sessions_read(where, env) == 3  # 11-21, 11-25, 11-27
    assert sessions_read(where, env, "--since", "2026-11-01") == 8  # the flag wins
    config.write_text('[mining]\nsince = "2026-11-01"\nlimit = 2\n', encoding="utf-8")
    assert sessions_read(where, env) == 2
    assert sessions_read(where, env, "--limit", "5") == 5  # the flag wins
    # Each key on its own: the config's limit with the command line's since.
    assert sessions_read(where, env, "--since", "2026-11-20") == 2


def test_the_plan_reads_the_same_sessions_as_the_run(
        home: tuple[Path, dict[str, str], Path]) -> None:
    where, env, config = home
    config.write_text('[mining]\nsince = "2026-11-20"\n', encoding="utf-8")
    done = learn("plan", "--all-projects", "--json", cwd=where, env=env)
    assert done.returncode == 0, done.stderr
    assert len(json.loads(done.stdout)["to_mine"]) == 3


@pytest.mark.parametrize(("toml", "said"), [
    ('since = "banana"', "mining.since: 'banana' cannot be read"),
    ('since = "2999-01-01"', "mining.since: '2999-01-01' is in the future"),
    ("limit = 0", "mining.limit"),
])
def test_an_unreadable_since_or_limit_in_the_config_is_a_usage_error(
        home: tuple[Path, dict[str, str], Path], toml: str, said: str) -> None:
    where, env, config = home
    config.write_text(f"[mining]\n{toml}\n", encoding="utf-8")
    done = learn(*RUN, cwd=where, env=env)
    assert done.returncode == 2, done.stderr
    line = done.stderr.strip()
    assert line.startswith("learn run: invalid config:") and said in line, line
    assert "Traceback" not in done.stderr
    assert done.stdout == ""


def test_the_config_reads_since_as_the_flag_does(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(tmp_path))
    path = tmp_path / "config.toml"
    for ok in ('""', '"30d"', '"12h"', '"2w"', '"2026-11-01"'):
        path.write_text(f"[mining]\nsince = {ok}\nlimit = 4\n", encoding="utf-8")
        assert configured_scope() == (json.loads(ok), 4)
    path.write_text('[mining]\nsince = "30 days"\n', encoding="utf-8")
    with pytest.raises(ConfigError, match=r"mining.since: '30 days' cannot be read"):
        configured_scope()
    path.unlink()
    assert configured_scope() == ("30d", None)  # no config file: the defaults


def test_a_since_on_the_command_line_is_not_held_up_by_the_config_s(
        home: tuple[Path, dict[str, str], Path]) -> None:
    """The flag wins: a config `since` it overrides is not read, so a scheduled job that
    passes `--since` (and no `--limit`) runs whatever the config says of it."""
    where, env, config = home
    config.write_text('[mining]\nsince = "1 month"\n', encoding="utf-8")
    args = [a for a in RUN if not a.startswith("--since")]
    done = learn(*args, "--since", "3650d", cwd=where, env=env)
    assert done.returncode == 0, done.stderr
    done = learn(*args, cwd=where, env=env)  # without the flag the config's is read
    assert done.returncode == 2 and "mining.since: '1 month' cannot be read" in done.stderr
