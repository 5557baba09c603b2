"""The real agent binaries the end-to-end tests drive, installed from npm by .ci scripts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]


def real_binary(name: str, env: str, installed: Path, install: str) -> Path:
    """The binary from `$<env>_BIN` or `installed`; skip when missing, fail instead when
    `$LEARN_REQUIRE_<...>` (the CI) asks for it."""
    override = os.environ.get(f"{env}_BIN")
    path = Path(override) if override else installed
    if not path.exists():
        require = env.replace("LEARN_", "LEARN_REQUIRE_", 1)
        if os.environ.get(require):
            pytest.fail(f"{require} is set but {path} is missing")
        pytest.skip(f"the real {name} is not installed ({install})")
    return path
