"""The mining cache keyed from the digests the session index kept (learn.index.indexed).

Its own module, not learn.store.session_index's: the mining cache imports the
renderer and the prompts, which a warm `learn sessions` (0.3 s target) never needs.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from learn.mining.cache import MineCache, cache_key


class IndexedMineCache(MineCache):
    """The mining cache, keyed from the digests the session index kept.

    The cache's key is the sha256 of the file's bytes; hashing it again would
    open every unchanged file on a warm run. A path the index did not give is
    hashed as before.
    """

    def __init__(self, digests: Mapping[Path, str], root: Path | None = None) -> None:
        super().__init__(root)
        self._digests = dict(digests)

    def key_for_file(self, transcript: Path) -> str:
        digest = self._digests.get(transcript)
        return cache_key(digest) if digest is not None else super().key_for_file(transcript)
