"""Views of session files on disk: a session's aside files, and many files viewed in order.

Split from `session` (the builder of one view) so that it stays one idea.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from learn.transcripts.view.session import build_session

if TYPE_CHECKING:
    from learn.transcripts.files.discover import SessionFile
    from learn.transcripts.models import Transcript
    from learn.transcripts.view.model import Session
    from learn.transcripts.view.replay_files import FingerprintCache


def read_asides(paths: Sequence[Path]) -> list[Transcript]:
    """Parse a session's `agent-aside_question-*.jsonl` files; an unreadable one is left out."""
    from learn.transcripts.parser import parse

    out: list[Transcript] = []
    for path in paths:
        try:
            out.append(parse(path))
        except OSError:
            continue
    return out


def view_files(
    files: Sequence[SessionFile], *, fingerprints: FingerprintCache | None = None
) -> list[tuple[SessionFile, Session]]:
    """Parse (in parallel, via `parser.stream`) and view `files`, in the order given.

    Fingerprints are per project, because project slash commands differ. A file
    that cannot be read (pruned between discovery and now) is left out.
    """
    from learn.transcripts.parser import stream
    from learn.transcripts.view.replay_files import (
        FingerprintCache,
    )
    from learn.windows_names import not_opened

    cache = fingerprints if fingerprints is not None else FingerprintCache()
    by_path = {f.path: f for f in files}
    views: dict[Path, Session] = {}
    for transcript in stream(f.path for f in files):
        file = by_path.get(transcript.path) if transcript.path is not None else None
        if file is None:
            continue
        views[file.path] = build_session(
            transcript,
            # A folder on a share is never looked in for its templates (its server is
            # asked, with the person's login): the user's own templates only.
            fingerprints=cache.for_project(
                None if file.project and not_opened(file.project) is not None
                else file.project),
            size_bytes=file.size,
            subagent_paths=file.subagent_paths,
            asides=read_asides(file.aside_paths),
        )
    return [(f, views[f.path]) for f in files if f.path in views]
