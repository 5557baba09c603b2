"""The listing's judgement across sessions, kept while the sessions it read are unchanged.

`learn sessions` judges each session's origin and cuts prompts and templates
repeated across all the sessions listed (transcripts.templates.scripted.machinery)
from the human turns the index keeps. That judgement is a pure function of those
entries, and on a warm listing of 942 sessions (286 MB) it was 0.15 of the
command's 0.31 s CPU, growing with the bytes: so its result is kept in the cache
directory under a key of every entry's identity (file, size, mtime, inode, the
view version and context the entry was built with), the options, and
JUDGED_VERSION. Any change to a listed file, to the set of files or to a version
gives another key, and the judgement is made again.

Bump JUDGED_VERSION when a code change would judge the same entries differently
(origin, templates, repeated prompts), as VIEW_VERSION is bumped for the view.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Final

from learn.index.indexed import IndexedSession
from learn.paths import atomic_write_text, cache_dir

JUDGED_VERSION: Final = 2  # 2: origin from what the file says of itself (machine_signals)
FILE_NAME: Final = "sessions-judged.json"


def listing_key(items: Sequence[IndexedSession], include_programmatic: bool) -> str:
    """Changes whenever the judgement of `items` could."""
    from learn.index.indexed import entry_version

    entries = [(str(i.file.path), i.row.size, i.row.mtime_ns, i.row.inode, i.row.version,
                i.row.context) for i in items]
    blob = json.dumps([JUDGED_VERSION, entry_version(), include_programmatic, entries])
    return hashlib.sha256(blob.encode("utf-8")).hexdigest()


def _path() -> Path:
    return cache_dir() / FILE_NAME


def load(key: str, count: int) -> list[dict[str, Any]] | None:
    """The judged fields of each entry, in order, when kept under `key`; else None."""
    import msgspec

    try:
        # msgspec: a third of json.loads's time on the 0.45 MB of 1,000 sessions.
        kept = msgspec.json.decode(_path().read_bytes())
    except (OSError, msgspec.DecodeError):
        return None  # none yet, unreadable or damaged: judged again, nothing lost
    rows = kept.get("rows") if isinstance(kept, dict) and kept.get("key") == key else None
    if not isinstance(rows, list) or len(rows) != count or not all(isinstance(r, dict) for r in rows):
        return None
    return rows


def save(key: str, rows: Sequence[dict[str, Any]]) -> None:
    """Keep `rows` under `key` (one file, replaced whole; 0600 like every data file)."""
    # An unwritable cache costs the judgement next time, not this listing.
    with contextlib.suppress(OSError):
        atomic_write_text(_path(), json.dumps({"key": key, "rows": list(rows)}))
