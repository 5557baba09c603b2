"""`learn doctor`'s backend lines: can the configured backend take a call, and the `claude` on PATH.

The same check `learn run` makes before it starts (learn.models.preflight): the
endpoint answers and takes the key (api.anthropic.com included), `claude` is
recent enough and logged in.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from learn.check import Check
from learn.models.preflight import Get, LoginCheck, Readiness


def check_backend(config: Any = None, *, env: dict[str, str] | None = None,
                  which: Callable[[str], str | None] = shutil.which,
                  get: Get | None = None, login: LoginCheck | None = None,
                  probe: Callable[[str], Any] | None = None) -> Check:
    """Whether the backend the config names can work (learn.models.preflight, the check
    `learn run` makes before it starts), and what `--backend auto` would use."""
    from learn.models.preflight import check_backend_ready

    env = dict(os.environ) if env is None else env
    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    configured = getattr(getattr(config, "backend", None), "name", "anthropic")
    offline = "`learn run --offline` works without a model"
    if configured == "openai":
        ready = _redacted(check_backend_ready("openai", config, env=env, get=get))
        return Check("backend", "ok" if ready.ok else "warn",
                     f"{ready.detail}; configured backend: openai",
                     "" if ready.ok else f"{ready.hint}; {offline}")
    if configured == "replay":
        return Check("backend", "ok", "configured backend: replay (recorded answers, no model)")
    key = bool(env.get("ANTHROPIC_API_KEY"))
    cli = which(binary)
    parts = []
    if key:
        url = env.get("ANTHROPIC_BASE_URL")
        parts.append("ANTHROPIC_API_KEY is set" + (f" (endpoint {url})" if url else ""))
    if cli:
        parts.append(f"`{binary}` at {cli}")
    if not parts:
        return Check("backend", "warn", f"no ANTHROPIC_API_KEY and no `{binary}` on PATH",
                     "export ANTHROPIC_API_KEY, or install Claude Code and use --backend "
                     f"claude-cli; {offline}")
    detail = "; ".join(parts) + f"; configured backend: {configured}"
    if configured == "anthropic" and not key:
        return Check("backend", "warn", detail,
                     "the configured backend needs ANTHROPIC_API_KEY: run with --backend "
                     "claude-cli (or auto), or set [backend] name = \"claude-cli\" in config")
    if configured == "claude-cli" and not cli:
        return Check("backend", "warn", detail,
                     f"the configured backend needs `{binary}` on PATH; use --backend anthropic")
    ready = _redacted(check_backend_ready(configured, config, env=env, which=which, get=get,
                                          login=login, probe=probe))
    if not ready.ok:
        return Check("backend", "warn", f"{ready.detail}; configured backend: {configured}",
                     f"{ready.hint}; {offline}" if ready.hint else offline)
    return Check("backend", "ok", f"{ready.detail}; configured backend: {configured}")


def backend_not_checked() -> Check:
    """The backend line when the config does not load: no backend is configured, and
    `learn run` stops on the config before it would choose one."""
    return Check("backend", "warn",
                 "not checked: the config does not load, so it names no backend (and "
                 "`learn run` stops on it)",
                 "fix the config (its line above), then run `learn doctor` again")


def _redacted(ready: Readiness) -> Readiness:
    """`ready` with its failure passed through learn's secret redaction: the detail quotes
    the HTTP client's error, which can quote a header (the key)."""
    if ready.ok:
        return ready
    from learn.redaction.redact import redact_message

    return replace(ready, detail=redact_message(ready.detail), hint=redact_message(ready.hint))


def check_claude_cli(config: Any = None, *, which: Callable[[str], str | None] = shutil.which,
                     probe: Callable[[str], Any] | None = None,
                     login: LoginCheck | None = None) -> Check | None:
    """Whether the `claude` on PATH can run learn's calls isolated, and is logged in;
    None when there is none.

    Runs `claude --version`, `claude --help` and `claude auth status` (local, no network).
    """
    from learn.models.preflight import claude_login

    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    found = which(binary)
    if found is None:
        return None
    if probe is None:
        from learn.models.claude_cli import probe as probe_cli

        probe = probe_cli
    support = probe(found)
    if not support.ok:
        return Check("claude", "warn", support.why_not(),
                     "the claude-cli backend refuses to run it; "
                     + ("install the native claude.exe" if support.shim else "update Claude Code")
                     + " or use --backend anthropic")
    version = f"Claude Code {support.version}" if support.version else found
    state = (login or claude_login)(found)
    if state.logged_in is False:
        return Check("claude", "warn", f"{version}: not logged in (`{binary} auth status`)",
                     f"run `{binary}` and type /login (or `{binary} auth login`); until then "
                     "--backend claude-cli (and auto without a key) cannot call a model, and "
                     "the SessionEnd hook's mining fails")
    logged = f", logged in ({state.method})" if state.logged_in and state.method else ""
    return Check("claude", "ok",
                 f"{version}{logged}: learn runs it with no tools, hooks or MCP servers")
