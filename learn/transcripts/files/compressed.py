"""Read transcripts that were compressed on disk (`rollout-*.jsonl.zst`), in memory.

Codex (and archiving scripts around it) compress old rollouts with zstd; a
history with those files left out loses its oldest sessions silently. The file
is never modified: it is decompressed into memory for a parse, and streamed for
a head or a tail, so discovery never holds a whole large file to read a line.

`zstandard` is imported only when a compressed file is met (`learn --help`
and plain-JSONL histories never pay for it).

Decompression is bounded: a 40 KB file of one repeated byte inflated to 2.1 GB
(an 80 KB one to 4.2 GB, linear, no limit), so a damaged or hostile file in a
history took all the memory of every command that read it. What a file may
inflate to is `inflate_limit`: MAX_RATIO times its size on disk, at least
MIN_INFLATED and never more than MAX_INFLATED. JSONL transcripts compress 3-6x
(the benchmark corpus at zstd levels 3 and 19) and repetitive real ones 10-30x,
so MAX_RATIO leaves them whole; past the limit the rest of the file is not read
and the listing says so (`learn sessions`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

import msgspec

from learn.transcripts.files.sources import open_regular

ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
ZST_SUFFIX: Final = ".zst"
_CHUNK: Final = 256 * 1024
MAX_RATIO: Final = 100
MIN_INFLATED: Final = 16 * 1024 * 1024
MAX_INFLATED: Final = 512 * 1024 * 1024
# Compressed input is fed this much at a time, so one call's output stays small
# (a zstd block of one repeated byte is 4 bytes for 128 KB: 256 bytes in can
# come out as 8 MB, and the limit is checked between calls).
_FEED: Final = 256


def inflate_limit(compressed_size: int) -> int:
    """How many bytes a compressed file of `compressed_size` bytes may inflate to."""
    return min(MAX_INFLATED, max(MIN_INFLATED, MAX_RATIO * compressed_size))


class Inflated(msgspec.Struct, frozen=True):
    data: bytes
    complete: bool  # the last frame ended (False: the file was cut short, or `cut`)
    cut: bool = False  # stopped at the inflate limit: the rest of the file is unread


class CorruptFile(ValueError):
    """A compressed file that does not decompress (truncated, or not zstd after all)."""


def is_zstd(buf: bytes | memoryview) -> bool:
    return bytes(buf[:4]) == ZSTD_MAGIC


def decompress(buf: bytes, limit: int | None = None) -> Inflated:
    """The decompressed content of every frame, at most `limit` bytes
    (default: `inflate_limit(len(buf))`).

    A truncated file (a sync or a copy cut short) gives what decoded before the
    cut and `complete=False`; one that inflates past the limit gives its first
    `limit` bytes and `cut=True`. Raises CorruptFile when the data is not zstd at all.
    """
    import zstandard

    cap = inflate_limit(len(buf)) if limit is None else limit
    dctx = zstandard.ZstdDecompressor()
    out = bytearray()
    frame = dctx.decompressobj()
    fed = 0  # bytes given to the current frame
    pos = 0
    view = memoryview(buf)
    try:
        while pos < len(buf):
            piece = view[pos : pos + _FEED]
            pos += len(piece)
            fed += len(piece)
            out += frame.decompress(piece)
            if len(out) > cap:
                del out[cap:]
                return Inflated(bytes(out), False, cut=True)
            if frame.eof:
                pos -= len(frame.unused_data)  # the next frame starts in this piece
                frame = dctx.decompressobj()
                fed = 0
    except zstandard.ZstdError as exc:
        if not out:
            raise CorruptFile(str(exc)) from None
        return Inflated(bytes(out), False)
    return Inflated(bytes(out), fed == 0)


def read_prefix(path: Path, limit: int) -> bytes:
    """Up to `limit` decompressed bytes from the start of a compressed file. Raises OSError."""
    import zstandard

    fh, _ = open_regular(path)
    with fh:
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
            out = bytearray()
            while len(out) < limit:
                chunk = reader.read(min(_CHUNK, limit - len(out)))
                if not chunk:
                    break
                out += chunk
        except zstandard.ZstdError:
            # Whatever decoded before the damage is still a head.
            pass
    return bytes(out)


def read_suffix(path: Path, limit: int) -> bytes:
    """The last `limit` decompressed bytes of a compressed file. Raises OSError.

    zstd cannot seek to the end: the file is streamed through, keeping a
    window. Compressed rollouts are archived ones, read once per `--since`.
    """
    import zstandard

    window = bytearray()
    fh, st = open_regular(path)
    with fh:
        # The end of what a parse reads: no further than the inflate limit (a
        # bomb streamed whole took minutes of CPU for a date).
        budget = inflate_limit(st.st_size)
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
            while budget > 0:
                chunk = reader.read(min(_CHUNK, budget))
                if not chunk:
                    break
                budget -= len(chunk)
                window += chunk
                if len(window) > 2 * limit:
                    del window[: len(window) - limit]
        except zstandard.ZstdError:
            pass
    return bytes(window[-limit:])
