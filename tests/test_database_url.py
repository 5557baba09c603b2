"""A store URL that is not PostgreSQL's is a configuration error, not a SQLite path.

From an audit: `LEARN_DATABASE_URL='mysql://u:p@h/d'` made the directories
`mysql:/u:p@h` and a SQLite store `d` in the working directory, without a word.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from learn.config import ConfigError
from learn.store.postgres import URL_SCHEMES
from learn.store.target import default_store_target

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def dirs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("LEARN_CONFIG_DIR", str(tmp_path / "config"))
    monkeypatch.setenv("LEARN_DATA_DIR", str(tmp_path / "data"))
    monkeypatch.delenv("LEARN_DATABASE_URL", raising=False)
    (tmp_path / "config").mkdir()
    return tmp_path


@pytest.mark.parametrize(("url", "said"), [
    ("mysql://u:p@h/d", "a mysql:// URL"),
    ("sqlite:///tmp/learn.db", "a sqlite:// URL"),
    ("Postgresql://u@h/d", "a Postgresql:// URL"),
    ("u:secret@h/d", "not a URL"),
    ("u:secret@h://d", "not a URL"),  # the part before :// is no scheme, and holds a password
    ("  ", "not a URL"),
])
def test_a_url_that_is_not_postgresql_is_refused_naming_the_setting(
        dirs: Path, monkeypatch: pytest.MonkeyPatch, url: str, said: str) -> None:
    monkeypatch.setenv("LEARN_DATABASE_URL", url)
    with pytest.raises(ConfigError) as raised:
        default_store_target()
    message = str(raised.value)
    assert message.startswith(f"LEARN_DATABASE_URL is {said}: ")
    assert all(scheme in message for scheme in URL_SCHEMES)
    assert "secret" not in message and ":p@" not in message


def test_the_config_files_url_is_refused_naming_the_file(dirs: Path) -> None:
    config = dirs / "config" / "config.toml"
    config.write_text('[store]\ndatabase_url = "mysql://u:p@h/d"\n')
    with pytest.raises(ConfigError, match=r"^\[store\] database_url in .*config\.toml is a mysql:// URL"):
        default_store_target()


@pytest.mark.parametrize("url", ["postgresql://u@h/db", "postgres://u:p@h:5432/db"])
def test_a_postgresql_url_is_the_store(dirs: Path, monkeypatch: pytest.MonkeyPatch, url: str) -> None:
    monkeypatch.setenv("LEARN_DATABASE_URL", url)
    assert default_store_target() == url


def test_unset_or_empty_is_the_sqlite_file_in_the_data_dir(
        dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert default_store_target() == dirs / "data" / "learn.db"
    monkeypatch.setenv("LEARN_DATABASE_URL", "")
    assert default_store_target() == dirs / "data" / "learn.db"
    # With a config file the empty override is ignored as well, and an empty setting
    # there is the SQLite file too.
    (dirs / "config" / "config.toml").write_text('[store]\ndatabase_url = ""\n')
    assert default_store_target() == dirs / "data" / "learn.db"


def test_run_refuses_a_mysql_url_and_creates_nothing(tmp_path: Path) -> None:
    work = tmp_path / "work"
    work.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "LEARN_", "OPENAI_"))}
    env.update(PYTHONPATH=str(REPO), LEARN_DATA_DIR=str(tmp_path / "data"),
               LEARN_DATABASE_URL="mysql://u:p@h/d")
    done = subprocess.run([sys.executable, "-m", "learn", "run", "--all-projects", "--since",
                           "2026-01-01", "--yes", "--offline"], env=env, cwd=work,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert "Traceback" not in done.stderr
    assert "LEARN_DATABASE_URL is a mysql:// URL" in done.stderr
    assert ":p@" not in done.stderr
    assert list(work.iterdir()) == []
    assert not (tmp_path / "data" / "learn.db").exists()


def test_doctor_says_the_store_url_is_unusable(dirs: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from learn.doctor import run_checks

    monkeypatch.setenv("LEARN_DATABASE_URL", "mysql://u:secretpw@h/d")
    store = next(c for c in run_checks() if c.name == "store")
    assert store.status == "fail"
    assert "LEARN_DATABASE_URL is a mysql:// URL" in store.detail
    assert "secretpw" not in store.detail
    assert not (dirs / "data").exists() or not list((dirs / "data").iterdir())
