"""Where the eval harness (evals/) and the recorded answers (cache/) are, for
`learn demo` and `learn eval`.

In a source checkout they sit beside learn/; an installed learn carries them
inside the package as learn/_bundle/{evals,cache} (setup.py maps them there at
build time). The directory holding both goes on sys.path so `import evals`
finds the harness either way.
"""

from __future__ import annotations

import sys
from pathlib import Path

import click

PACKAGE = Path(__file__).resolve().parent


def _has_harness(root: Path) -> bool:
    return (root / "evals" / "corpora").is_dir() and (root / "cache").is_dir()


def harness_roots() -> tuple[Path, ...]:
    """Where to look, in order: the checkout around learn/, then the bundle in the package."""
    return (PACKAGE.parent, PACKAGE / "_bundle")


def is_bundled(root: Path) -> bool:
    return root == PACKAGE / "_bundle"


def repo_root() -> Path:
    root = next((r for r in harness_roots() if _has_harness(r)), None)
    if root is None:
        raise click.ClickException(
            "this installation of learn has no eval harness (evals/ and cache/); "
            "reinstall it from a checkout (pip install .) or run it from the checkout"
        )
    if str(root) not in sys.path:
        sys.path.insert(0, str(root))
    return root
