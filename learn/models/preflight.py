"""Can the chosen backend work at all? One cheap check before a run starts, and in doctor.

Without it a missing `claude` ran the whole pipeline and printed the same "not
found" line once per session (19 in the measured home) under "failed after
retries", and an openai endpoint with nothing listening spent 54-92 s behind a
progress bar before the first failure. Each check here is local or one short
request: the binary on PATH and its flags (`claude --version` / `--help`), the
key and endpoint in the environment, a GET of the openai server's /models.
"""

from __future__ import annotations

import os
import shutil
import socket
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

# Long enough for a local server busy loading a model to accept the connection,
# short enough that a port with nothing behind it is said at once.
CONNECT_TIMEOUT = 3.0


@dataclass(frozen=True, slots=True)
class Readiness:
    ok: bool
    detail: str
    hint: str = ""

    def line(self) -> str:
        """The one line a command stops with."""
        return f"{self.detail}; fix: {self.hint}" if self.hint else self.detail


def anthropic_base_url(config: Any, env: Mapping[str, str]) -> str | None:
    """The endpoint the anthropic backend calls: ANTHROPIC_BASE_URL, else [backend] base_url."""
    configured = getattr(getattr(config, "backend", None), "base_url", None)
    return env.get("ANTHROPIC_BASE_URL") or configured or None


def check_backend_ready(
    name: str,
    config: Any,
    *,
    env: Mapping[str, str] | None = None,
    which: Callable[[str], str | None] = shutil.which,
    probe: Callable[[str], Any] | None = None,
    connect: Callable[[str, int, float], None] | None = None,
    get: Callable[[str, float], int] | None = None,
) -> Readiness:
    """Whether backend `name` can take a call now (the hooks are for tests)."""
    env = os.environ if env is None else env
    if name == "anthropic":
        return _anthropic(config, env, connect or _connect)
    if name == "claude-cli":
        return _claude_cli(config, which, probe)
    if name == "openai":
        return _openai(config, get or _get)
    return Readiness(True, f"{name}: nothing to check")


def _anthropic(config: Any, env: Mapping[str, str],
               connect: Callable[[str, int, float], None]) -> Readiness:
    if not env.get("ANTHROPIC_API_KEY"):
        return Readiness(False, "anthropic: ANTHROPIC_API_KEY is not set",
                         "export ANTHROPIC_API_KEY=sk-ant-…, or use --backend claude-cli (your "
                         "Claude Code login), or --offline (no model)")
    url = anthropic_base_url(config, env)
    if url is None:
        # api.anthropic.com: not probed, the first call says soon enough and a
        # connection here would be one more request than the run needs.
        return Readiness(True, "anthropic: ANTHROPIC_API_KEY is set")
    return _reachable("anthropic", url, connect,
                      "check ANTHROPIC_BASE_URL / [backend] base_url, or unset it for "
                      "api.anthropic.com")


def _claude_cli(config: Any, which: Callable[[str], str | None],
                probe: Callable[[str], Any] | None) -> Readiness:
    from learn.models.claude_cli import MISSING_BINARY_HINT

    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    found = which(binary)
    if found is None:
        return Readiness(False, f"claude-cli: `{binary}` not found on PATH", MISSING_BINARY_HINT)
    if probe is None:
        from learn.models.claude_cli import probe as probe_cli

        probe = probe_cli
    support = probe(found)
    if not support.ok:
        return Readiness(False, support.too_old())
    version = f"Claude Code {support.version}" if support.version else "claude"
    return Readiness(True, f"claude-cli: {version} at {found}")


def _openai(config: Any, get: Callable[[str, float], int]) -> Readiness:
    from learn.config import BackendConfig

    backend = getattr(config, "backend", None) or BackendConfig()
    base = str(backend.openai_base_url).rstrip("/")
    fix = ("start the server (say `llama-server -m model.gguf --port 8080`), or point "
           "[backend] openai_base_url / LEARN_OPENAI_BASE_URL at it")
    if not _valid(base):
        return Readiness(False, f"openai: {base!r} is not an http(s) URL", fix)
    try:
        status = get(f"{base}/models", CONNECT_TIMEOUT)
    except Exception as exc:  # refused, timed out, DNS: nothing there to call
        return Readiness(False, f"openai: nothing answers at {base} ({_reason(exc)})", fix)
    # Any HTTP answer (even 404 from a server without /models) means a server listens.
    return Readiness(True, f"openai: {base} answers (HTTP {status} for /models)")


def _reachable(what: str, url: str, connect: Callable[[str, int, float], None],
               fix: str) -> Readiness:
    if not _valid(url):
        return Readiness(False, f"{what}: {url!r} is not an http(s) URL", fix)
    parts = urlsplit(url)
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        connect(parts.hostname or "", port, CONNECT_TIMEOUT)
    except OSError as exc:
        return Readiness(False, f"{what}: nothing answers at {url} ({_reason(exc)})", fix)
    return Readiness(True, f"{what}: ANTHROPIC_API_KEY is set (endpoint {url})")


def _valid(url: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.hostname)


def _reason(exc: BaseException) -> str:
    text = str(exc) or type(exc).__name__
    return text.splitlines()[0][:120]


def _connect(host: str, port: int, timeout: float) -> None:
    with socket.create_connection((host, port), timeout=timeout):
        pass


def _get(url: str, timeout: float) -> int:
    import httpx

    return httpx.get(url, timeout=timeout).status_code
