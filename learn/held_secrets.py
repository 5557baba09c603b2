"""The credentials learn itself holds, redacted by their value whatever their shape.

Redaction (learn.redaction.redact) knows a secret by its shape: `sk-ant-…`, a URL's
password, `API_KEY=…`. The key learn calls its model endpoint with needs no guessing:
learn has it. A proxy's key of no vendor's shape (`proxy-7f3a9c2e1b`) matched no rule,
so an endpoint that echoed it in a 401 put it whole on the terminal, in hook.log, in
the queue and in the run's record. `held_secrets` is the one place that says which
values those are; `redact_held` replaces each wherever it appears, before the shape
rules run (learn.redaction.redact.redact_message), at every edge where learn writes about
a failure, and in every request body (learn.models.base.ModelRequest).

Standard library, learn.paths and the config file's name only: the model backends sit
above this module and call it for every request.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

from learn.config_defaults import CONFIG_FILENAME
from learn.paths import config_dir

# Shorter values are not replaced: a 4-character password would take every "test"
# or "1234" out of a log line and an error, and a value that short is found by
# trying anyway. A real API key is 20+ characters; 6 keeps a short database
# password ("hunter2") and any proxy token.
MIN_HELD_CHARS: Final = 6

# The endpoint's credentials: what the anthropic SDK reads (api key, or a bearer
# token for a gateway) and what the openai backend sends (learn.models.openai_backend).
_KEY_VARS: Final = (
    ("ANTHROPIC_API_KEY", "api-key"),
    ("ANTHROPIC_AUTH_TOKEN", "auth-token"),
    ("OPENAI_API_KEY", "api-key"),
)
# URLs whose password learn holds: the endpoints' (a proxy's basic auth) and the store's.
_ENDPOINT_URL_VARS: Final = ("ANTHROPIC_BASE_URL", "LEARN_OPENAI_BASE_URL")
_STORE_URL_VARS: Final = ("LEARN_DATABASE_URL",)
# The same URLs in the config file: (section, key, whether it is an endpoint's).
_CONFIG_URLS: Final = (
    ("backend", "base_url", True),
    ("backend", "openai_base_url", True),
    ("store", "database_url", False),
    ("team", "database_url", False),
)


@dataclass(frozen=True, slots=True)
class HeldSecret:
    value: str
    kind: str  # the marker's kind: api-key, auth-token, password
    # Used to call the model endpoint. Only these are taken out of request bodies:
    # a store password that is an everyday word ("postgres") would otherwise take
    # the word out of every transcript that mentions it, on its way to the model.
    endpoint: bool


def held_secrets(env: Mapping[str, str] | None = None,
                 config_file: Path | None = None) -> tuple[HeldSecret, ...]:
    """The credentials learn holds in this process (environment and config file), each
    at least MIN_HELD_CHARS long, longest first (a value holding another goes whole)."""
    env = os.environ if env is None else env
    found: dict[str, HeldSecret] = {}

    def add(value: str, kind: str, endpoint: bool) -> None:
        value = value.strip()  # a key pasted with its "\r" is quoted without it too
        if len(value) < MIN_HELD_CHARS:
            return
        known = found.get(value)
        found[value] = HeldSecret(value, kind, endpoint or (known is not None and known.endpoint))

    for name, kind in _KEY_VARS:
        add(env.get(name, ""), kind, True)
    urls = [(env.get(name, ""), True) for name in _ENDPOINT_URL_VARS]
    urls += [(env.get(name, ""), False) for name in _STORE_URL_VARS]
    urls += _config_urls(config_file or config_dir() / CONFIG_FILENAME)
    for url, endpoint in urls:
        for password in _url_passwords(url):
            add(password, "password", endpoint)
    return tuple(sorted(found.values(), key=lambda s: -len(s.value)))


def redact_held(text: str, held: tuple[HeldSecret, ...] | None = None) -> str:
    """`text` with each held secret replaced by its marker, wherever it appears."""
    for secret in held_secrets() if held is None else held:
        if secret.value in text:
            text = text.replace(secret.value, _marker(secret.kind))
    return text


def _marker(kind: str) -> str:
    # learn.redaction.secret_values.marker's shape (that module sits above this one):
    # the shape rules that run after leave it alone, and a reader sees one marker.
    return f"[REDACTED:{kind}]"


def _url_passwords(url: str) -> tuple[str, ...]:
    """The password in `url`, as written and percent-decoded (an error may quote either)."""
    if "@" not in url:
        return ()
    try:
        password = urlsplit(url.strip()).password
    except ValueError:  # a malformed URL: the store or the backend says so
        return ()
    if not password:
        return ()
    return (password, unquote(password))


# The config file's URLs and the (path, mtime_ns, size) they were read at: every
# request body asks, and a TOML parse per request would be paid for a file that does
# not change. One tuple, replaced whole: request bodies are built on several threads.
_config_seen: tuple[tuple[str, int, int], tuple[tuple[str, bool], ...]] | None = None


def _config_urls(path: Path) -> list[tuple[str, bool]]:
    global _config_seen
    try:
        st = path.stat()
    except OSError:
        return []
    key = (str(path), st.st_mtime_ns, st.st_size)
    seen = _config_seen
    if seen is None or seen[0] != key:
        seen = _config_seen = (key, _read_config_urls(path))
    return list(seen[1])


def _read_config_urls(path: Path) -> tuple[tuple[str, bool], ...]:
    import tomllib

    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, RecursionError, tomllib.TOMLDecodeError):
        return ()  # learn.config reports an unreadable file; nothing here to hold
    urls: list[tuple[str, bool]] = []
    for section, key, endpoint in _CONFIG_URLS:
        table = data.get(section)
        value = table.get(key) if isinstance(table, dict) else None
        if isinstance(value, str):
            urls.append((value, endpoint))
    return tuple(urls)
