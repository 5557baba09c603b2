"""Shared test setup: every test runs with HOME and learn's directories in a temp dir,
so no test can read or write the developer's real transcripts or data."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

# The store's backend fixtures (store_target over SQLite and PostgreSQL, pg_url).
pytest_plugins = ["_store_backends"]


@pytest.fixture(autouse=True)
def _isolated_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    for var in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "COPILOT_HOME",
                "XDG_DATA_HOME", "XDG_CACHE_HOME",
                "XDG_CONFIG_HOME", "LEARN_DATA_DIR", "LEARN_CACHE_DIR", "LEARN_CONFIG_DIR",
                "ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "ANTHROPIC_BASE_URL", "OPENAI_API_KEY",
                "OPENAI_BASE_URL"):
        monkeypatch.delenv(var, raising=False)
    yield home
