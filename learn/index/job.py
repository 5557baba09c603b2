"""What reading one file for the index is given (`Job`) and what it says when it has no
row (`Unread`): shared by `learn.index.indexed`, which deals the jobs out, and
`learn.index.reading`, which does them, so that neither imports the other at its top."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

if TYPE_CHECKING:
    from learn.transcripts.files.heads import Provider


class Job(msgspec.Struct, frozen=True):
    path: Path
    provider: Provider  # discovery's: a Claude Code or Codex file is read as one (read_session)
    fingerprints: Sequence[str]  # a replay.Fingerprints: its scaffold travels with it
    aside_paths: tuple[Path, ...]
    min_confidence: float
    version: str
    context: str
    views: bool  # also the redacted view, detectors and digest (a run), else the summary only


class Unread(msgspec.Struct, frozen=True):
    """Why `read_row` has no row for a file: the detail of its "unreadable" skip."""

    detail: str
