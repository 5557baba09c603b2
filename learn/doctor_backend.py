"""`learn doctor`'s backend lines: can the configured backend take a call, and the `claude` on PATH.

The same check `learn run` makes before it starts (learn.models.preflight).
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from typing import Any

from learn.check import Check


def check_backend(config: Any = None, *, env: dict[str, str] | None = None,
                  which: Callable[[str], str | None] = shutil.which,
                  connect: Callable[[str, int, float], None] | None = None,
                  get: Callable[[str, float], int] | None = None) -> Check:
    """Whether the backend the config names can work (learn.models.preflight, the check
    `learn run` makes before it starts), and what `--backend auto` would use."""
    from learn.models.preflight import check_backend_ready

    env = dict(os.environ) if env is None else env
    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    configured = getattr(getattr(config, "backend", None), "name", "anthropic")
    offline = "`learn run --offline` works without a model"
    if configured == "openai":
        ready = check_backend_ready("openai", config, env=env, get=get)
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
    if configured == "anthropic":
        ready = check_backend_ready("anthropic", config, env=env, connect=connect)
        if not ready.ok:
            return Check("backend", "warn", f"{ready.detail}; configured backend: anthropic",
                         f"{ready.hint}; {offline}")
    return Check("backend", "ok", detail)


def check_claude_cli(config: Any = None, *, which: Callable[[str], str | None] = shutil.which,
                     probe: Callable[[str], Any] | None = None) -> Check | None:
    """Whether the `claude` on PATH can run learn's calls isolated; None when there is none.

    Runs `claude --version` and `claude --help` (local, no network).
    """
    binary = getattr(getattr(config, "backend", None), "claude_binary", None) or "claude"
    found = which(binary)
    if found is None:
        return None
    if probe is None:
        from learn.models.claude_cli import probe as probe_cli

        probe = probe_cli
    support = probe(found)
    if not support.ok:
        return Check("claude", "warn", support.too_old(),
                     "the claude-cli backend refuses to run it; update Claude Code or use "
                     "--backend anthropic")
    version = f"Claude Code {support.version}" if support.version else found
    return Check("claude", "ok", f"{version}: learn runs it with no tools, hooks or MCP servers")
