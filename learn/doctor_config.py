"""`learn doctor`'s config line: does the config file load, and if not, what to do.

The hint said "fix the key it names" for every config that did not load, also for a
TOML syntax error, which names a line and a column and no key: the hint now says
what the error is about (the line and column of a syntax error, the encoding, the
file's permissions, an environment variable).
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from learn.check import Check


def check_config(path: Path | None = None) -> tuple[Check, Any]:
    """The config file parses (or there is none); returns the Config too, or None."""
    from learn.config import ConfigError, config_path, load_config

    where = path or config_path()
    try:
        config = load_config(where)
    except ConfigError as exc:
        return Check("config", "fail", str(exc), _config_hint(exc, where)), None
    if where.exists():
        return Check("config", "ok", f"{where} parses (backend {config.backend.name})"), config
    return Check("config", "ok", f"no {where}; using the defaults"), config


_TOML_AT = re.compile(r"\(at line (\d+), column (\d+)\)")


def _config_hint(exc: Exception, where: Path) -> str:
    """What to do about a config that does not load. Only a setting's error names a key:
    a TOML syntax error names a line and column ("fix the key it names" named none)."""
    import tomllib

    aside = f"or move {where} aside to use the defaults"
    cause = exc.__cause__
    if isinstance(cause, tomllib.TOMLDecodeError):
        found = _TOML_AT.search(str(cause))
        at = f" at line {found.group(1)}, column {found.group(2)}" if found else ""
        return f"fix the TOML syntax{at} of {where}, {aside}"
    if isinstance(cause, UnicodeDecodeError):
        return f"save {where} as UTF-8, {aside}"
    if isinstance(cause, OSError):
        return f"make {where} readable, {aside}"
    if str(exc).startswith("environment override"):
        return ("fix or unset the LEARN_* variable it names (LEARN_BACKEND, LEARN_CONCURRENCY, "
                "LEARN_IN_FLIGHT, LEARN_REQUESTS_PER_MINUTE)")
    if cause is None and "nested too deep" in str(exc):
        return f"flatten the tables of {where}, {aside}"
    return f"fix the key it names, {aside}"


def check_team(config: Any) -> Check | None:
    """The team database `[team] database_url` names: usable by this learn, or what to
    do about it (learn.store.team_health); None when the config names none (or does not
    load: the config line says so)."""
    url = getattr(getattr(config, "team", None), "database_url", None)
    if not url:
        return None
    from learn.store.postgres import is_database_url

    if not is_database_url(url):
        # A SQLite team file: no roles, protects no one (tests, one machine's experiments).
        path = Path(url).expanduser()
        state = "exists" if path.exists() else "not created yet; `learn share` creates it"
        return Check("team", "ok", f"{path}: a SQLite team file ({state}; no roles, "
                     "for tests and one machine's experiments)")
    from learn.store.team_health import team_health

    health = team_health(url)
    return Check("team", "ok" if health.ok else "fail", health.detail, health.fix)
