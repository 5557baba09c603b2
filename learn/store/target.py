"""Where the store is: the configured database URL, else data_dir()/learn.db.

Apart from learn.store.runs (which imports the run result types) so that the
session index can find its file without them (a warm `learn sessions`).
"""

from __future__ import annotations

import os
from pathlib import Path

from learn.config_defaults import defaults_apply
from learn.paths import data_dir

STORE_FILENAME = "learn.db"


def default_store_path() -> Path:
    return data_dir() / STORE_FILENAME


def default_store_target() -> Path | str:
    """Where the store is: the config's `[store] database_url` (or LEARN_DATABASE_URL),
    a `postgresql://` URL, when set; else the SQLite file data_dir()/learn.db."""
    url = _configured_url()
    return url if url else default_store_path()


def _configured_url() -> str | None:
    """`load_config().store.database_url`, without reading the config when nothing is
    configured (learn.config_defaults)."""
    if defaults_apply():
        return os.environ.get("LEARN_DATABASE_URL") or None
    from learn.config import load_config

    return load_config().store.database_url
