"""The source checkout learn runs from, for the commands that need its files
(the demo corpus builder, the eval harness and the recorded answers in cache/)."""

from __future__ import annotations

import sys
from pathlib import Path

import click


def repo_root() -> Path:
    root = Path(__file__).resolve().parents[1]
    if not (root / "evals" / "corpora").is_dir() or not (root / "cache").is_dir():
        raise click.ClickException(
            "this command needs learn's source checkout (evals/ and cache/); "
            "clone the repository and run it from there"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return root
