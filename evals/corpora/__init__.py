"""The labelled corpora. Each is a function that writes its sessions under a root
(HOME = root/home) and returns its gold.

`CORPORA` are replayed from the recordings in cache/ and run under the noisy
model; `NOISY_ONLY` have no recordings (adding some would change nothing the
demo sends) and run under the noisy model alone."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from evals.corpora import adversarial, demo, hard, multilingual
from evals.gold import Gold

CORPORA: dict[str, Callable[[Path], Gold]] = {
    "demo": demo.build,
    "hard": hard.build,
    "multilingual": multilingual.build,
}
NOISY_ONLY: dict[str, Callable[[Path], Gold]] = {
    "adversarial": adversarial.build,
}
ALL_CORPORA: dict[str, Callable[[Path], Gold]] = {**CORPORA, **NOISY_ONLY}
