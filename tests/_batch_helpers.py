"""The demo corpus behind the fake batch server, for the batch and label tests."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from fakes.anthropic_batches import FakeBatchServer

from evals.corpora import demo
from evals.oracle import GoldOracle
from learn.models.anthropic_backend import AnthropicBackend
from learn.models.ratelimit import RateLimiter
from learn.models.retry import RetryPolicy


def _use(root: Path, fake: FakeBatchServer, monkeypatch: pytest.MonkeyPatch) -> None:
    for name in list(os.environ):
        if name.startswith(("ANTHROPIC_", "LEARN_")):
            monkeypatch.delenv(name, raising=False)
    for name, value in {
        "HOME": str(root / "home"), "LEARN_DATA_DIR": str(root / "data"),
        "LEARN_CACHE_DIR": str(root / "cache"), "LEARN_CONFIG_DIR": str(root / "config"),
        "ANTHROPIC_API_KEY": "test-key", "ANTHROPIC_BASE_URL": fake.base_url,
        "LEARN_BATCH_POLL": "0.02",
    }.items():
        monkeypatch.setenv(name, value)


def _server(root: Path, **kwargs: Any) -> FakeBatchServer:
    oracle = GoldOracle(demo.build(root))
    return FakeBatchServer(responder=lambda r: oracle.answer(r.tool_name, r.user_text), **kwargs)


def _backend(*, budget: float = 600.0) -> AnthropicBackend:
    # Waits are recorded, not slept: the budget runs on the waits (RetryPolicy.spent).
    return AnthropicBackend(limiter=RateLimiter(requests_per_minute=None),
                            retry=RetryPolicy(budget_seconds=budget, sleep=lambda s: None))
