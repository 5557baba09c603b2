"""Parse Claude Code JSONL transcripts (and, lowered, Codex, Gemini CLI, Copilot CLI, OpenCode) into typed events.

How a line becomes an event:

1. The file is read whole and each line decoded from a memoryview slice of
   that one buffer. Reading line by line through a file object ran at
   ~270 MB/s on this box against ~600 MB/s for whole-buffer decoding
   (feasibility probe 6), so we never iterate a file object; and
   buf.split(b"\\n") would copy every line before decoding it.
2. Each line is decoded by msgspec straight into wire Structs (`claude/wire.py`), a
   union tagged on "type" whose unknown fields are ignored. Text, thinking and
   tool_use blocks and `usage` decode directly into the public models.
3. A line the typed decode rejects takes the slow path (`claude/decode.py`): decode it
   untyped, then either it is an entry type we do not model (-> OtherEvent), or
   a known type carrying an unknown block (rewritten to a marker and converted
   again), or it is skipped and counted by reason. Nothing raises.
4. The public event is built from the wire Struct the first time it is read
   (EventList + `events.BUILDERS`), so a consumer that filters or counts
   pays only for the decode.

This module keeps only the entry points (`parse`, `parse_buffer`, `stream`,
and the small `parse_event*` helpers) and re-exports the names that lived here
before the split, so existing imports keep working.

Every line is folded independently, so parsing is compositional on line
boundaries: parse_events_from_bytes(a) + parse_events_from_bytes(b) ==
parse_events_from_bytes(a + b) for any split between lines.
"""

from __future__ import annotations

import contextlib
import functools
import os
import stat
from collections import deque
from collections.abc import Callable, Iterable, Iterator, Mapping
from pathlib import Path
from typing import Any

import msgspec

from learn import osflags
from learn.transcripts.claude.decode import (
    SKIP_INVALID,
    SKIP_NOT_OBJECT,
    SKIP_TOO_DEEP,
    SKIP_UNDECODABLE,
    decode_claude_lines,
    decode_line,
    decode_untyped,
)
from learn.transcripts.claude.events import BUILDERS, materialize
from learn.transcripts.claude.wire import LazyOther
from learn.transcripts.codex.meta import is_codex
from learn.transcripts.files.compressed import ZSTD_MAGIC
from learn.transcripts.filterspec import FilterSpec
from learn.transcripts.ids import Provider
from learn.transcripts.mend import UTF8_BOM
from learn.transcripts.models import EventList, Transcript, TranscriptEvent

# A lowering of another agent's buffer (`lowering.Lowered` back).
Lowering = Callable[..., tuple[list[Any], dict[str, int]]]

__all__ = [
    "BUILDERS",
    "SKIP_INFLATE_LIMIT",
    "SKIP_INVALID",
    "SKIP_NOT_OBJECT",
    "SKIP_TOO_DEEP",
    "SKIP_UNDECODABLE",
    "LazyOther",
    "decode_claude_lines",
    "decode_untyped",
    "materialize",
    "parse",
    "parse_buffer",
    "parse_event",
    "parse_events",
    "parse_events_from_bytes",
    "stream",
]


# A compressed file that inflates past `files.compressed.inflate_limit`: its rest is unread.
SKIP_INFLATE_LIMIT = "inflate_limit"


# ---------------------------------------------------------------- public API


def parse_events_from_bytes(raw: bytes) -> list[TranscriptEvent]:
    """Parse a Claude Code JSONL buffer into events, skipping bad lines.

    Compositional on line boundaries (see module docstring).
    """
    items, _ = decode_claude_lines(bytes(raw))
    return [materialize(item) for item in items]


def parse_events(*mappings: Mapping[str, Any]) -> list[TranscriptEvent]:
    """Parse decoded transcript-line mappings; lines that fail are skipped."""
    encode = msgspec.json.encode
    return parse_events_from_bytes(b"\n".join(encode(m) for m in mappings))


def parse_event(mapping: Mapping[str, Any]) -> TranscriptEvent:
    """Parse one decoded transcript-line mapping.

    Raises ValueError when the mapping would be skipped in a file (missing
    type, missing uuid/timestamp on a conversational entry, bad timestamp).
    """
    line = msgspec.json.encode(mapping)
    wire = decode_line(line)
    if isinstance(wire, str):
        raise ValueError(f"transcript line rejected ({wire}): {line[:200]!r}")
    return materialize(wire)


def _read(path: Path) -> tuple[bytes, float]:
    from learn.transcripts.files.sources import read_session

    buf, st = read_session(path)
    return buf, st.mtime


def parse(source: Path | bytes, *, drop: FilterSpec | None = None) -> Transcript:
    """Parse one transcript (a path or raw JSONL bytes) into a Transcript.

    The agent (Claude Code, Codex, Gemini CLI, Copilot CLI, OpenCode) is sniffed
    from the content (`parse_buffer`); a session held in a store (OpenCode) is read
    out of it (`files.sources`). Raises OSError when a path cannot be read; never
    raises on a bad line.
    """
    path: Path | None
    if isinstance(source, bytes | bytearray | memoryview):
        buf, mtime, path = bytes(source), 0.0, None
    else:
        path = Path(source)
        buf, mtime = _read(path)
    return parse_buffer(buf, path=path, mtime=mtime, drop=drop)


def parse_buffer(
    buf: bytes, *, path: Path | None = None, mtime: float = 0.0, drop: FilterSpec | None = None
) -> Transcript:
    """Parse an in-memory buffer as if it were the file at `path`.

    A zstd-compressed buffer (`rollout-*.jsonl.zst`) is decompressed in memory
    first; one cut short keeps what decoded; one that is not zstd at all is
    read as lines (undecodable ones), never an error.
    """
    if buf[:4] == ZSTD_MAGIC:
        from learn.transcripts.files.compressed import CorruptFile, decompress

        named_zst = path is not None and path.name.endswith(".zst")
        cut = False
        try:
            inflated = decompress(buf)
            complete, cut = inflated.complete, inflated.cut
        except CorruptFile:
            # Not zstd after all: read as lines, bad bytes counted as undecodable.
            inflated, complete = None, True
        if inflated is not None and (complete or named_zst):
            buf = inflated.data
        else:
            # A nameless buffer that only starts like zstd and does not inflate
            # whole is read as lines (bad ones counted as undecodable), so parsing
            # stays compositional on line boundaries: Hypothesis found a prefix
            # `(\xb5/\xfd` counted once whole but twice split.
            complete, cut = True, False
        if not complete:
            # Cut short, or stopped at the inflate limit: what decoded is read,
            # the cut counts as one skipped line (dropping a partial last line
            # too, which may be half a record).
            end = buf.rfind(b"\n") + 1
            transcript = parse_buffer(buf[:end], path=path, mtime=mtime, drop=drop)
            reason = SKIP_INFLATE_LIMIT if cut else SKIP_UNDECODABLE
            skipped = dict(transcript.skipped)
            skipped[reason] = skipped.get(reason, 0) + 1
            return msgspec.structs.replace(
                transcript, skipped=skipped, skipped_lines=transcript.skipped_lines + 1)
    if buf[:3] == UTF8_BOM:
        # No client writes one, but a transcript copied or saved again by a Windows tool
        # (PowerShell 5's Out-File, some editors) starts with it: its first line did not
        # decode and was dropped as damaged (Claude Code's first prompt, Codex's
        # session_meta with its client and git facts). A copy, on the rare file.
        buf = buf[3:]
    if is_codex(buf, path):
        from learn.transcripts.codex.rollout import lower

        events, skipped = lower(buf, path=path, drop=drop)
        return Transcript(
            path=path, mtime=mtime, provider="codex", events=EventList(events, BUILDERS),
            skipped=skipped, skipped_lines=sum(skipped.values()), size_bytes=len(buf),
        )
    other = _other_agent(buf, path)
    if other is not None:
        provider, lowering = other
        events, skipped = lowering(buf, path=path, drop=drop)
        return Transcript(
            path=path, mtime=mtime, provider=provider, events=EventList(events, BUILDERS),
            skipped=skipped, skipped_lines=sum(skipped.values()), size_bytes=len(buf),
        )
    items, skipped = decode_claude_lines(buf, drop)
    return Transcript(
        path=path,
        mtime=mtime,
        provider="claude",
        events=EventList(items, BUILDERS),
        skipped=skipped,
        skipped_lines=sum(skipped.values()),
        size_bytes=len(buf),
    )


# The tests `_other_agent` asks of every buffer that is no rollout (every Claude Code
# file), imported on the first and then kept: an import statement costs its lookups and
# a raised and caught AttributeError (`__spec__._initializing`) at each call though the
# module is loaded: without the three here and the one of `is_codex` in parse_buffer,
# parsing the spread bench home's Claude files (250 sessions) ran 8.5 M fewer
# instructions (callgrind: 0.994x; a quarter of a percent of a first listing's). The
# lowerings are still imported on a hit.
_IsExport = Callable[[bytes], bool]
_IsAgent = Callable[[bytes, Path | None], bool]


@functools.cache
def _sniffers() -> tuple[_IsExport, _IsAgent, _IsAgent]:
    from learn.transcripts.copilot.events import is_copilot
    from learn.transcripts.gemini.record import is_gemini
    from learn.transcripts.opencode.export import is_export

    return is_export, is_gemini, is_copilot


def _other_agent(buf: bytes, path: Path | None) -> tuple[Provider, Lowering] | None:
    """Gemini CLI, Copilot CLI or OpenCode, sniffed from the buffer's head; None for Claude Code.

    Each test reads a few bytes of the first line; a Claude Code line has none of
    the markers (`projectHash`; a dotted `type` beside `data`; the export's head).
    """
    is_export, is_gemini, is_copilot = _sniffers()
    if is_export(buf):
        from learn.transcripts.opencode.lower import lower as opencode_lower

        return "opencode", opencode_lower
    if is_gemini(buf, path):
        from learn.transcripts.gemini.lower import lower as gemini_lower

        return "gemini", gemini_lower
    if is_copilot(buf, path):
        from learn.transcripts.copilot.events import lower as copilot_lower

        return "copilot", copilot_lower
    return None


_ADVISE = getattr(os, "posix_fadvise", None)
_WILLNEED: int = getattr(os, "POSIX_FADV_WILLNEED", 0)


def _open_ahead(path: Path) -> tuple[Path, int | None]:
    """Open a file and ask the kernel to start reading it into the page cache.

    The fd is kept for the later read; None when the open failed (the read
    then retries and skips the file quietly).
    """
    from learn.transcripts.files.sources import in_store

    if in_store(path):
        return path, None  # a session in a store is read out of it, not opened
    try:
        # Non-blocking: a FIFO named like a session must not hang the open (`files.sources`).
        fd = os.open(path, osflags.READ)
    except OSError:
        return path, None
    if _ADVISE is not None:
        # A directory or a pipe refuses the advice: the read decides.
        with contextlib.suppress(OSError):
            _ADVISE(fd, 0, 0, _WILLNEED)
    return path, fd


def _read_ahead(path: Path, fd: int | None) -> tuple[bytes, float] | None:
    try:
        if fd is None:
            return _read(path)
        with open(fd, "rb") as fh:
            fd = None  # the file object owns and closes it now
            st = os.fstat(fh.fileno())
            if not stat.S_ISREG(st.st_mode):
                return None  # a FIFO or a device: reading it could block for good
            return fh.read(), st.st_mtime
    except OSError:
        # Vanished (pruned by Claude Code's cleanup) or unreadable between
        # discovery and parse: skip it, keep the batch.
        if fd is not None:
            os.close(fd)
        return None


def _parse_job(job: tuple[Path, FilterSpec | None]) -> Transcript | None:
    path, drop = job
    try:
        buf, mtime = _read(path)
    except OSError:
        return None
    return parse_buffer(buf, path=path, mtime=mtime, drop=drop)


def stream(
    paths: Iterable[Path], *, drop: FilterSpec | None = None, prefetch: int = 4,
    workers: int | None = 1,
) -> Iterator[Transcript]:
    """Parse files in input order: over the machine's cores for many files, else read ahead.

    Unreadable or vanished files are skipped. With `workers` other than 1
    (None: the cores, `learn.transcripts.pool`), a list or tuple of many files
    is parsed by a process pool; an iterator, a few files, or `workers=1` (the
    default) parse lazily in this process with the next `prefetch` files read
    ahead by the kernel. The default is one process because the pool pickles
    every transcript back, which costs more than parsing it: on the 110 MB
    benchmark corpus, 2 processes took 1.2-1.6 s wall against 0.24 s for one
    (benchmarks/index.py). The cold scan uses the pool through
    `learn.index.indexed`, whose workers build the view and send back
    its compact bytes instead (1.4-2.0x faster on 2 cores).

    Why no thread: msgspec decodes holding the GIL, so a reader thread only
    overlaps the read itself, and on this 2-core box the GIL hand-offs cost
    more than that bought: on the 56 MB benchmark corpus (warm cache) stream()
    with one reader thread took 0.135-0.168 s against 0.115-0.122 s for plain
    sequential parse(). For a cold cache, posix_fadvise(WILLNEED) on the files
    ahead asks the kernel to read them in the background instead, at one
    syscall a file (not measured cold: dropping the page cache on a shared box
    was not an option). A process pool pays about as much to pickle a parsed
    transcript back as to parse it.
    """
    from learn.transcripts.pool import ordered_map, worker_count

    # Only a list or tuple goes to the pool: an iterator stays lazy (a caller
    # may feed paths as it finds them, and must not have them drained up front).
    if workers != 1 and isinstance(paths, list | tuple) and worker_count(len(paths), workers) > 1:
        jobs = [(Path(p), drop) for p in paths]
        yield from (t for t in ordered_map(_parse_job, jobs, workers=workers) if t is not None)
        return
    prefetch = max(1, prefetch)
    it = iter(paths)
    ahead: deque[tuple[Path, int | None]] = deque()
    try:
        for path in it:
            ahead.append(_open_ahead(Path(path)))
            if len(ahead) >= prefetch:
                break
        while ahead:
            path, fd = ahead.popleft()
            for nxt in it:
                ahead.append(_open_ahead(Path(nxt)))
                break
            result = _read_ahead(path, fd)
            if result is not None:
                transcript = parse_buffer(result[0], path=path, mtime=result[1], drop=drop)
                # Not holding the file's bytes (or the transcript) across the
                # yield: the consumer still holds the previous transcript while
                # the next parses, and every MB kept alive is a MB the next
                # parse allocates cold.
                del result
                yield transcript
                del transcript
    finally:
        for _, fd in ahead:
            if fd is not None:
                os.close(fd)

