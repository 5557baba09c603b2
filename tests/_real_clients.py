"""The real agent binaries the end-to-end tests drive, installed from npm by .ci scripts."""

from __future__ import annotations

import os
from pathlib import Path

import pytest


def real_binary(installed: Path, override: str, require: str, what: str) -> Path:
    """A real client from the registry: `$override`, else where .ci/install-* put it.
    Missing, the test skips, unless `$require` is set (CI) and it fails."""
    path = Path(os.environ[override]) if os.environ.get(override) else installed
    if not path.exists():
        if os.environ.get(require):
            pytest.fail(f"{require} is set but {path} is missing")
        pytest.skip(f"the real {what} is not installed")
    return path
