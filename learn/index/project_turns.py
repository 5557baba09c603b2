"""The other sessions of a project as `learn show` judges one session against them:
from the session index where an entry is fresh (its redacted human turns,
`indexed_turns`), else from the file's head. A module of its own so that the
index's encoding (`indexed_turns`) does not import the index reader
(`indexed`) that imports it."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

import msgspec

from learn.index.indexed_turns import light_entry, turn_texts, turns_view
from learn.transcripts.templates.entries import Entry
from learn.transcripts.view.model import Session

if TYPE_CHECKING:
    from learn.store.session_index import SessionIndex
    from learn.transcripts.files.discover import HeadReader
    from learn.transcripts.templates.keys import Keys


def project_turn_views(view: Session, fingerprints: Sequence[str], *, index: SessionIndex,
                       heads: HeadReader, limit: int, keys: Keys) -> list[Entry]:
    """The other sessions of `view`'s project as `scripted.project_views` gives them
    (the newest `limit`), each from the index where its entry is fresh (its stored
    keys; its turns and their texts read only if the judgement needs them), else
    from its file's head as before."""
    from learn.index.indexed import (
        ContextKeys,
        entry_version,
        file_stamp,
        min_signal_confidence,
        same_file,
    )
    from learn.transcripts.files.discover import scan
    from learn.transcripts.templates.scripted import head_view
    from learn.windows_names import not_opened

    # A project on a network share is not scanned (its folder would be resolved, asking
    # the server with the person's login): judged alone (learn.windows_names.not_opened).
    if not view.project or not_opened(view.project) is not None:
        return []
    # The limit inside the scan: the newest `limit` are the same files, and no head
    # past them is looked up (a project of 958 sessions: 0.03 s of `learn show`).
    found = scan(project=Path(view.project), heads=heads, limit=limit, quick=True)
    # The sessions of its project (learn.projects: the repository, all its
    # worktrees and sub-folders), as `learn sessions` and `learn run` group them.
    files = [f for f in found.files if f.path != view.path and f.project_id == found.project]
    rows = index.get_many([str(f.path) for f in files], views=False, texts=False)
    version = entry_version()
    contexts = ContextKeys(min_signal_confidence())
    out: list[Entry] = []
    for f in files:
        row = rows.get(str(f.path))
        if (row is not None and same_file(row, file_stamp(f))
                and row.version == version
                and row.context == contexts.key(fingerprints, f.aside_paths)):
            summary = msgspec.json.decode(row.summary)
            entry = light_entry(summary, row.keys, f.path, _reader(index, str(f.path)), keys)
            out.append(entry if entry is not None else Entry.of(
                turns_view(summary, index.texts_of(str(f.path)) or "[]", f.path), keys))
            continue
        other = head_view(f.path, fingerprints)
        if other is not None:
            out.append(Entry.of(other, keys))
    return out


def _reader(index: SessionIndex, path: str) -> Callable[[], list[str]]:
    """How a light view's texts are read, if the judgement needs them (while `index` is open)."""
    return lambda: turn_texts(index.texts_of(path) or "[]")
