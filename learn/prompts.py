"""Versioned prompt files.

Prompts live in the repository's top-level `prompts/` directory as
`<step>.v<N>.md` and ship inside the package as `learn/_prompts/` (the build
copies them; see setup). The version is part of the cache and verdict keys, so
editing a prompt's meaning means adding a new file with the next version, not
rewriting the old one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

_NAME = re.compile(r"^(?P<step>[a-z_]+)\.v(?P<version>\d+)\.md$")


@dataclass(frozen=True, slots=True)
class Prompt:
    step: str
    version: int
    text: str


def _dirs() -> list[Path]:
    here = Path(__file__).resolve().parent
    return [here / "_prompts", here.parent / "prompts"]


@cache
def load_prompt(step: str) -> Prompt:
    """The newest version of the prompt for `step` (mine, name, coverage, judge)."""
    best: Prompt | None = None
    for directory in _dirs():
        if not directory.is_dir():
            continue
        for path in directory.iterdir():
            m = _NAME.match(path.name)
            if not m or m.group("step") != step:
                continue
            version = int(m.group("version"))
            if best is None or version > best.version:
                best = Prompt(step, version, path.read_text(encoding="utf-8").strip())
        if best is not None:
            return best
    raise FileNotFoundError(f"no prompt file for step {step!r} in {[str(d) for d in _dirs()]}")


def _all_versions() -> dict[str, tuple[str, int]]:
    """Every prompt file's stripped text -> (step, version), over all versions."""
    out: dict[str, tuple[str, int]] = {}
    for directory in _dirs():
        if not directory.is_dir():
            continue
        for path in sorted(directory.iterdir()):
            m = _NAME.match(path.name)
            if m:
                text = path.read_text(encoding="utf-8").strip()
                out.setdefault(text, (m.group("step"), int(m.group("version"))))
    return out


def identify(system: str) -> tuple[str, int] | None:
    """(step, version) of the prompt file whose text `system` is, or None.

    Recordings carry this so a replay can say when the prompts it runs with
    are not the ones its answers were recorded with.
    """
    return _all_versions().get(system.strip())
