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
detector threshold) as now.

A file that only grew (a live session appends; same inode, larger, same first
block) is parsed from where the last read stopped: the parse is compositional
on line boundaries, so the decoded records of the old whole lines (kept in the
entry, `prefix`) plus those of the new bytes are the records of the whole file.
The view is then built again from all records, not extended: it is not
compositional the way the parse is (the active branch is a walk over the whole
DAG, a tool result can answer a call anywhere before it, `one_per_text` dedups
across the file, the id and project come from the first entries). A partial
last line is never part of the prefix: the prefix ends at the last newline,
and the next read starts there. Only Claude Code files of the last
PREFIX_MAX_AGE keep a prefix (it is about the size of the file; an old session
rarely grows); a Codex rollout (lowered with state across lines) or a .zst
file is read whole.
"""

from __future__ import annotations

import hashlib
import json
import os
import pickle
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
from learn.transcripts.models import EventList, Transcript

if TYPE_CHECKING:
    from learn.mining.candidate import MinedCandidate
    from learn.store.session_index import HeadRow, IndexRow, SessionIndex
    from learn.transcripts.discover import SessionFile
    from learn.transcripts.heads import Head, Provider
    from learn.transcripts.view import Session

HEAD_BLOCK: Final = 4096
# Sessions modified this recently keep their decoded records for a tail read.
PREFIX_MAX_AGE: Final = 2 * 24 * 3600.0


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
    fingerprints: Sequence[str]  # a replay.Fingerprints: its scaffold travels with it
    aside_paths: tuple[Path, ...]
    min_confidence: float
    version: str
    context: str
    grown_from: IndexRow | None = None  # the entry of a file that only grew


def _head_matches(head: bytes, row: IndexRow) -> bool:
    return hashlib.sha256(head[:min(HEAD_BLOCK, row.size)]).hexdigest() == row.head_hash


def _read_tail(job: _Job) -> tuple[os.stat_result, bytes, Transcript] | None:
    """The grown file's transcript from the kept prefix records and the new bytes only.

    None when the file is not the one the entry read (its first block
    changed): the caller reads it whole.
    """
    from learn.transcripts.decode import decode_claude_lines
    from learn.transcripts.events import materialize

    row = job.grown_from
    assert row is not None and row.prefix is not None
    with open(job.path, "rb") as fh:
        st = os.fstat(fh.fileno())
        head = fh.read(HEAD_BLOCK)
        if st.st_size <= row.size or not _head_matches(head, row):
            return None
        fh.seek(row.offset)
        tail = fh.read()
    items, skipped = load_prefix(row.prefix)
    more, more_skipped = decode_claude_lines(tail)
    for reason, n in more_skipped.items():
        skipped[reason] = skipped.get(reason, 0) + n
    transcript = Transcript(
        path=job.path, mtime=st.st_mtime, provider="claude",
        events=EventList([*items, *more], materialize), skipped=skipped,
        skipped_lines=sum(skipped.values()), size_bytes=row.offset + len(tail),
    )
    return st, tail, transcript


def _digest_after(job: _Job, tail: bytes) -> str:
    # The mining cache is keyed by the sha256 of the whole file, and a sha256
    # cannot be resumed from a stored digest: the prefix is hashed again
    # (read at ~1.5 GB/s, 20-50x cheaper than parsing it).
    assert job.grown_from is not None
    h = hashlib.sha256()
    with open(job.path, "rb") as fh:
        left = job.grown_from.offset
        while left > 0:
            block = fh.read(min(left, 1 << 20))
            if not block:
                break
            h.update(block)
            left -= len(block)
    h.update(tail)
    return h.hexdigest()


def read_row(job: _Job) -> IndexRow | None:
    """Read, parse and view one file (in a pool worker): its index row, None when unreadable."""
    from learn.transcripts.parser import parse_buffer

    try:
        if job.grown_from is not None:
            grown = _read_tail(job)
            if grown is not None:
                st, tail, transcript = grown
                return _row(job, st, transcript, head=None, tail=tail)
        with open(job.path, "rb") as fh:
            st = os.fstat(fh.fileno())
            buf = fh.read()
    except OSError:
        return None
    transcript = parse_buffer(buf, path=job.path, mtime=st.st_mtime)
    return _row(job, st, transcript, head=buf, tail=None)


def _row(job: _Job, st: os.stat_result, transcript: Transcript, *, head: bytes | None,
         tail: bytes | None) -> IndexRow:
    """The index row of one parsed file: `head` is the whole file read, or `tail` the new bytes."""
    import time

    from learn.detect import MiningSpec, mine
    from learn.detect.to_candidates import signals_to_candidates
    from learn.render import redact
    from learn.store.session_index import IndexRow
    from learn.transcripts.serialise import session_to_dict
    from learn.transcripts.session import build_session, read_asides

    if head is not None:
        buf = head
        size, offset = len(buf), buf.rfind(b"\n") + 1
        head_hash = hashlib.sha256(buf[:HEAD_BLOCK]).hexdigest()
        digest = hashlib.sha256(buf).hexdigest()
    else:
        assert job.grown_from is not None and tail is not None
        old = job.grown_from
        size = old.offset + len(tail)
        offset = old.offset + tail.rfind(b"\n") + 1
        head_hash, digest = old.head_hash, _digest_after(job, tail)
    keep = (transcript.provider == "claude" and not job.path.name.endswith(".zst")
            and time.time() - st.st_mtime < PREFIX_MAX_AGE)
    prefix: bytes | None = None
    if keep:
        from learn.transcripts.decode import decode_claude_lines

        if head is not None:
            prefix = dump_prefix(*decode_claude_lines(head[:offset]))
        else:
            assert job.grown_from is not None and job.grown_from.prefix is not None and tail is not None
            items, skipped = load_prefix(job.grown_from.prefix)
            more, more_skipped = decode_claude_lines(tail[:offset - job.grown_from.offset])
            for reason, n in more_skipped.items():
                skipped[reason] = skipped.get(reason, 0) + n
            prefix = dump_prefix([*items, *more], skipped)
    session = build_session(transcript, fingerprints=job.fingerprints, size_bytes=size,
                            asides=read_asides(job.aside_paths))
    signals = mine(transcript.events, MiningSpec(), provider=transcript.provider,
                   fingerprints=job.fingerprints)
    found = signals_to_candidates(signals, min_confidence=job.min_confidence)
    detected = [replace(c, text=redact(c.text)) for c in found]
    return IndexRow(
        path=str(job.path), size=size, mtime_ns=st.st_mtime_ns, inode=st.st_ino,
        head_hash=head_hash, version=job.version, context=job.context,
        offset=offset, digest=digest, prefix=prefix,
        summary=json.dumps(session_to_dict(session, timeline=False)),
        view=encode_view(session, redact), detected=encode_candidates(detected),
    )


def _fresh(row: IndexRow | None, st: Stamp | None, version: str, context: str) -> bool:
    return (
        row is not None and st is not None
        and (row.size, row.mtime_ns, row.inode) == (st.size, st.mtime_ns, st.inode)
        and row.version == version and row.context == context
    )


def _grew(row: IndexRow | None, st: Stamp | None, version: str, context: str) -> bool:
    return (
        row is not None and st is not None and row.prefix is not None
        and row.inode == st.inode and st.size > row.size
        and row.version == version and row.context == context
    )


def dump_prefix(items: list[object], skipped: dict[str, int]) -> bytes:
    """The decoded records of a file's whole lines, for a later tail read (zstd'd pickle)."""
    import pickle

    import zstandard

    return bytes(zstandard.ZstdCompressor(level=1).compress(
        pickle.dumps((items, skipped), protocol=pickle.HIGHEST_PROTOCOL)))


class _RecordsOnly(pickle.Unpickler):
    # The prefix comes from learn's own 0600 store, and still: only the record
    # classes the parser makes are loadable, never an arbitrary callable.
    _ALLOWED = ("learn.transcripts.", "datetime", "builtins", "msgspec", "pathlib")

    def find_class(self, module: str, name: str) -> Any:
        if not module.startswith(self._ALLOWED) or (module == "builtins" and name not in
                                                    {"dict", "list", "tuple", "set", "frozenset"}):
            raise pickle.UnpicklingError(f"not a transcript record: {module}.{name}")
        return super().find_class(module, name)


def load_prefix(blob: bytes) -> tuple[list[object], dict[str, int]]:
    import io

    import zstandard

    raw = zstandard.ZstdDecompressor().decompress(blob)
    items, skipped = _RecordsOnly(io.BytesIO(raw)).load()
    return list(items), dict(skipped)


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
        # Kept whole, not as a tuple: the scaffold ("Ticket:") around a template's
        # arguments is trimmed only when it travels with the fingerprints, or the
        # listing counts a turn `learn show` does not (issue 17).
        fingerprints = fingerprints_for(f)
        context = context_key([*fingerprints, *getattr(fingerprints, "scaffold", ())],
                              f.aside_paths, min_confidence)
        row = rows.get(str(f.path))
        st = stamp(f.path)
        if row is not None and _fresh(row, st, version, context):
            out[i] = IndexedSession(f, row, from_index=True)
            continue
        grown = row if _grew(row, st, version, context) else None
        jobs.append((i, _Job(f.path, fingerprints, f.aside_paths, min_confidence, version, context,
                             grown)))
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


class CachedHeads:
    """discover.HeadReader through the session index: an unchanged file's head is not read.

    The stat is taken before the read, so a file that changes in between is
    stored under its older stat and read again next time, never the reverse.
    Call `save()` to write what was read.
    """

    def __init__(self, index: SessionIndex) -> None:
        self._index = index
        self._rows = index.heads()
        self._new: dict[str, HeadRow] = {}
        self._last: dict[str, tuple[Stamp, float | None]] = {}

    def _fresh(self, path: Path) -> tuple[Stamp | None, HeadRow | None]:
        st = stamp(path)
        row = self._new.get(str(path)) or self._rows.get(str(path))
        if st is None or row is None or (row.size, row.mtime_ns, row.inode) != (
            st.size, st.mtime_ns, st.inode
        ):
            return st, None
        return st, row

    def read_head(self, path: Path, provider: Provider) -> Head:
        from learn.store.session_index import HeadRow
        from learn.transcripts.heads import Head, read_head

        st, row = self._fresh(path)
        if row is not None:
            return Head(row.cwd, row.session_id, row.subagent, row.parent_id)
        head = read_head(path, provider)
        if st is not None:
            seen = self._last.pop(str(path), None)
            known = seen is not None and seen[0] == st
            self._new[str(path)] = HeadRow(
                str(path), st.size, st.mtime_ns, st.inode, head.cwd, head.session_id,
                head.subagent, head.parent_id, seen[1] if seen is not None and known else None,
                int(known))
        return head

    def last_activity(self, path: Path) -> float | None:
        from learn.transcripts.heads import last_activity

        st, row = self._fresh(path)
        if row is not None and row.has_last_activity:
            return row.last_activity
        last = last_activity(path)
        if row is not None:
            self._new[str(path)] = replace(row, last_activity=last, has_last_activity=1)
        elif st is not None:
            # Discovery asks before it reads the head: kept until the head is.
            self._last[str(path)] = (st, last)
        return last

    def save(self) -> None:
        """Write the heads read, and forget the files that are gone."""
        self._index.forget_missing()
        self._index.put_heads(self._new.values())
        self._rows.update(self._new)
        self._new.clear()
