"""The labelled corpora. Each is a function that writes its sessions under a root
(HOME = root/home) and returns its gold."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from evals.corpora import demo, hard, multilingual
from evals.gold import Gold

CORPORA: dict[str, Callable[[Path], Gold]] = {
    "demo": demo.build,
    "hard": hard.build,
    "multilingual": multilingual.build,
}
