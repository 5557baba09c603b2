"""Where the store is: the configured database URL, else data_dir()/learn.db.

Apart from learn.store.runs (which imports the run result types) so that the
session index can find its file without them (a warm `learn sessions`).
"""

from __future__ import annotations

import os
from pathlib import Path

from learn.paths import config_dir, data_dir

STORE_FILENAME = "learn.db"
CONFIG_FILENAME = "config.toml"  # learn.config.config_path


def default_store_path() -> Path:
    return data_dir() / STORE_FILENAME


def default_store_target() -> Path | str:
    """Where the store is: the config's `[store] database_url` (or LEARN_DATABASE_URL),
    a `postgresql://` URL, when set; else the SQLite file data_dir()/learn.db."""
    url = _configured_url()
    return url if url else default_store_path()


# The environment overrides load_config validates (the others are taken as given).
_CHECKED_OVERRIDES = ("LEARN_BACKEND", "LEARN_CONCURRENCY")


def _configured_url() -> str | None:
    """`load_config().store.database_url`, without pydantic when there is nothing for it
    to read or check: no config file and no override it validates. Loading it was
    ~0.07 s of CPU in every `learn show` and listing (issue 21); with a file, or an
    override to check, the config is loaded (and an invalid one is the same error)."""
    env = os.environ
    if not (config_dir() / CONFIG_FILENAME).exists() and not any(k in env for k in _CHECKED_OVERRIDES):
        return env.get("LEARN_DATABASE_URL") or None
    from learn.config import load_config

    return load_config().store.database_url
