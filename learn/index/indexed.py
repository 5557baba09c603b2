"""Session views through the session index: read a file only when it changed.

`indexed_views(files, ...)` gives, in input order, each file's index entry,
from the index (learn.store.session_index) when the file is unchanged, else by
reading it: over the machine's cores for a cold scan (`pool.ordered_map`), each
worker sending back only the small derived row (pickling parsed transcripts
back cost more than parsing them).

Two depths, so each command does only the work it needs (issue 21):

- `views=False` (`learn sessions`): parse and build the view, keep its summary
  (counts, id, dates, client) and its human turns, redacted
  (`indexed_turns`: what the cross-session judgement of origin and templates
  reads). No detectors, no content hash.
- `views=True` (`learn run`, `learn plan`): also the redacted compact view
  (`compact`), its detector candidates and the sha256 of its bytes (the mining
  cache's key). An entry a listing wrote (no view) is read again here.

The stored view is redacted (`redaction.redact`, the index is on disk), and the
view handed out is always the stored one, read back, so a cold run and a warm
run see the same text. Nothing else of a transcript is kept: no raw record, no
pickle (issue 20); a file that grew (a live session) is read whole again.

Unchanged means same size, mtime_ns and inode (one stat, the file is not
opened), and the entry's version (`entry_version`) and context (replay
fingerprints, aside files, detector threshold) as now.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, TypeVar

import msgspec

from learn import collector
from learn.index.job import Job, Unread
from learn.transcripts.files.sources import stat_identity
from learn.transcripts.view.compact import (
    decode_candidates,
    decode_view,
    view_version,
)


def entry_version() -> str:
    """The version an index entry must carry to be used: the view's (view and render
    versions) and its turns' keys' (learn.transcripts.templates.keys)."""
    from learn.transcripts.templates.keys_version import KEYS_VERSION

    return f"{view_version()}-keys{KEYS_VERSION}"

_T = TypeVar("_T")

if TYPE_CHECKING:
    from learn.projects import Known
    from learn.records.candidate import MinedCandidate
    from learn.store.session_index import HeadRow, IndexRow, SessionIndex
    from learn.transcripts.files.discover import SessionFile
    from learn.transcripts.files.heads import Head, Provider
    from learn.transcripts.files.sources import SourceStat
    from learn.transcripts.view.model import Session


class Stamp(msgspec.Struct, frozen=True):
    size: int
    mtime_ns: int
    inode: int


class _Identified(Protocol):
    @property
    def size(self) -> int: ...
    @property
    def mtime_ns(self) -> int: ...
    @property
    def inode(self) -> int: ...


def same_file(row: _Identified | None, st: _Identified | None) -> bool:
    """Whether what the index stored of a file (`row`) is of the file as it is now
    (`st`): the same size, mtime and inode. The one test of an entry's freshness."""
    return row is not None and st is not None and (
        (row.size, row.mtime_ns, row.inode) == (st.size, st.mtime_ns, st.inode))


def _stamp_of(st: SourceStat) -> Stamp:
    return Stamp(st.size, st.mtime_ns, st.inode)


def stamp(path: Path) -> Stamp | None:
    """The session's identity (a file's stat, a store's stamp: `files.sources`), no read;
    None when it is gone."""
    from learn.transcripts.files.sources import source_stat

    st = source_stat(path)
    return _stamp_of(st) if st is not None else None


def file_stamp(file: SessionFile) -> Stamp | None:
    """`stamp` of a file discovery listed: the stat it took, when it took one."""
    return _stamp_of(file.stat) if file.stat is not None else stamp(file.path)


class IndexedSession(msgspec.Struct):
    """One file's entry; the view decoded on first use (`learn sessions` needs only the summary)."""

    file: SessionFile
    row: IndexRow
    from_index: bool
    _session: Session | None = None
    _index: SessionIndex | None = None

    def texts(self) -> str | None:
        """The stored turns (`row.prompts`), read from the index when the row was read
        without them (`indexed_views(texts=False)`)."""
        if self.row.prompts is not None or self._index is None:
            return self.row.prompts
        return self._index.texts_of(str(self.file.path))

    @property
    def session(self) -> Session:
        if self._session is None:
            view = decode_view(self._built(self.row.view))
            # A session read out of a store has no file size; a Gemini CLI session's
            # project is its folder's, which discovery may know better than the file.
            self._session = msgspec.structs.replace(
                view, size_bytes=self.file.size or view.size_bytes,
                subagent_paths=self.file.subagent_paths, project=view.project or self.file.project)
        return self._session

    @property
    def detected(self) -> tuple[MinedCandidate, ...]:
        return decode_candidates(self._built(self.row.detected))

    @property
    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = msgspec.json.decode(self.row.summary)
        return out

    @property
    def digest(self) -> str:
        return self._built(self.row.digest)

    def _built(self, value: _T | None) -> _T:
        if value is None:
            raise LookupError(f"{self.file.path}: indexed for a listing only (views=False)")
        return value


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
    from learn.config_defaults import DEFAULT_MIN_SIGNAL_CONFIDENCE, defaults_apply

    if defaults_apply():  # without reading the config (learn.config_defaults)
        return DEFAULT_MIN_SIGNAL_CONFIDENCE
    from learn.config import Config, ConfigError, load_config

    try:
        return load_config().mining.min_signal_confidence
    except ConfigError:
        return Config().mining.min_signal_confidence


def context_key(fingerprints: Sequence[str], aside_paths: Sequence[Path],
                min_confidence: float) -> str:
    """What besides the file's bytes shaped its view: a change here is a miss."""
    return ContextKeys(min_confidence).key(fingerprints, aside_paths)


class ContextKeys:
    """`context_key` for many files: each set of fingerprints hashed once, not once a file
    (a project's fingerprints are one object for all its files, and hashing them
    per file was most of the per-file cost of a warm listing's check)."""

    def __init__(self, min_confidence: float) -> None:
        self._min_confidence = min_confidence
        # id -> (the object, kept alive so its id is not reused; the hash after it)
        self._seen: dict[int, tuple[Sequence[str], Any]] = {}

    def key(self, fingerprints: Sequence[str], aside_paths: Sequence[Path]) -> str:
        got = self._seen.get(id(fingerprints))
        if got is None:
            h = hashlib.sha256()
            for text in fingerprints:
                h.update(text.encode("utf-8", "surrogatepass") + b"\0")
            h.update(b"\1")
            for text in getattr(fingerprints, "scaffold", ()):
                h.update(text.encode("utf-8", "surrogatepass") + b"\0")
            h.update(b"\1")
            got = self._seen[id(fingerprints)] = (fingerprints, h)
        h = got[1].copy()
        for path in aside_paths:
            st = stamp(path)
            h.update(f"{path}\0{st}\0".encode("utf-8", "surrogateescape"))
        h.update(f"\1{self._min_confidence!r}".encode())
        return str(h.hexdigest())


def _preload(views: bool) -> None:
    """Import what `reading.read_row` needs before the pool forks: each worker would import it
    again (~0.04 s of CPU each for the summary's modules). That includes what
    parse_buffer asks of each file's head (parser._other_agent), the asides and the
    rows' keys: ~10 ms of CPU twice over in a first listing (python -X importtime),
    and the parent judges with the keys' modules anyway. Also the session's redaction
    (`render.session_values`) and Gemini CLI's logs (`files.sources.in_store` asks of
    every file read): both were imported after the fork, once in each worker.

    The lazy patterns (learn.lazy.lazy_pattern) are left to compile on first use, in
    each worker: compiling all of them (226) here took 0.026 s of CPU in the parent of
    a first listing, where reading a 1,000-session bench home uses 4 of them (spread)
    or 17 (tree), 0.0004 s and 0.0023 s in each worker (a run's reading, with views,
    of the tree's first 250 sessions uses 22)."""
    import learn.index.indexed_turns
    import learn.index.reading
    import learn.redaction.redact
    import learn.render.session_values
    import learn.store.session_index
    import learn.transcripts.codex.rollout  # parse_buffer imports it on the first rollout
    import learn.transcripts.copilot.events
    import learn.transcripts.gemini.logs
    import learn.transcripts.gemini.record
    import learn.transcripts.opencode.export
    import learn.transcripts.parser
    import learn.transcripts.templates.entries
    import learn.transcripts.templates.keys
    import learn.transcripts.view.bounded
    import learn.transcripts.view.many
    import learn.transcripts.view.serialise
    import learn.transcripts.view.session
    from learn.redaction.scanner import _by_gate_word, _sources

    # The secret scanner's detectors, read once here rather than once in each forked
    # worker (~5 ms apiece from learn.redaction.scanner_snapshot; ~0.09 s when an
    # unknown detect-secrets release is read live): every entry's turns are redacted.
    # Not compiled here: each pattern is where a text's gate words first call on it,
    # as the lazy patterns are. Compiling all 45 here was 46 M instructions (callgrind),
    # 1.4% of a first listing of the 250-session tree home in one process, whose turns
    # call on 2 detectors (the spread home's on 1); a worker compiles the few it uses.
    _sources()
    _by_gate_word()
    if views:
        import learn.detect
        import learn.detect.to_candidates  # noqa: F401


def with_keys(items: Sequence[IndexedSession]) -> list[IndexedSession]:
    """`items` each with its row's stored turns' keys, read in one query for those
    `indexed_views(keys=False)` left without them (a listing reads them only when it
    judges: a kept judgement reads none)."""
    lacking = {id(i): i for i in items if i.row.keys is None and i._index is not None}
    index = next(iter(lacking.values()))._index if lacking else None
    if index is None:
        return list(items)
    stored = index.keys_of_many([str(i.file.path) for i in lacking.values()])
    return [msgspec.structs.replace(
                i, row=msgspec.structs.replace(i.row, keys=stored.get(str(i.file.path))))
            if id(i) in lacking else i for i in items]


def _fresh(row: IndexRow | None, st: Stamp | None, version: str, context: str) -> bool:
    return (same_file(row, st) and row is not None
            and row.version == version and row.context == context)


def indexed_views(
    files: Sequence[SessionFile],
    *,
    fingerprints_for: Callable[[SessionFile], Sequence[str]],
    min_confidence: float,
    index: SessionIndex | None = None,
    workers: int | None = None,
    progress: Callable[[int, int], None] | None = None,
    views: bool = True,
    texts: bool = True,
    keys: bool = True,
    unread: Callable[[SessionFile, str], None] | None = None,
) -> list[IndexedSession]:
    """Each readable file's entry, in input order: from `index` when unchanged, else read.

    `views=False` needs only the summary (see the module docstring): an entry
    without a view is then enough, and what is read builds none. `texts=False`:
    an entry from the index comes without its turns' texts (`IndexedSession.texts`
    reads them while `index` is open); `keys=False` without its turns' keys (`row.keys`
    None: `SessionIndex.keys_of_many` reads them). What was read is written back to `index`.
    A file that vanished or cannot be read is left out, and `unread` is told why (the
    detail of its skip: `with_unread`); nothing is stored for it, so it is tried again.
    """
    version = entry_version()
    paths = [str(f.path) for f in files]
    rows = index.get_many(paths, views=views, texts=texts, keys=keys) if index is not None else {}
    out: dict[int, IndexedSession] = {}
    jobs: list[tuple[int, Job]] = []
    contexts = ContextKeys(min_confidence)
    for i, f in enumerate(files):
        # Kept whole, not as a tuple: the scaffold ("Ticket:") around a template's
        # arguments is trimmed only when it travels with the fingerprints, or the
        # listing counts a turn `learn show` does not (issue 17).
        fingerprints = fingerprints_for(f)
        context = contexts.key(fingerprints, f.aside_paths)
        row = rows.get(paths[i])
        if row is not None and _fresh(row, file_stamp(f), version, context) and (
                not views or row.view is not None):
            out[i] = IndexedSession(f, row, from_index=True, _index=index)
            continue
        jobs.append((i, Job(f.path, f.provider, fingerprints, f.aside_paths, min_confidence,
                             version, context, views)))
    done = len(out)
    fresh_rows: list[IndexRow] = []
    # Reading makes no cycles, so the cyclic collector is paused (learn.collector has
    # what it saves). Forked workers inherit the pause.
    with collector.paused():
        if jobs:
            # Only when something is read: the pool imports multiprocessing.
            from learn.transcripts.pool import ordered_map

            _preload(views)
            from learn.index.reading import read_row as read

            got_rows: Iterable[IndexRow | Unread] = ordered_map(read, [j for _, j in jobs],
                                                              workers=workers)
        else:
            got_rows = ()
        for (i, _), got in zip(jobs, got_rows, strict=True):
            done += 1
            if progress is not None:
                progress(done, len(files))
            if isinstance(got, Unread):
                if unread is not None:
                    unread(files[i], got.detail)
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
        from learn.store import session_index
        from learn.transcripts.files import heads
        from learn.transcripts.files.heads import HEAD_VERSION

        # `read_head`'s modules, held: a `from … import` in a method runs on every call,
        # ~8 k instructions in CPython 3.11, twice for every file a listing discovers.
        self._heads = heads
        self._head_row = session_index.HeadRow
        self._index = index
        self._rows = index.heads()
        # A row an older head reader stored (its `reader`, migration 0028) is read again:
        # it may hold what that reader got wrong (heads.HEAD_VERSION).
        self._reader = HEAD_VERSION
        self._new: dict[str, HeadRow] = {}
        self._last: dict[str, tuple[Stamp, float | None]] = {}
        self._known: Known | None = None
        self._present: set[str] = set()  # files stat'ed here: not gone

    def _fresh(self, path: Path,
               stat: SourceStat | None = None) -> tuple[Stamp | None, HeadRow | None]:
        st = stamp(path) if stat is None else _stamp_of(stat)
        if st is not None:
            self._present.add(str(path))
        row = self._new.get(str(path)) or self._rows.get(str(path))
        if row is None or row.reader != self._reader or not same_file(row, st):
            return st, None
        return st, row

    def read_head(self, path: Path, provider: Provider, stat: SourceStat | None = None) -> Head:
        """The head of `path`; `stat`: the file's stat discovery just took."""
        st, row = self._fresh(path, stat)
        if row is not None:
            return self._heads.Head(row.cwd, row.session_id, row.subagent, row.parent_id,
                                    row.branch, row.repository, row.commit_hash)
        head = self._heads.read_head(path, provider)
        if st is not None:
            seen = self._last.pop(str(path), None)
            known = seen is not None and seen[0] == st
            self._new[str(path)] = self._head_row(
                str(path), st.size, st.mtime_ns, st.inode, head.cwd, head.session_id,
                head.subagent, head.parent_id, seen[1] if seen is not None and known else None,
                int(known), head.branch, head.repository, head.commit, self._reader)
        return head

    def unchanged_head(self, path: str, st: os.stat_result) -> HeadRow | None:
        """The head stored for `path` when the file is as `st` found it (no read), else None."""
        row = self._new.get(path) or self._rows.get(path)
        if row is None or row.reader != self._reader or not same_file(row, stat_identity(st)):
            return None
        self._present.add(path)
        return row

    def last_activity(self, path: Path) -> float | None:
        from learn.transcripts.files.heads import last_activity

        st, row = self._fresh(path)
        if row is not None and row.has_last_activity:
            return row.last_activity
        last = last_activity(path)
        if row is not None:
            self._new[str(path)] = row._replace(last_activity=last, has_last_activity=1)
        elif st is not None:
            # Discovery asks before it reads the head: kept until the head is.
            self._last[str(path)] = (st, last)
        return last

    def projects(self) -> Known:
        """What learn knows of the folders sessions ran in (learn.projects.Known): what
        the disk said of them before (remembered), and every stored head's folder
        with what its transcript recorded of the repository."""
        from learn.projects import Hints, Known

        if self._known is None:
            known = Known(remembered=self._index.remembered_projects())
            # One Hints per distinct record, not per row (1,000 rows, a few dozen records).
            made: dict[tuple[str | None, str | None, str | None], Hints] = {}
            known.add_folders((r.cwd, made.get(k) or made.setdefault(k, Hints(*k)))
                              for r in self._rows.values()
                              if r.subagent is None and r.reader == self._reader
                              for k in ((r.branch, r.repository, r.commit_hash),))
            self._known = known
        return self._known

    def save(self, *, forget: bool = True) -> None:
        """Write the heads read and what the disk said of their folders' projects,
        and (`forget`) forget the files that are gone: those not stat'ed here are
        looked at (`learn show`, which reads a few heads, leaves that to a listing)."""
        from learn.isotime import now_iso
        from learn.transcripts.files.sources import session_exists

        if forget:
            self._index.forget_missing(session_exists, present=self._present)
        self._index.put_heads(self._new.values())
        if self._known is not None and self._known.learned:
            self._index.remember_projects(dict(self._known.learned), now_iso())
        self._rows.update(self._new)
        self._new.clear()
