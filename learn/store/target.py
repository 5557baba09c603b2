"""Where the store is: the configured database URL, else data_dir()/learn.db.

Apart from learn.store.runs (which imports the run result types) so that the
session index can find its file without them (a warm `learn sessions`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path

from learn.config_defaults import CONFIG_FILENAME, defaults_apply
from learn.paths import config_dir, data_dir

STORE_FILENAME = "learn.db"
_SCHEME = re.compile(r"[A-Za-z][A-Za-z0-9+.-]{0,31}")


def default_store_path() -> Path:
    return data_dir() / STORE_FILENAME


def default_store_target() -> Path | str:
    """Where the store is: the config's `[store] database_url` (or LEARN_DATABASE_URL),
    a `postgresql://` URL, when set; else the SQLite file data_dir()/learn.db.

    Raises StoreURLError (a ConfigError) when the URL set is not PostgreSQL's."""
    url = _configured_url()
    if not url:
        return default_store_path()
    _check_database_url(url)
    return url


def _check_database_url(url: str) -> None:
    """A PostgreSQL URL, or StoreURLError naming where it was set and what is accepted.

    Anything else was opened as a SQLite path: `mysql://u:p@h/d` silently made the
    directories `mysql:/u:p@h` and a store file `d` in the working directory. The
    message names the scheme, not the URL, which can hold a password."""
    from learn.config import StoreURLError
    from learn.store.postgres import URL_SCHEMES

    if url.startswith(URL_SCHEMES):
        return
    where = ("LEARN_DATABASE_URL" if os.environ.get("LEARN_DATABASE_URL")
             else f"[store] database_url in {config_dir() / CONFIG_FILENAME}")
    scheme, sep, _ = url.partition("://")
    # Only a scheme as RFC 3986 spells one is quoted: `u:pw@host://…` has a password there.
    what = f"a {scheme}:// URL" if sep and _SCHEME.fullmatch(scheme) else "not a URL"
    accepted = " or ".join(URL_SCHEMES)
    raise StoreURLError(f"{where} is {what}: learn's store is PostgreSQL ({accepted}), or "
                        "the SQLite file in the data dir when it is unset")


def _configured_url() -> str | None:
    """`load_config().store.database_url`, without reading the config when nothing is
    configured (learn.config_defaults)."""
    if defaults_apply():
        return os.environ.get("LEARN_DATABASE_URL") or None
    from learn.config import load_config

    return load_config().store.database_url
