"""Read transcripts that were compressed on disk (`rollout-*.jsonl.zst`), in memory.

Codex (and archiving scripts around it) compress old rollouts with zstd; a
history with those files left out loses its oldest sessions silently. The file
is never modified: it is decompressed into memory for a parse, and streamed for
a head or a tail, so discovery never holds a whole large file to read a line.

`zstandard` is imported only when a compressed file is met (`learn --help`
and plain-JSONL histories never pay for it).
"""

from __future__ import annotations

from pathlib import Path
from typing import Final

ZSTD_MAGIC: Final = b"\x28\xb5\x2f\xfd"
ZST_SUFFIX: Final = ".zst"
_CHUNK: Final = 256 * 1024


class CorruptFile(ValueError):
    """A compressed file that does not decompress (truncated, or not zstd after all)."""


def is_zstd(buf: bytes | memoryview) -> bool:
    return bytes(buf[:4]) == ZSTD_MAGIC


def decompress(buf: bytes) -> tuple[bytes, bool]:
    """(the decompressed content of every frame, whether the last frame was complete).

    A truncated file (a sync or a copy cut short) gives what decoded before the
    cut and False. Raises CorruptFile when the data is not zstd at all.
    """
    import zstandard

    dctx = zstandard.ZstdDecompressor()
    out = bytearray()
    data = buf
    try:
        while data:
            frame = dctx.decompressobj()
            out += frame.decompress(data)
            if not frame.eof:
                return bytes(out), False
            data = frame.unused_data
    except zstandard.ZstdError as exc:
        if not out:
            raise CorruptFile(str(exc)) from None
        return bytes(out), False
    return bytes(out), True


def read_prefix(path: Path, limit: int) -> bytes:
    """Up to `limit` decompressed bytes from the start of a compressed file. Raises OSError."""
    import zstandard

    with path.open("rb") as fh:
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
    with path.open("rb") as fh:
        try:
            reader = zstandard.ZstdDecompressor().stream_reader(fh, read_across_frames=True)
            while True:
                chunk = reader.read(_CHUNK)
                if not chunk:
                    break
                window += chunk
                if len(window) > 2 * limit:
                    del window[: len(window) - limit]
        except zstandard.ZstdError:
            pass
    return bytes(window[-limit:])
