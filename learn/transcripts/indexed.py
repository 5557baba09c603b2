"""Session views through the session index: read a file only when it changed.

`indexed_views(files, ...)` gives, in input order, each file's session view,
its detector candidates and the sha256 of its bytes (the mining cache's key),
from the index (learn.store.session_index) when the file is unchanged, else by
reading it — over the machine's cores for a cold scan (`pool.ordered_map`),
each worker building the view and sending back the compact bytes
(`compact`), which costs a fraction of pickling the events.

The stored view is redacted (`render.redact`, the index is on disk), and the
view handed out is always the stored one, read back, so a cold run and a warm
run see the same text.

Unchanged means same size, mtime_ns and inode (one stat, the file is not
opened), and the entry's version and context (replay fingerprints, aside files,
detector threshold) as now. A file that grew (a live session appends) is read
whole again: the view is not compositional the way the parse is (the active
branch is a walk over the whole DAG, a tool result can answer a call anywhere
before it, `one_per_text` dedups across the file, the id and project come from
the first entries), so extending an old view with the new lines' events would
need the old events, and keeping those costs as much disk as the file.
"""

from __future__ import annotations

import hashlib
import json
import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from learn.transcripts.compact import (
    decode_candidates,
    decode_view,
    encode_candidates,
    encode_view,
    view_version,
)

if TYPE_CHECKING:
    from learn.mining.candidate import MinedCandidate
    from learn.store.session_index import IndexRow, SessionIndex
    from learn.transcripts.discover import SessionFile
    from learn.transcripts.view import Session

HEAD_BLOCK: Final = 4096


@dataclass(frozen=True, slots=True)
class Stamp:
    size: int
    mtime_ns: int
    inode: int


def stamp(path: Path) -> Stamp | None:
    """The file's stat identity (no open), None when it is gone."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return Stamp(st.st_size, st.st_mtime_ns, st.st_ino)


@dataclass(slots=True)
class IndexedSession:
    """One file's view, decoded on first use (`learn sessions` needs only the summary)."""

    file: SessionFile
    row: IndexRow
    from_index: bool
    _session: Session | None = field(default=None, repr=False)

    @property
    def session(self) -> Session:
        if self._session is None:
            view = decode_view(self.row.view)
            self._session = replace(view, size_bytes=self.file.size,
                                    subagent_paths=self.file.subagent_paths)
        return self._session

    @property
    def detected(self) -> tuple[MinedCandidate, ...]:
        return decode_candidates(self.row.detected)

    @property
    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = json.loads(self.row.summary)
        return out

    @property
    def digest(self) -> str:
        return self.row.digest


class LazyViews(Mapping["Path", "Session"]):
    """path -> view, each decoded only when asked for (the plan reads the uncached ones only)."""

    def __init__(self, items: Sequence[IndexedSession]) -> None:
        self._items = {i.file.path: i for i in items}

    def __getitem__(self, path: Path) -> Session:
        return self._items[path].session

    def __iter__(self) -> Iterator[Path]:
        return iter(self._items)

    def __len__(self) -> int:
        return len(self._items)


def min_signal_confidence() -> float:
    """The configured detector threshold (part of an entry's context), the default when unset."""
    from learn.config import Config, ConfigError, load_config

    try:
        return load_config().mining.min_signal_confidence
    except ConfigError:
        return Config().mining.min_signal_confidence


def context_key(fingerprints: Sequence[str], aside_paths: Sequence[Path],
                min_confidence: float) -> str:
    """What besides the file's bytes shaped its view: a change here is a miss."""
    h = hashlib.sha256()
    for text in fingerprints:
        h.update(text.encode("utf-8", "surrogatepass") + b"\0")
    h.update(b"\1")
    for path in aside_paths:
        st = stamp(path)
        h.update(f"{path}\0{st}\0".encode("utf-8", "surrogateescape"))
    h.update(f"\1{min_confidence!r}".encode())
    return h.hexdigest()


@dataclass(frozen=True, slots=True)
class _Job:
    path: Path
    fingerprints: tuple[str, ...]
    aside_paths: tuple[Path, ...]
    min_confidence: float
    version: str
    context: str


def read_row(job: _Job) -> IndexRow | None:
    """Read, parse and view one file (in a pool worker): its index row, None when unreadable."""
    from learn.detect import MiningSpec, mine
    from learn.detect.to_candidates import signals_to_candidates
    from learn.render import redact
    from learn.store.session_index import IndexRow
    from learn.transcripts.parser import parse_buffer
    from learn.transcripts.serialise import session_to_dict
    from learn.transcripts.session import build_session, read_asides

    try:
        with open(job.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            buf = fh.read()
    except OSError:
        return None
    transcript = parse_buffer(buf, path=job.path, mtime=st.st_mtime)
    session = build_session(transcript, fingerprints=job.fingerprints, size_bytes=len(buf),
                            asides=read_asides(job.aside_paths))
    signals = mine(transcript.events, MiningSpec(), provider=transcript.provider,
                   fingerprints=job.fingerprints)
    found = signals_to_candidates(signals, min_confidence=job.min_confidence)
    detected = [replace(c, text=redact(c.text)) for c in found]
    return IndexRow(
        path=str(job.path), size=len(buf), mtime_ns=st.st_mtime_ns, inode=st.st_ino,
        head_hash=hashlib.sha256(buf[:HEAD_BLOCK]).hexdigest(),
        version=job.version, context=job.context,
        offset=buf.rfind(b"\n") + 1, digest=hashlib.sha256(buf).hexdigest(),
        summary=json.dumps(session_to_dict(session, timeline=False)),
        view=encode_view(session, redact), detected=encode_candidates(detected),
    )


def _fresh(row: IndexRow | None, st: Stamp | None, version: str, context: str) -> bool:
    return (
        row is not None and st is not None
        and (row.size, row.mtime_ns, row.inode) == (st.size, st.mtime_ns, st.inode)
        and row.version == version and row.context == context
    )


def indexed_views(
    files: Sequence[SessionFile],
    *,
    fingerprints_for: Callable[[SessionFile], Sequence[str]],
    min_confidence: float,
    index: SessionIndex | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> list[IndexedSession]:
    """Each readable file's view, in input order: from `index` when unchanged, else read.

    What was read is written back to `index`. A file that vanished or cannot be
    read is left out.
    """
    version = view_version()
    rows = index.get_many([str(f.path) for f in files]) if index is not None else {}
    out: dict[int, IndexedSession] = {}
    jobs: list[tuple[int, _Job]] = []
    for i, f in enumerate(files):
        fingerprints = tuple(fingerprints_for(f))
        context = context_key(fingerprints, f.aside_paths, min_confidence)
        row = rows.get(str(f.path))
        if row is not None and _fresh(row, stamp(f.path), version, context):
            out[i] = IndexedSession(f, row, from_index=True)
            continue
        jobs.append((i, _Job(f.path, fingerprints, f.aside_paths, min_confidence, version, context)))
    from learn.transcripts.pool import ordered_map

    done = len(out)
    fresh_rows: list[IndexRow] = []
    for (i, _), got in zip(jobs, ordered_map(read_row, [j for _, j in jobs], workers=workers),
                           strict=True):
        done += 1
        if progress is not None:
            progress(done, len(files))
        if got is None:
            continue
        fresh_rows.append(got)
        out[i] = IndexedSession(files[i], got, from_index=False)
    if index is not None and fresh_rows:
        index.put_many(fresh_rows)
    return [out[i] for i in sorted(out)]
