"""Backend by name, for the CLI's `--backend` flag.

Each backend module is imported only when chosen: the Anthropic one pulls in
the SDK (2+ s), and `learn --help` or a replay-only eval must not pay for it.
"""

from __future__ import annotations

from pathlib import Path

from learn.models.base import Backend
from learn.models.ratelimit import RateLimiter

BACKEND_NAMES: tuple[str, ...] = ("anthropic", "claude-cli", "openai", "replay")


def default_replay_dir() -> Path:
    from learn.paths import cache_dir

    return cache_dir() / "replay"


def get_backend(
    name: str,
    *,
    cache_dir: Path | None = None,
    record: bool = False,
    base_url: str | None = None,
    api_key: str | None = None,
    model: str | None = None,
    binary: str = "claude",
    timeout: float | None = None,
    max_attempts: int | None = None,
    retry_seconds: float | None = None,
    limiter: RateLimiter | None = None,
) -> Backend:
    """Build the backend called `name`.

    `record=True` wraps a real backend so every answer is also written under
    `cache_dir` (default: `<cache dir>/replay`), where the `replay` backend
    finds it later. `model` is only used by `openai` (the model the server
    runs); the others take the model from each request.
    """
    if name not in BACKEND_NAMES:
        raise ValueError(f"unknown backend {name!r}; choose one of: {', '.join(BACKEND_NAMES)}")
    replay_dir = cache_dir if cache_dir is not None else default_replay_dir()
    if name == "replay":
        if record:
            raise ValueError("--record needs a real backend to record from, not replay")
        from learn.models.replay import ReplayBackend

        return ReplayBackend(replay_dir)

    backend: Backend
    if name == "anthropic":
        from learn.models.anthropic_backend import DEFAULT_TIMEOUT, AnthropicBackend

        backend = AnthropicBackend(
            api_key=api_key,
            base_url=base_url,
            timeout=timeout if timeout is not None else DEFAULT_TIMEOUT,
            max_attempts=max_attempts,
            retry_seconds=retry_seconds,
            limiter=limiter,
        )
    elif name == "claude-cli":
        from learn.models.claude_cli import DEFAULT_TIMEOUT as CLI_TIMEOUT
        from learn.models.claude_cli import ClaudeCliBackend

        backend = ClaudeCliBackend(
            binary, timeout=timeout if timeout is not None else CLI_TIMEOUT, limiter=limiter,
            retry_seconds=retry_seconds,
        )
    else:
        from learn.models.openai_backend import DEFAULT_TIMEOUT as OPENAI_TIMEOUT
        from learn.models.openai_backend import OpenAIBackend

        backend = OpenAIBackend(
            base_url,
            model,
            api_key,
            timeout=timeout if timeout is not None else OPENAI_TIMEOUT,
            max_attempts=max_attempts,
            retry_seconds=retry_seconds,
            limiter=limiter,
        )
    if record:
        from learn.models.replay import RecordingBackend

        return RecordingBackend(backend, replay_dir)
    return backend
